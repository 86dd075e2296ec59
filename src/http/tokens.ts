// Cluster and share tokens are HMACs of the cluster id under the installation's secret: they
// can be checked without a lookup, reach only their cluster, and need no storage of their own.
// Tenant API keys are random and stored only as a SHA-256 hash (src/db/platform.ts).

const enc = new TextEncoder();
type Key = Awaited<ReturnType<typeof crypto.subtle.importKey>>;
const keys = new Map<string, Promise<Key>>();

function hmacKey(secret: string): Promise<Key> {
  let k = keys.get(secret);
  if (!k) {
    k = crypto.subtle.importKey("raw", enc.encode(secret), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
    keys.set(secret, k);
  }
  return k;
}

function b64url(bytes: Uint8Array): string {
  let s = "";
  for (const b of bytes) s += String.fromCharCode(b);
  return btoa(s).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

async function mac(secret: string, purpose: string, id: string): Promise<string> {
  const sig = await crypto.subtle.sign("HMAC", await hmacKey(secret), enc.encode(`${purpose}:${id}`));
  return b64url(new Uint8Array(sig)).slice(0, 32);
}

/** cluster and share: a cluster id; teacher and join: a classroom id (src/http/routes/classrooms.ts). */
type TokenKind = "cluster" | "share" | "teacher" | "join";
const PREFIX: Record<TokenKind, string> = { cluster: "slc_", share: "sls_", teacher: "slt_", join: "slj_" };

// Verified tokens, so a busy cluster pays for its HMAC once (WebCrypto costs ~50 µs a call, and
// ~0.5 ms of the serving thread when a class's first commands verify 200 at once). A token this
// process minted is known good without verifying it.
const verified = new Map<string, string>();

function remember(secret: string, token: string, id: string): void {
  if (verified.size >= 100_000) verified.clear();
  verified.set(secret + " " + token, id);
}

export async function mintToken(secret: string, kind: TokenKind, id: string): Promise<string> {
  const token = `${PREFIX[kind]}${id}.${await mac(secret, kind, id)}`;
  remember(secret, token, id);
  return token;
}

/** The cluster id a token of `kind` grants, or undefined when it is not one or is forged. */
export async function verifyToken(secret: string, kind: TokenKind, token: string): Promise<string | undefined> {
  if (!token.startsWith(PREFIX[kind])) return undefined;
  const memo = secret + " " + token;
  const hit = verified.get(memo);
  if (hit !== undefined) return hit;
  const id = await verifyUncached(secret, kind, token);
  if (id !== undefined) remember(secret, token, id);
  return id;
}

async function verifyUncached(secret: string, kind: TokenKind, token: string): Promise<string | undefined> {
  const dot = token.lastIndexOf(".");
  if (dot < 0) return undefined;
  const id = token.slice(PREFIX[kind].length, dot);
  if (!/^[a-z0-9]{1,40}$/.test(id)) return undefined;
  const want = await mac(secret, kind, id);
  return timingSafeEqual(want, token.slice(dot + 1)) ? id : undefined;
}

export function timingSafeEqual(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let d = 0;
  for (let i = 0; i < a.length; i++) d |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return d === 0;
}
