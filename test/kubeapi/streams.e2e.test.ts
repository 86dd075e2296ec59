// kubectl exec, attach, logs -f and port-forward through the REAL kubectl (/usr/bin/kubectl, the
// version dispatcher: 1.33 for our server; older ones run directly) and the served kubeconfig,
// unchanged: the WebSocket v5.channel.k8s.io streams kubectl 1.30+ opens, against the pod
// shells the web terminal's kubectl exec uses (outputs compared with it), `exec -it` typed
// through a pseudo-terminal (python3's pty module), the clean refusals (SPDY from kubectl 1.27,
// port-forward), and malformed frames or another cluster's token on a raw WebSocket.
// Without kubectl: skipped, or failed when CI=true.
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";

const KUBECTL = "/usr/bin/kubectl";
const BIN = "/usr/lib/google-cloud-sdk/bin";
const have = existsSync(KUBECTL) && existsSync("/usr/bin/python3");
if (!have && process.env.CI === "true") throw new Error(`${KUBECTL} or python3 is missing: the kubectl streams test cannot run (CI=true makes this a failure)`);
if (!have) console.warn(`skipping the kubectl streams test: ${KUBECTL} or python3 is not installed`);

let dir: string;
let server: ChildProcess | undefined;
let origin: string;
let kubePort: number;
let ca: string;
let id: string;
let token: string;
let kubeconfig: string;
let pod: string;

interface Out {
  stdout: string;
  stderr: string;
  code: number;
}

function run(bin: string, args: string[], opts: { input?: string; timeout?: number } = {}): Promise<Out> {
  return new Promise((res) => {
    const env: NodeJS.ProcessEnv = { ...process.env, KUBECONFIG: kubeconfig, HOME: join(dir, "home") };
    const child = execFile(bin, args, { env, encoding: "utf8", timeout: opts.timeout ?? 60_000 }, (err, stdout, stderr) => {
      const code = err ? (typeof (err as { code?: unknown }).code === "number" ? (err as { code: number }).code : -1) : 0;
      res({ stdout, stderr, code });
    });
    child.stdin!.end(opts.input ?? "");
  });
}
const kubectl = (args: string[], opts?: { input?: string; timeout?: number }) => run(KUBECTL, args, opts);

/** python3's pty module driving a program on a pseudo-terminal (see onTty). */
const PTY = `
import os, pty, sys, time, select, json
steps, args = json.loads(sys.argv[1]), sys.argv[2:]
pid, fd = pty.fork()
if pid == 0:
    os.execvp(args[0], args)
out = b""
def read(until=None, timeout=30):
    global out
    end = time.time() + timeout
    while time.time() < end:
        if until is not None and until():
            return True
        r, _, _ = select.select([fd], [], [], 0.05)
        if r:
            try: d = os.read(fd, 4096)
            except OSError: return False
            if not d: return False
            out += d
    return False
for wait, send in steps:
    seen = out.count(wait.encode())
    read(lambda: out.count(wait.encode()) > seen)
    os.write(fd, send.encode())
read()
_, status = os.waitpid(pid, 0)
sys.stdout.write(json.dumps({"out": out.decode(errors="replace"), "code": os.waitstatus_to_exitcode(status)}))
`;
/**
 * Runs kubectl on a pseudo-terminal (its stdin a tty, so -t puts it in raw mode); each step waits
 * for one more occurrence of its text in the output, then types its input. Returns everything
 * the terminal showed and kubectl's exit code.
 */
async function onTty(steps: Array<[wait: string, send: string]>, args: string[]): Promise<{ out: string; code: number }> {
  const r = await run("/usr/bin/python3", ["-c", PTY, JSON.stringify(steps), KUBECTL, ...args], { timeout: 90_000 });
  if (r.code !== 0) throw new Error(`pty driver failed: ${r.stderr}`);
  return JSON.parse(r.stdout) as { out: string; code: number };
}

async function terminal(command: string): Promise<Out> {
  const r = await fetch(`${origin}/v1/clusters/${id}/exec`, { method: "POST", headers: { authorization: `Bearer ${token}`, "content-type": "application/json" }, body: JSON.stringify({ command }) });
  const j = (await r.json()) as { stdout: string; stderr: string; exitCode: number };
  return { stdout: j.stdout, stderr: j.stderr, code: j.exitCode };
}

async function newCluster(): Promise<{ id: string; token: string; kubeconfig: string }> {
  const c = (await (await fetch(`${origin}/v1/clusters`, { method: "POST" })).json()) as { id: string; token: string };
  const text = await (await fetch(`${origin}/v1/clusters/${c.id}/kubeconfig`, { headers: { authorization: `Bearer ${c.token}` } })).text();
  const file = join(dir, `${c.id}.kubeconfig`);
  writeFileSync(file, text);
  return { ...c, kubeconfig: file };
}

