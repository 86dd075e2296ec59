// The web UI as the Node server serves it: the files vite built into web/dist. Hashed files
// under /assets/ are cached for good; the page itself (index.html) is answered by the app for
// the routes the single-page app owns. Workers serve the same files as static assets.
import { readFileSync, statSync } from "node:fs";
import { join, normalize, sep } from "node:path";
import type { Context } from "hono";

const TYPES: Record<string, string> = {
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".woff2": "font/woff2",
  ".json": "application/json",
  ".txt": "text/plain; charset=utf-8",
};

interface WebAssets {
  /** A built file for this request, or undefined to let the app answer. */
  asset(req: Request): Response | undefined;
  page(c: Context): Response;
}

export function webAssets(dir: string): WebAssets {
  const cache = new Map<string, { body: Uint8Array; type: string } | null>();
  const read = (path: string) => {
    if (cache.has(path)) return cache.get(path)!;
    const file = normalize(join(dir, path));
    let hit: { body: Uint8Array; type: string } | null = null;
    try {
      if (file.startsWith(dir + sep) && statSync(file).isFile()) hit = { body: readFileSync(file), type: TYPES[file.slice(file.lastIndexOf("."))] ?? "application/octet-stream" };
    } catch {
      hit = null;
    }
    // Only files are remembered: a miss is not, so made-up paths cannot grow the cache.
    if (hit) cache.set(path, hit);
    return hit;
  };
  return {
    asset(req) {
      if (req.method !== "GET" && req.method !== "HEAD") return undefined;
      const path = new URL(req.url).pathname;
      if (!path.startsWith("/assets/") && path !== "/favicon.svg") return undefined;
      const f = read(decodeURIComponent(path));
      if (!f) return new Response("not found\n", { status: 404, headers: { "content-type": "text/plain" } });
      return new Response(f.body, { headers: { "content-type": f.type, "cache-control": path.startsWith("/assets/") ? "public, max-age=31536000, immutable" : "public, max-age=3600", "x-content-type-options": "nosniff" } });
    },
    page(c) {
      const f = read("/index.html");
      if (!f) return c.text("The web UI is not built: run `npm run build:web` (npm start builds it).\n", 503);
      return c.html(new TextDecoder().decode(f.body));
    },
  };
}
