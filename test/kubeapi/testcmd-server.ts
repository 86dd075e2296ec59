// A ServiceLab Node server on loopback (a process of its own, as a user runs it) and the real
// kubectl pointed at one of its clusters through the kubeconfig it serves: the harness of
// testcmd.e2e.test.ts and of `npm run bench kubeapi`.
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Kubectl, Out } from "./testcmd-cases.js";

export const KUBECTL = "/usr/bin/kubectl";
export const KUBECTL_127 = "/usr/lib/google-cloud-sdk/bin/kubectl.1.27";
export const haveKubectl = existsSync(KUBECTL) && existsSync(KUBECTL_127);

export interface Harness {
  origin: string;
  kubeconfig: string;
  kubectl: Kubectl;
  stop(): void;
}

function run(bin: string, args: string[], env: NodeJS.ProcessEnv, stdin?: string): Promise<Out> {
  return new Promise((res) => {
    const child = execFile(bin, args, { env, encoding: "utf8", timeout: 120_000, maxBuffer: 64 << 20 }, (err, stdout, stderr) => {
      const code = err ? (typeof (err as { code?: unknown }).code === "number" ? (err as { code: number }).code : -1) : 0;
      res({ stdout, stderr, code });
    });
    child.stdin?.end(stdin ?? "");
  });
}

export async function startHarness(): Promise<Harness> {
  const dir = mkdtempSync(join(tmpdir(), "sl-testcmd-"));
  mkdirSync(join(dir, "home"));
  const server: ChildProcess = spawn("npx", ["tsx", "src/runtime/node.ts"], {
    env: { ...process.env, PORT: "0", KUBE_PORT: "0", HOST: "127.0.0.1", SERVICELAB_DATA_DIR: join(dir, "data") },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  const port = await new Promise<number>((res, rej) => {
    let buf = "";
    const t = setTimeout(() => rej(new Error(`server did not start: ${buf}`)), 90_000);
    server.stdout!.on("data", (d: Buffer) => {
      buf += d.toString();
      const m = /listening on http:\/\/[\d.]+:(\d+)/.exec(buf);
      if (m && /Kubernetes API/.test(buf)) {
        clearTimeout(t);
        res(Number(m[1]));
      }
    });
    server.on("exit", (code) => rej(new Error(`server exited ${code}: ${buf}`)));
  });
  const origin = `http://127.0.0.1:${port}`;
  const created = (await (await fetch(`${origin}/v1/clusters`, { method: "POST" })).json()) as { id: string; token: string };
  const kc = await (await fetch(`${origin}/v1/clusters/${created.id}/kubeconfig`, { headers: { authorization: `Bearer ${created.token}` } })).text();
  const kubeconfig = join(dir, "kubeconfig");
  writeFileSync(kubeconfig, kc);
  const env = { ...process.env, KUBECONFIG: kubeconfig, HOME: join(dir, "home") };
  const kubectl = Object.assign((args: string[], stdin?: string) => run(KUBECTL, args, env, stdin), {
    v127: (args: string[], stdin?: string) => run(KUBECTL_127, args, env, stdin),
  });
  return {
    origin,
    kubeconfig,
    kubectl,
    stop() {
      try {
        if (server.pid) process.kill(-server.pid, "SIGTERM");
      } catch {
        // already gone
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
