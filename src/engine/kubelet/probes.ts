// What a container's probe answers: an HTTP GET or a TCP connect to the container's app, or an
// exec probe's command over its files, worded as prober.go and the image's userland report a
// failure. The kubelet decides when probes run and what their verdicts change.

import type { Container } from "../api/types.js";
import { httpGet, listenerApp } from "./apps.js";
import type { ContainerFs } from "./fs.js";
import type { ImageProfile } from "./images.js";

/** Runs a readiness probe against the container's app and files. */
export function probeSucceeds(probe: NonNullable<Container["readinessProbe"]>, spec: Container, profile: ImageProfile, fs: ContainerFs): boolean {
  return probeFailure(probe, spec, profile, fs, "") === undefined;
}

/**
 * What a failing probe reports (the `output` of prober.go's "%s probe failed: %s"), undefined
 * when it succeeds: pkg/probe/http's status and dial errors, pkg/probe/tcp's dial error, and an
 * exec probe's combined output as the image's userland prints it.
 */
export function probeFailure(probe: NonNullable<Container["readinessProbe"]>, spec: Container, profile: ImageProfile, fs: ContainerFs, podIP: string): string | undefined {
  if (probe.httpGet) {
    const h = probe.httpGet as { path?: string; port?: number | string; host?: string; scheme?: string };
    const port = probePort(spec, h.port);
    const host = h.host || podIP;
    const path = h.path ?? "/";
    const url = `${(h.scheme ?? "HTTP").toLowerCase()}://${host}:${port}${path.startsWith("/") || path === "" ? path : `/${path}`}`;
    const app = listenerApp(profile, port);
    if (app !== "http" && app !== "wordpress") return `Get "${url}": dial tcp ${host}:${port}: connect: connection refused`;
    const res = httpGet(profile, fs, path || "/");
    return res.status >= 200 && res.status < 400 ? undefined : `HTTP probe failed with statuscode: ${res.status}`;
  }
  if (probe.tcpSocket) {
    const t = probe.tcpSocket as { port?: number | string; host?: string };
    const port = probePort(spec, t.port);
    return listenerApp(profile, port) !== undefined ? undefined : `dial tcp ${t.host || podIP}:${port}: connect: connection refused`;
  }
  if (probe.exec) {
    const cmd = ((probe.exec as { command?: string[] }).command ?? []).filter((x) => x !== "--");
    const bin = cmd[0]?.slice(cmd[0].lastIndexOf("/") + 1);
    const busybox = profile.userland.sh === "ash";
    if (bin === "cat" || bin === "ls" || bin === "stat") {
      if (isFileArg(fs, cmd[1])) return undefined;
      const f = cmd[1] ?? "";
      if (bin === "cat") return busybox ? `cat: can't open '${f}': No such file or directory\n` : `cat: ${f}: No such file or directory\n`;
      if (bin === "ls") return busybox ? `ls: ${f}: No such file or directory\n` : `ls: cannot access '${f}': No such file or directory\n`;
      return busybox ? `stat: can't stat '${f}': No such file or directory\n` : `stat: cannot statx '${f}': No such file or directory\n`;
    }
    if (bin === "test" && (cmd[1] === "-e" || cmd[1] === "-f")) return isFileArg(fs, cmd[2]) ? undefined : "";
    if (bin === "false") return "";
    return undefined;
  }
  return undefined;
}

/** A probe's port: a number, or the name of one of the container's ports. */
function probePort(spec: Container, p: unknown): number {
  if (typeof p === "number") return p;
  const named = (spec.ports ?? []).find((cp) => cp.name === p);
  return named?.containerPort ?? Number(p);
}

/** Whether an exec probe's path argument names a file (relative to the working directory). */
function isFileArg(fs: ContainerFs, arg: string | undefined): boolean {
  return arg ? fs.isFile(arg.startsWith("/") ? arg : `${fs.workingDir}/${arg}`) : false;
}