/** A raw WebSocket to the TLS port, as kubectl would open it. */
function rawExec(path: string, bearer: string, protocol = "v5.channel.k8s.io"): Promise<{ ws?: WebSocket; status?: number; body?: string }> {
  return new Promise((res) => {
    const ws = new WebSocket(`wss://127.0.0.1:${kubePort}${path}`, [protocol], { ca, headers: { authorization: `Bearer ${bearer}` } });
    ws.on("open", () => res({ ws }));
    ws.on("unexpected-response", (_req, resp) => {
      let body = "";
      resp.on("data", (d: Buffer) => (body += d.toString()));
      resp.on("end", () => res({ status: resp.statusCode, body }));
    });
    ws.on("error", () => res({}));
  });
}

describe.skipIf(!have)("kubectl exec, attach, logs -f, port-forward: streams through the real kubectl", () => {
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "sl-streams-"));
    const s = spawn("npx", ["tsx", "src/runtime/node.ts"], { env: { ...process.env, PORT: "0", HOST: "127.0.0.1", SERVICELAB_DATA_DIR: join(dir, "data") }, stdio: ["ignore", "pipe", "pipe"], detached: true });
    server = s;
    await new Promise<void>((res, rej) => {
      let buf = "";
      const t = setTimeout(() => rej(new Error(`server did not start: ${buf}`)), 90_000);
      s.stdout!.on("data", (d: Buffer) => {
        buf += d.toString();
        const plain = /listening on http:\/\/[\d.]+:(\d+)/.exec(buf);
        const kube = /Kubernetes API on https:\/\/[\d.]+:(\d+)/.exec(buf);
        if (plain && kube) {
          clearTimeout(t);
          origin = `http://127.0.0.1:${plain[1]}`;
          kubePort = Number(kube[1]);
          res();
        }
      });
      s.on("exit", (code) => rej(new Error(`server exited ${code}: ${buf}`)));
    });
    const c = await newCluster();
    ({ id, token, kubeconfig } = c);
    ca = Buffer.from(/certificate-authority-data: (\S+)/.exec(await (await fetch(`${origin}/v1/clusters/${id}/kubeconfig`, { headers: { authorization: `Bearer ${token}` } })).text())![1], "base64").toString();
    await kubectl(["create", "deployment", "web", "--image=nginx"]);
    await kubectl(["wait", "--for=condition=Available", "deployment/web", "--timeout=60s"]);
    pod = (await kubectl(["get", "pods", "-l", "app=web", "-o", "jsonpath={.items[0].metadata.name}"])).stdout;
  }, 150_000);

  afterAll(async () => {
    const s = server;
    if (s?.pid) {
      const gone = new Promise<void>((r) => s.on("exit", () => r()));
      try {
        process.kill(-s.pid, "SIGTERM");
        await gone;
      } catch {
        /* already gone */
      }
    }
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("exec runs a command in the pod's shell: its output and exit code, as the terminal's kubectl exec prints them", { timeout: 60_000 }, async () => {
    const args = ["exec", pod, "--", "sh", "-c", "hostname; echo $KUBERNETES_SERVICE_HOST; echo oops >&2; exit 3"];
    const real = await kubectl(args);
    expect(real).toEqual({ stdout: `${pod}\n10.96.0.1\n`, stderr: "oops\ncommand terminated with exit code 3\n", code: 3 });
    const term = await terminal(`kubectl exec ${pod} -- sh -c 'hostname; echo $KUBERNETES_SERVICE_HOST; echo oops >&2; exit 3'`);
    expect(term).toEqual(real);
    expect(await kubectl(["exec", pod, "--", "cat", "/etc/hostname"])).toEqual({ stdout: `${pod}\n`, stderr: "", code: 0 });
  });

  it("exec -i feeds stdin to the command (v5's close signal ends it); what it writes stays in the pod", { timeout: 60_000 }, async () => {
    const r = await kubectl(["exec", "-i", pod, "--", "sh"], { input: "echo from a script > /tmp/note\nwc -l < /etc/hostname\n" });
    expect(r).toEqual({ stdout: "1\n", stderr: "", code: 0 });
    expect((await kubectl(["exec", pod, "--", "cat", "/tmp/note"])).stdout).toBe("from a script\n");
    // The terminal's pod shell sees the same file: one container, one filesystem.
    expect((await terminal(`kubectl exec ${pod} -- cat /tmp/note`)).stdout).toBe("from a script\n");
  });

  it("exec -it sh typed through a pseudo-terminal: prompt, echo, line editing, exit status", { timeout: 90_000 }, async () => {
    const r = await onTty(
      [
        ["/ # ", "hostnamx\x7fe\r"],
        ["/ # ", "cd /tmp && cat note\r"],
        ["/ # ", "exit 4\r"],
      ],
      ["exec", "-it", pod, "--", "sh"],
    );
    expect(r.out).toBe(`/ # hostnamx\b \be\r\n${pod}\r\n/ # cd /tmp && cat note\r\nfrom a script\r\n/ # exit 4\r\ncommand terminated with exit code 4\r\n`);
    expect(r.code).toBe(4);
  });

  it("exec refusals: no such pod, a container that is not there", { timeout: 60_000 }, async () => {
    expect(await kubectl(["exec", "nosuch", "--", "true"])).toEqual({ stdout: "", stderr: 'Error from server (NotFound): pods "nosuch" not found\n', code: 1 });
    expect(await kubectl(["exec", pod, "-c", "other", "--", "true"])).toMatchObject({ stderr: `Error from server (BadRequest): container other is not valid for pod ${pod}\n`, code: 1 });
  });

  it("exec into a container that is not running: the kubelet's refusal through the upgrade, a completed pod's phase; as the terminal prints them", { timeout: 90_000 }, async () => {
    // Created and asked at once: the container is still being created.
    const made = await terminal("kubectl run starting --image=nginx; kubectl exec starting -- true");
    const want = { stdout: "", stderr: 'error: unable to upgrade connection: container not found ("starting")\n', code: 1 };
    expect({ ...made, stdout: "" }).toEqual(want);
    await kubectl(["delete", "pod", "starting", "--wait=false"]);
    await kubectl(["run", "crash", "--image=busybox", "--", "false"]);
    await terminal("sleep 20");
    expect(await kubectl(["exec", "crash", "--", "true"])).toEqual({ ...want, stderr: want.stderr.replace("starting", "crash") });
    expect(await terminal("kubectl exec crash -- true")).toEqual({ ...want, stderr: want.stderr.replace("starting", "crash") });
    await kubectl(["run", "done", "--image=busybox", "--restart=Never", "--", "true"]);
    await terminal("sleep 10");
    const done = { stdout: "", stderr: "error: cannot exec into a container in a completed pod; current phase is Succeeded\n", code: 1 };
    expect(await kubectl(["exec", "done", "--", "true"])).toEqual(done);
    expect(await terminal("kubectl exec done -- true")).toEqual(done);
  });

  it("kubectl 1.30 (the first with WebSocket streams) as 1.33; kubectl 1.27 (SPDY only) gets a clean error, not a hang", { timeout: 60_000 }, async () => {
    expect(await run(`${BIN}/kubectl.1.30`, ["exec", pod, "--", "sh", "-c", "exit 2"])).toEqual({ stdout: "", stderr: "command terminated with exit code 2\n", code: 2 });
    const old = await run(`${BIN}/kubectl.1.27`, ["exec", pod, "--", "hostname"], { timeout: 20_000 });
    expect(old.code).toBe(1);
    expect(old.stderr).toMatch(/^Error from server \(BadRequest\): ServiceLab streams exec and attach over WebSocket \(v5\.channel\.k8s\.io, kubectl 1\.30 and later\), not SPDY/);
  });

  it("port-forward: a clean error that says ServiceLab does not forward ports", { timeout: 60_000 }, async () => {
    const r = await kubectl(["port-forward", pod, "18080:80"], { timeout: 20_000 });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/ServiceLab does not forward ports/);
  });

  it("logs -f: the lines so far, each new line as the container writes it, the end when the container stops", { timeout: 90_000 }, async () => {
    const env: NodeJS.ProcessEnv = { ...process.env, KUBECONFIG: kubeconfig, HOME: join(dir, "home") };
    const child = spawn(KUBECTL, ["logs", "-f", pod], { env, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    child.stdout.on("data", (d: Buffer) => (out += d.toString()));
    const ended = new Promise<number>((r) => child.on("exit", (code) => r(code ?? -1)));
    const until = async (re: RegExp) => {
      for (let i = 0; i < 200 && !re.test(out); i++) await new Promise((r) => setTimeout(r, 100));
      return out;
    };
    expect(await until(/start worker processes\n/)).toMatch(/Configuration complete; ready for start up/);
    const ip = (await kubectl(["get", "pod", pod, "-o", "jsonpath={.status.podIP}"])).stdout;
    await terminal(`curl -s ${ip}/followed >/dev/null`);
    expect(await until(/GET \/followed /)).toMatch(/"GET \/followed HTTP\/1\.1" 404 /);
    await terminal(`curl -s ${ip}/again >/dev/null`);
    expect(await until(/GET \/again /)).toMatch(/"GET \/again HTTP\/1\.1" 404 /);
    // The pod goes: its container stops, and the stream ends.
    await kubectl(["delete", "pod", pod, "--wait=false"]);
    expect(await ended).toBe(0);
    pod = "";
    for (let i = 0; i < 50 && !pod; i++) {
      const names = (await kubectl(["get", "pods", "-l", "app=web", "--field-selector=status.phase=Running", "-o", "jsonpath={.items[*].metadata.name}"])).stdout.split(" ").filter(Boolean);
      const running = [];
      for (const n of names) if ((await kubectl(["get", "pod", n, "-o", "jsonpath={.metadata.deletionTimestamp}"])).stdout === "") running.push(n);
      pod = running[0] ?? "";
      if (!pod) await new Promise((r) => setTimeout(r, 500));
    }
    expect(pod).not.toBe("");
  });

  it("the plain port's /k8s/{id} streams too (an anonymous cluster, kubectl on this machine)", { timeout: 90_000 }, async () => {
    const c = await newCluster();
    const f = join(dir, "plain.kubeconfig");
    const text = (await (await fetch(`${origin}/v1/clusters/${c.id}/kubeconfig`, { headers: { authorization: `Bearer ${c.token}` } })).text()).replace(/^ {4}certificate-authority-data: .*\n/m, "").replace(/^ {4}server: .*$/m, `    server: ${origin}/k8s/${c.id}`);
    writeFileSync(f, text);
    const env: NodeJS.ProcessEnv = { ...process.env, KUBECONFIG: f, HOME: join(dir, "home") };
    const k = (args: string[]) =>
      new Promise<Out>((res) => execFile(KUBECTL, args, { env, encoding: "utf8", timeout: 60_000 }, (err, stdout, stderr) => res({ stdout, stderr, code: err ? Number((err as { code?: number }).code ?? -1) : 0 })));
    const busy = await k(["run", "bb", "--image=busybox", "--restart=Never", "--", "sleep", "3600"]);
    expect(busy.code).toBe(0);
    await k(["wait", "--for=condition=Ready", "pod/bb", "--timeout=60s"]);
    expect(await k(["exec", "bb", "--", "sh", "-c", "echo $HOSTNAME"])).toEqual({ stdout: "bb\n", stderr: "", code: 0 });
  });

  it("bad input on a raw WebSocket: another cluster's token is a bare 401; a malformed frame closes the stream", { timeout: 60_000 }, async () => {
    const path = `/api/v1/namespaces/default/pods/${pod}/exec?command=sh&stdin=true&stdout=true&stderr=true`;
    const other = await newCluster();
    const forged = token.replace(/\.[^.]+$/, ".AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA");
    const refused = await rawExec(path, forged);
    expect(refused.status).toBe(401);
    expect(JSON.parse(refused.body!)).toMatchObject({ kind: "Status", status: "Failure", message: "Unauthorized", reason: "Unauthorized", code: 401 });
    // Another cluster's valid token names that cluster, where this pod is not.
    const elsewhere = await rawExec(path, other.token);
    expect(elsewhere.status).toBe(404);
    expect(JSON.parse(elsewhere.body!).message).toBe(`pods "${pod}" not found`);

    const { ws } = await rawExec(path, token);
    expect(ws?.protocol).toBe("v5.channel.k8s.io");
    const closed = new Promise<number>((r) => ws!.on("close", (code) => r(code)));
    ws!.send(Buffer.from([255, 0, 1])); // a close signal naming two channels
    expect(await closed).toBe(1002);

    // A v4 client (client libraries): the error channel's Status carries the exit code.
    const v4 = await rawExec(`/api/v1/namespaces/default/pods/${pod}/exec?command=sh&command=-c&command=exit%205&stdout=true&stderr=true`, token, "v4.channel.k8s.io");
    const frames: Buffer[] = [];
    v4.ws!.on("message", (d: Buffer) => frames.push(d));
    expect(await new Promise<number>((r) => v4.ws!.on("close", (code) => r(code)))).toBe(1000);
    const status = frames.find((f) => f[0] === 3)!;
    expect(JSON.parse(status.subarray(1).toString())).toEqual({
      metadata: {},
      status: "Failure",
      message: "command terminated with non-zero exit code: error executing command [sh -c exit 5], exit code 5",
      reason: "NonZeroExitCode",
      details: { causes: [{ reason: "ExitCode", message: "5" }] },
    });
  });
});
