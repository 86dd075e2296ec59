// The resolver as the terminal's tools reach it: the files of the filesystem the command runs in
// (the node's or the container's /etc/hosts and /etc/resolv.conf), its source address, and the
// engine's one resolver (engine/dns/resolver.ts).
import { type AddrInfo, getaddrinfo, type ResolverFiles } from "../../engine/dns/resolver.js";
import { NODE_RESOLV_CONF } from "../../engine/kubelet/kubelet.js";
import type { Source } from "../../engine/net/packet.js";
import { isDottedQuad } from "../../engine/util/ip.js";
import type { NodeCommandContext } from "../node-commands.js";
import { sourceOf, type Where } from "./http.js";

export function where(ctx: NodeCommandContext): Where {
  return { cluster: ctx.cluster, node: ctx.node, pod: ctx.pod?.pod };
}

export function sourceOfCtx(ctx: NodeCommandContext): Source {
  return sourceOf(where(ctx));
}

async function readOr(ctx: NodeCommandContext, path: string, fallback: string): Promise<string> {
  try {
    return await ctx.readFile(path);
  } catch {
    return fallback;
  }
}

export async function resolverFiles(ctx: NodeCommandContext): Promise<ResolverFiles> {
  return { hosts: await readOr(ctx, "/etc/hosts", ""), resolvConf: await readOr(ctx, "/etc/resolv.conf", NODE_RESOLV_CONF) };
}

/** getaddrinfo from where the command runs (ping, curl, wget, getent, explain). */
export async function resolveName(ctx: NodeCommandContext, host: string): Promise<AddrInfo> {
  // A literal needs no files (the 100-request curl loop stays cheap).
  if (isDottedQuad(host)) return { ok: true, addresses: [host], canonical: host, from: "files" };
  return getaddrinfo(ctx.cluster, sourceOfCtx(ctx), host, await resolverFiles(ctx));
}

/** The first address of `host`, or undefined when it does not resolve. */
export async function resolveHost(ctx: NodeCommandContext, host: string): Promise<string | undefined> {
  const r = await resolveName(ctx, host);
  return r.ok ? r.addresses[0] : undefined;
}
