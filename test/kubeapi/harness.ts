// The one harness of the end-to-end tests that talk to a ServiceLab Node server as a user does: the
// server in a process of its own on loopback ports (plain HTTP and the Kubernetes API's TLS port),
// clusters made through its HTTP API with their served kubeconfigs written to files, the real
// kubectl (or any program) run against them, and the web terminal's exec route. Used by
// test/kubeapi/*.e2e.test.ts and `npm run bench kubeapi`.
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Kubectl } from "./testcmd-cases.js";

/** The version dispatcher: it asks /version, then runs kubectl 1.33 for our server. */
export const KUBECTL = "/usr/bin/kubectl";
/** The oldest kubectl the dispatcher carries, run directly. */
export const KUBECTL_127 = "/usr/lib/google-cloud-sdk/bin/kubectl.1.27";

/** What a program printed and its exit code (-1 when it was killed or could not run). */
export interface Out {
  stdout: string;
  stderr: string;
  code: number;
}

export interface RunOptions {
  env: NodeJS.ProcessEnv;
  input?: string;
  cwd?: string;
  timeout?: number;
  maxBuffer?: number;
}

/** Runs `bin` asynchronously (the server, or a TLS front in this process, must keep serving). */
export function run(bin: string, args: string[], opts: RunOptions): Promise<Out> {
  return new Promise((res) => {
    const child = execFile(bin, args, { env: opts.env, cwd: opts.cwd, encoding: "utf8", timeout: opts.timeout ?? 60_000, maxBuffer: opts.maxBuffer ?? 64 << 20 }, (err, stdout, stderr) => {
      const code = err ? (typeof (err as { code?: unknown }).code === "number" ? (err as { code: number }).code : -1) : 0;
      res({ stdout, stderr, code });
    });
    child.stdin?.end(opts.input ?? "");
  });
}

/** A cluster made through the HTTP API, its kubeconfig written to `kubeconfig`. */
export interface TestCluster {
  id: string;
  token: string;
  kubeconfig: string;
  /** The kubeconfig's text as served. */
  text: string;
}

/** A ServiceLab Node server (`npx tsx src/runtime/node.ts`) with its data in a temporary directory. */
export class TestServer {
  private child: ChildProcess | undefined;
  origin = "";
  /** The Kubernetes API's TLS port. */
  kubePort = 0;

  private constructor(
    /** The temporary directory: the server's data in data/, kubeconfigs, HOME for kubectl in home/. */
    readonly dir: string,
    private readonly env: Record<string, string>,
  ) {}

  /** Starts a server; `env` adds to its environment (an admin key, a fixed KUBE_PORT). */
  static async start(prefix: string, env: Record<string, string> = {}): Promise<TestServer> {
    const dir = mkdtempSync(join(tmpdir(), `sl-${prefix}-`));
    mkdirSync(join(dir, "home"));
    const s = new TestServer(dir, env);
    await s.spawn({});
    return s;
  }

  private async spawn(extra: Record<string, string>): Promise<void> {
    const child = spawn("npx", ["tsx", "src/runtime/node.ts"], {
      env: { ...process.env, PORT: "0", HOST: "127.0.0.1", SERVICELAB_DATA_DIR: join(this.dir, "data"), ...this.env, ...extra },
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    });
    this.child = child;
    await new Promise<void>((res, rej) => {
      let buf = "";
      const t = setTimeout(() => rej(new Error(`server did not start: ${buf}`)), 90_000);
      child.stdout!.on("data", (d: Buffer) => {
        buf += d.toString();
        const plain = /listening on http:\/\/[\d.]+:(\d+)/.exec(buf);
        const kube = /Kubernetes API on https:\/\/[\d.]+:(\d+)/.exec(buf);
        if (plain && kube) {
          clearTimeout(t);
          this.origin = `http://127.0.0.1:${plain[1]}`;
          this.kubePort = Number(kube[1]);
          res();
        }
      });
      child.on("exit", (code) => rej(new Error(`server exited ${code}: ${buf}`)));
    });
  }

