// pods/exec and pods/attach as the apiserver and kubelet serve them to a streaming client: the
// request checked against the cluster before the upgrade (ExecLocation/AttachLocation's
// refusals), and the channel.k8s.io framing of the WebSocket subprotocols kubectl 1.30+ (v5)
// and client libraries (v4) speak: every binary message starts with its channel (0 stdin,
// 1 stdout, 2 stderr, 3 error, 4 resize; v5 adds 255 = "the sender closed channel N"), and the
// error channel carries one v1 Status with the exit code before the server closes.
//
// Runtime-neutral: the plan is made inside the cluster's host, the session (exec-session.ts)
// runs wherever the socket is.

import { R } from "../engine/api/resources.js";
import { badRequest, notFound, notServed } from "../engine/api/status.js";
import type { Pod } from "../engine/api/types.js";
import type { Cluster } from "../engine/cluster.js";
import { podShellPrompt } from "../shell/prompt.js";
import { type KubeRequest, type KubeResponse, parseTarget } from "./serve.js";

const V5 = "v5.channel.k8s.io";
const V4 = "v4.channel.k8s.io";
/** The subprotocols served, best first (kubectl 1.30+ offers only v5; client-node offers v4 first). */
export const CHANNEL_PROTOCOLS = [V5, V4] as const;

export const STDIN = 0;
export const STDOUT = 1;
export const STDERR = 2;
export const ERROR = 3;
const RESIZE = 4;
/** v5: [255, channel] says the sender will write no more on that channel (stdin's EOF). */
const CLOSE = 255;

/** What an exec or attach asks for, checked against the cluster. Plain data (crosses RPC). */
export interface StreamPlan {
  kind: "exec" | "attach";
  namespace: string;
  pod: string;
  /** The pod's uid when planned: a pod made again under the name is another pod. */
  uid: string;
  container: string;
  /** exec: the argv; attach: empty. */
  command: string[];
  stdin: boolean;
  stdout: boolean;
  stderr: boolean;
  tty: boolean;
  /**
   * An interactive shell (exec of a bare sh/bash with -i -t, or attach to a container started
   * with stdin and a shell): the shell it is, and the prompt it prints.
   */
  shell?: { name: string; prompt: string };
}

/** The kubelet refusing a stream before it starts: Go's http error, a plain-text body. */
function kubeletRefusal(status: number, message: string): KubeResponse {
  return { status, contentType: "text/plain; charset=utf-8", body: message };
}

/** The subprotocol to answer with: the first of the client's that is served; undefined: none. */
export function pickProtocol(offered: string | undefined): string | undefined {
  const asked = (offered ?? "").split(",").map((s) => s.trim()).filter(Boolean);
  return CHANNEL_PROTOCOLS.find((p) => asked.includes(p));
}

/** The boolean query parameters of PodExecOptions/PodAttachOptions ("true", "1"). */
function flag(v: string | undefined): boolean {
  return v === "true" || v === "1";
}

/**
 * Checks an exec/attach request as kube-apiserver does before it proxies the upgrade to the
 * kubelet (pod, container, node), then as the kubelet does (the container runs). Throws the
 * Status the client would get.
 */
export function streamPlan(cluster: Cluster, req: KubeRequest): StreamPlan | KubeResponse {
  const t = parseTarget(req.path.split("/").filter(Boolean).map(decodeURIComponent), cluster);
  if (!t || t.info !== R.pods || !t.name || (t.sub !== "exec" && t.sub !== "attach")) throw notServed();
  const ns = t.namespace ?? "default";
  const pod = cluster.api.peek(R.pods, ns, t.name) as Pod | undefined;
  if (!pod) throw notFound("pods", "", t.name);
  const q = req.query;
  const containers = pod.spec.containers.map((c) => c.name);
  const inits = (pod.spec.initContainers ?? []).map((c) => c.name);
  let container = q.container ?? "";
  if (!container) {
    if (containers.length !== 1) {
      throw badRequest(`a container name must be specified for pod ${t.name}, choose one of: [${containers.join(" ")}]${inits.length ? ` or one of the init containers: [${inits.join(" ")}]` : ""}`);
    }
    container = containers[0];
  }
  if (!containers.includes(container) && !inits.includes(container)) throw badRequest(`container ${container} is not valid for pod ${t.name}`);
  if (!pod.spec.nodeName) throw badRequest(`pod ${t.name} does not have a host assigned`);
  const stdin = flag(q.stdin);
  const stdout = flag(q.stdout);
  const stderr = flag(q.stderr);
  const tty = flag(q.tty);
  if (!stdin && !stdout && !stderr) throw badRequest("you must specify at least 1 of stdin, stdout, stderr");
  const command = t.sub === "exec" ? req.command ?? [] : [];
  if (t.sub === "exec" && !command.length) throw badRequest("you must specify at least 1 command");
  // The kubelet's answers (server.go getExec/getAttach): plain text, not a Status, so a client
  // reports them as its upgrade failing ("unable to upgrade connection: ..."), as the terminal's kubectl does.
  if (!cluster.kubelet.runs(pod)) return kubeletRefusal(404, "pod does not exist");
  if (cluster.kubelet.containerState(pod, container) !== "running") return kubeletRefusal(500, `container not found (${JSON.stringify(container)})`);
  const plan: StreamPlan = { kind: t.sub, namespace: ns, pod: t.name, uid: pod.metadata.uid ?? "", container, command, stdin, stdout, stderr, tty };
  const shell = interactiveShell(cluster, pod, plan);
  if (shell) plan.shell = { name: shell, prompt: podShellPrompt(cluster, pod, container, shell) };
  return plan;
}

