// Upgrades on the Node servers, in one place: every request that asks for one (WebSocket for
// the live channels and kubectl exec/attach, SPDY/3.1 from older kubectl) goes through the Hono
// app like any other. A route that takes the connection (acceptWebSocket) gets the socket after
// a 101; any other answer is written as it is, body included, and the connection closed: kubectl
// reads a refused upgrade's Status from the body, and an upgrade nobody answers would hang it.
import type { IncomingMessage, Server } from "node:http";
import type { Duplex } from "node:stream";
import { STATUS_CODES } from "node:http";
import type { Context } from "hono";
import { type WebSocket, WebSocketServer } from "ws";
import type { StreamUpgrade } from "../kubeapi/app.js";

const ACCEPT = Symbol("servicelab.accept");

interface Accept {
  protocol?: string;
  open(ws: WebSocket): void;
}

interface UpgradeEnv {
  incoming?: IncomingMessage;
  [ACCEPT]?: Accept;
}

/** The largest message a client may send on a WebSocket (stdin chunks, resize, pings). */
const MAX_PAYLOAD = 1 << 20;

/** In a route: takes this request's connection as a WebSocket (answered with `protocol`, if any). */
export function acceptWebSocket(c: Context, open: (ws: WebSocket) => void, protocol?: string): Response {
  const env = c.env as UpgradeEnv | undefined;
  if (!env?.incoming || (c.req.header("upgrade") ?? "").toLowerCase() !== "websocket") {
    return Response.json({ kind: "Status", apiVersion: "v1", metadata: {}, status: "Failure", message: "this is a WebSocket: connect with Upgrade: websocket", reason: "BadRequest", code: 426 }, { status: 426 });
  }
  env[ACCEPT] = { protocol, open };
  return new Response(null, { status: 200 });
}

/** kubectl exec/attach's streams on the Node server: ws sockets behind the session's interface. */
export const nodeStreamUpgrade: StreamUpgrade = (c, protocol, open) =>
  acceptWebSocket(
    c,
    (ws) => {
      const handlers = open({
        send: (data) => ws.send(data, { binary: true }),
        close: (code, reason) => ws.close(code, reason),
      });
      ws.on("message", (data, isBinary) => {
        const bytes = Buffer.isBuffer(data) ? data : Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data);
        handlers.onMessage(isBinary ? new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength) : bytes.toString("utf8"));
      });
      ws.on("close", () => handlers.onClose());
      ws.on("error", () => handlers.onClose());
    },
    protocol,
  );

/**
 * Serves `server`'s upgrades through `fetch` (the app); `env` joins each request's environment.
 * Returns the WebSocket server, whose clients the caller terminates on close.
 */
export function serveUpgrades(server: Server, fetch: (req: Request, env: object) => Response | Promise<Response>, env: object = {}): WebSocketServer {
  const chosen = new WeakMap<IncomingMessage, string | undefined>();
  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_PAYLOAD, handleProtocols: (_offered, req) => chosen.get(req) ?? false });
  server.on("upgrade", (incoming: IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on("error", () => socket.destroy());
    void answer(incoming, socket, head);
  });
  const answer = async (incoming: IncomingMessage, socket: Duplex, head: Buffer) => {
    const e: UpgradeEnv = { ...env, incoming };
    let res: Response;
    try {
      res = await fetch(requestOf(incoming), e);
    } catch {
      res = new Response(null, { status: 500 });
    }
    if (socket.destroyed) return;
    const accept = e[ACCEPT];
    if (accept && (incoming.headers.upgrade ?? "").toLowerCase() === "websocket") {
      chosen.set(incoming, accept.protocol);
      wss.handleUpgrade(incoming, socket, head, (ws) => accept.open(ws));
      return;
    }
    const body = Buffer.from(await res.arrayBuffer());
    const lines = [`HTTP/1.1 ${res.status} ${STATUS_CODES[res.status] ?? ""}`];
    res.headers.forEach((v, k) => {
      if (!/^(connection|content-length|transfer-encoding|upgrade|keep-alive)$/i.test(k)) lines.push(`${k}: ${v}`);
    });
    lines.push(`Content-Length: ${body.length}`, "Connection: close");
    socket.end(Buffer.concat([Buffer.from(lines.join("\r\n") + "\r\n\r\n"), body]));
  };
  return wss;
}

function requestOf(incoming: IncomingMessage): Request {
  const tls = (incoming.socket as { encrypted?: boolean }).encrypted === true;
  const url = new URL(incoming.url ?? "/", `${tls ? "https" : "http"}://${incoming.headers.host ?? "localhost"}`);
  const headers = new Headers();
  for (const [k, v] of Object.entries(incoming.headers)) {
    if (v === undefined) continue;
    for (const one of Array.isArray(v) ? v : [v]) headers.append(k, one);
  }
  return new Request(url, { method: incoming.method, headers });
}