  /** Ends the server's process group and waits for it to go. */
  private async kill(): Promise<void> {
    const s = this.child;
    this.child = undefined;
    if (!s?.pid || s.exitCode !== null) return;
    const gone = new Promise<void>((r) => s.on("exit", () => r()));
    try {
      process.kill(-s.pid, "SIGTERM");
    } catch {
      return; // already gone
    }
    await gone;
  }

  /** Stops the server and starts it again on the same data directory, `env` added. */
  async restart(env: Record<string, string> = {}): Promise<void> {
    await this.kill();
    await this.spawn(env);
  }

  /** Stops the server and removes its directory. */
  async stop(): Promise<void> {
    await this.kill();
    rmSync(this.dir, { recursive: true, force: true });
  }

  /** POST to the HTTP API, expecting 201 Created. */
  async post(path: string, bearer?: string, body?: unknown): Promise<any> {
    const r = await fetch(this.origin + path, { method: "POST", headers: bearer ? { authorization: `Bearer ${bearer}` } : {}, body: body === undefined ? undefined : JSON.stringify(body) });
    if (r.status !== 201) throw new Error(`${path}: ${r.status} ${await r.text()}`);
    return r.json();
  }

  /** A new cluster (a tenant's with its API key, else anonymous), its kubeconfig in `<name>.kubeconfig`. */
  async cluster(name: string, apiKey?: string): Promise<TestCluster> {
    const c = (await this.post("/v1/clusters", apiKey)) as { id: string; token: string };
    const text = await (await fetch(`${this.origin}/v1/clusters/${c.id}/kubeconfig`, { headers: { authorization: `Bearer ${c.token}` } })).text();
    const kubeconfig = join(this.dir, `${name}.kubeconfig`);
    writeFileSync(kubeconfig, text);
    return { id: c.id, token: c.token, kubeconfig, text };
  }

  /** The environment kubectl runs in for `c`: its kubeconfig, and a HOME of its own. */
  kubectlEnv(c: TestCluster): NodeJS.ProcessEnv {
    return { ...process.env, KUBECONFIG: c.kubeconfig, HOME: join(this.dir, "home") };
  }

  /** A command line in the cluster's web terminal (POST /v1/clusters/{id}/exec). */
  async terminal(c: TestCluster, command: string): Promise<Out> {
    const r = await fetch(`${this.origin}/v1/clusters/${c.id}/exec`, { method: "POST", headers: { authorization: `Bearer ${c.token}`, "content-type": "application/json" }, body: JSON.stringify({ command }) });
    const j = (await r.json()) as { stdout: string; stderr: string; exitCode: number };
    return { stdout: j.stdout, stderr: j.stderr, code: j.exitCode };
  }
}

/** Both kubectls the test/cmd cases run (see startHarness). */
export const haveKubectl = existsSync(KUBECTL) && existsSync(KUBECTL_127);

/** A server with one cluster and the real kubectl pointed at it: testcmd.e2e.test.ts and `npm run bench kubeapi`. */
export interface Harness {
  origin: string;
  kubeconfig: string;
  kubectl: Kubectl;
  stop(): Promise<void>;
}

export async function startHarness(): Promise<Harness> {
  const srv = await TestServer.start("testcmd", { KUBE_PORT: "0" });
  const c = await srv.cluster("kubeconfig");
  const env = srv.kubectlEnv(c);
  const kubectl = Object.assign((args: string[], stdin?: string) => run(KUBECTL, args, { env, input: stdin, timeout: 120_000 }), {
    v127: (args: string[], stdin?: string) => run(KUBECTL_127, args, { env, input: stdin, timeout: 120_000 }),
  });
  return { origin: srv.origin, kubeconfig: c.kubeconfig, kubectl, stop: () => srv.stop() };
}

/**
 * Whether `paths` exist; when one is missing, a failure under CI=true (the test must run there),
 * else a warning that `what` is skipped.
 */
export function requireTools(what: string, ...paths: string[]): boolean {
  const missing = paths.filter((p) => !existsSync(p));
  if (missing.length && process.env.CI === "true") throw new Error(`${missing.join(" and ")} missing: ${what} cannot run (CI=true makes this a failure)`);
  if (missing.length) console.warn(`skipping ${what}: ${missing.join(" and ")} not installed`);
  return missing.length === 0;
}
