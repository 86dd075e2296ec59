// JSON in and out of the API: answers that carry every header an answer needs from the start,
// and request bodies read within the tenant's size limit.
import type { Context } from "hono";
import { byteLength } from "../runtime/core.js";
import { bad, tooLarge } from "./errors.js";

/**
 * The headers of every answer: CORS for any origin (the UI and API clients may live elsewhere)
 * and the security headers hono's secureHeaders() sets, with our content security policy.
 * Static, so the JSON answers carry them from construction as a plain object: the Node adapter
 * then writes them as they are, where setting them on a finished Response made it build a
 * Headers object and convert it back, ~0.1 ms of every request. Answers made elsewhere (hono's
 * own, the kube API's) get them added afterwards (see src/http/middleware.ts).
 */
export const RESPONSE_HEADERS: Readonly<Record<string, string>> = {
  "access-control-allow-origin": "*",
  "access-control-expose-headers": "Retry-After",
  "content-security-policy": "default-src 'self'; connect-src 'self' ws: wss:; style-src 'self' 'unsafe-inline'; script-src 'self' 'unsafe-inline'",
  "cross-origin-opener-policy": "same-origin",
  "cross-origin-resource-policy": "cross-origin",
  "origin-agent-cluster": "?1",
  "referrer-policy": "no-referrer",
  "strict-transport-security": "max-age=15552000; includeSubDomains",
  "x-content-type-options": "nosniff",
  "x-dns-prefetch-control": "off",
  "x-download-options": "noopen",
  "x-frame-options": "SAMEORIGIN",
  "x-permitted-cross-domain-policies": "none",
  "x-xss-protection": "0",
};
const JSON_HEADERS: Readonly<Record<string, string>> = { ...RESPONSE_HEADERS, "content-type": "application/json" };
/** Answers built with RESPONSE_HEADERS already in them. */
const withHeaders = new WeakSet<Response>();

/** Whether `r` was built with every header of RESPONSE_HEADERS. */
export const hasHeaders = (r: Response): boolean => withHeaders.has(r);

/** An answer with every header of RESPONSE_HEADERS, and `extra`. */
export function respond(body: BodyInit | null, status: number, extra?: Record<string, string>): Response {
  const r = new Response(body, { status, headers: extra ? { ...RESPONSE_HEADERS, ...extra } : RESPONSE_HEADERS });
  withHeaders.add(r);
  return r;
}

/** A JSON answer with every header of RESPONSE_HEADERS. */
export function json(body: unknown, status = 200, extra?: Record<string, string>): Response {
  const r = new Response(JSON.stringify(body), { status, headers: extra ? { ...JSON_HEADERS, ...extra } : JSON_HEADERS });
  withHeaders.add(r);
  return r;
}

/** The request's body as a JSON object (empty: {}), refused past `max` bytes. */
export async function readJson(c: Context, max: number): Promise<Record<string, unknown>> {
  const text = await c.req.text();
  const n = byteLength(text);
  if (n > max) throw tooLarge(`limit requestBytes exceeded: the body has ${n} bytes, at most ${max} are allowed`);
  if (!text.trim()) return {};
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (e) {
    throw bad(`malformed JSON body: ${(e as Error).message}`);
  }
  if (!v || typeof v !== "object" || Array.isArray(v)) throw bad("the request body must be a JSON object");
  return v as Record<string, unknown>;
}
