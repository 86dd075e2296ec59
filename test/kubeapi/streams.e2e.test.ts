// kubectl exec, attach, logs -f and port-forward through the REAL kubectl (/usr/bin/kubectl, the
// version dispatcher: 1.33 for our server; older ones run directly) and the served kubeconfig,
// unchanged: the WebSocket v5.channel.k8s.io streams kubectl 1.30+ opens, against the pod
// shells the web terminal's kubectl exec uses (outputs compared with it), `exec -it` typed
// through a pseudo-terminal (python3's pty module), the clean refusals (SPDY from kubectl 1.27,
// port-forward), and malformed frames or another cluster's token on a raw WebSocket.
// Without kubectl: skipped, or failed when CI=true.
import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { KUBECTL, type Out, requireTools, run as runProgram, type TestCluster, TestServer } from "./harness.js";

const BIN = "/usr/lib/google-cloud-sdk/bin";
const have = requireTools("the kubectl streams test", KUBECTL, "/usr/bin/python3");

let srv: TestServer;
let cl: TestCluster;
let dir: string;
let origin: string;
let kubePort: number;
let ca: string;
let token: string;
let pod: string;

/** `bin` with the cluster's kubeconfig. */
const run = (bin: string, args: string[], opts: { input?: string; timeout?: number } = {}): Promise<Out> => runProgram(bin, args, { env: srv.kubectlEnv(cl), timeout: 60_000, ...opts });
const kubectl = (args: string[], opts?: { input?: string; timeout?: number }) => run(KUBECTL, args, opts);
const terminal = (command: string): Promise<Out> => srv.terminal(cl, command);
let clusters = 0;
const newCluster = (): Promise<TestCluster> => srv.cluster(`cluster-${++clusters}`);

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
    srv = await TestServer.start("streams");
    ({ dir, origin, kubePort } = srv);
    cl = await newCluster();
    token = cl.token;
    ca = Buffer.from(/certificate-authority-data: (\S+)/.exec(cl.text)![1], "base64").toString();
    await kubectl(["create", "deployment", "web", "--image=nginx"]);
    await kubectl(["wait", "--for=condition=Available", "deployment/web", "--timeout=60s"]);
    pod = (await kubectl(["get", "pods", "-l", "app=web", "-o", "jsonpath={.items[0].metadata.name}"])).stdout;
  }, 150_000);

  afterAll(() => srv?.stop());

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
    const child = spawn(KUBECTL, ["logs", "-f", pod], { env: srv.kubectlEnv(cl), stdio: ["ignore", "pipe", "pipe"] });
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
    const text = c.text.replace(/^ {4}certificate-authority-data: .*\n/m, "").replace(/^ {4}server: .*$/m, `    server: ${origin}/k8s/${c.id}`);
    writeFileSync(f, text);
    const env: NodeJS.ProcessEnv = { ...process.env, KUBECONFIG: f, HOME: join(dir, "home") };
    const k = (args: string[]) => runProgram(KUBECTL, args, { env, timeout: 60_000 });
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