/** The shell an interactive stream talks to, if it is one. */
function interactiveShell(cluster: Cluster, pod: Pod, p: StreamPlan): string | undefined {
  if (!p.stdin || !p.tty) return undefined;
  if (p.kind === "exec") {
    const bin = p.command[0].split("/").pop()!;
    return p.command.length === 1 && /^(sh|bash|ash)$/.test(bin) ? bin : undefined;
  }
  // attach: the container's own process, a shell when it was started with stdin (kubectl run -it).
  const spec = pod.spec.containers.find((c) => c.name === p.container);
  if (!spec?.stdin) return undefined;
  const cmd = [...(spec.command ?? []), ...(spec.args ?? [])];
  const bin = cmd.length ? cmd[0].split("/").pop()! : cluster.kubelet.profile(pod, p.container)?.shell ?? "";
  return /^(sh|bash|ash)$/.test(bin) ? bin : undefined;
}

// ---------------------------------------------------------------------------------------------
// the error channel: one v1 Status, as the kubelet's v4 writer marshals it (no kind/apiVersion)

export function successStatus(): string {
  return JSON.stringify({ metadata: {}, status: "Success" });
}

/** A non-zero exit: remotecommand's NonZeroExitCode, the code in an ExitCode cause. */
export function exitStatus(argv: string[], code: number): string {
  return JSON.stringify({
    metadata: {},
    status: "Failure",
    message: `command terminated with non-zero exit code: error executing command [${argv.join(" ")}], exit code ${code}`,
    reason: "NonZeroExitCode",
    details: { causes: [{ reason: "ExitCode", message: String(code) }] },
  });
}

/** The runtime could not run the command (no such executable): apierrors.NewInternalError. */
export function internalStatus(detail: string): string {
  return JSON.stringify({ metadata: {}, status: "Failure", message: `Internal error occurred: ${detail}`, reason: "InternalError", details: { causes: [{ message: detail }] }, code: 500 });
}

// ---------------------------------------------------------------------------------------------
// frames

/** One message on `channel`. */
export function frame(channel: number, data: Uint8Array | string): Uint8Array {
  const body = typeof data === "string" ? new TextEncoder().encode(data) : data;
  const out = new Uint8Array(body.length + 1);
  out[0] = channel;
  out.set(body, 1);
  return out;
}

type Incoming =
  | { type: "stdin"; data: Uint8Array }
  | { type: "resize"; width: number; height: number }
  | { type: "close"; channel: number }
  /** Ignored as the kubelet ignores it: an empty message, a channel that reads nothing. */
  | { type: "ignore" }
  /** Not the protocol: the connection is closed. */
  | { type: "malformed"; reason: string };

/** Decodes one client message of the channel protocol `protocol`. */
export function decodeFrame(protocol: string, msg: Uint8Array | string): Incoming {
  if (typeof msg === "string") return { type: "malformed", reason: "text messages are not part of the channel protocol" };
  if (msg.length === 0) return { type: "ignore" };
  const ch = msg[0];
  const data = msg.subarray(1);
  if (ch === CLOSE && protocol === V5) {
    if (data.length !== 1) return { type: "malformed", reason: "a close signal names exactly one channel" };
    return { type: "close", channel: data[0] };
  }
  if (ch === STDIN) return { type: "stdin", data };
  if (ch === RESIZE) {
    // remotecommand.TerminalSize as JSON; a size that does not parse is dropped, as the kubelet drops it.
    try {
      const s = JSON.parse(new TextDecoder().decode(data)) as { Width?: unknown; Height?: unknown };
      if (typeof s.Width === "number" && typeof s.Height === "number") return { type: "resize", width: s.Width, height: s.Height };
    } catch {
      /* dropped */
    }
    return { type: "ignore" };
  }
  return { type: "ignore" };
}
