// What the process in a container answers: the HTTP servers serve files from their document
// root, mysql accepts connections, DNS servers answer on 53, anything else refuses. Readiness
// probes and the data plane both ask here, so a probe fails exactly when a request would.

import type { ContainerFs } from "./fs.js";
import type { AppKind, ImageProfile } from "./images.js";

export interface HttpResponse {
  status: number;
  reason: string;
  body: string;
  headers: Record<string, string>;
}

const NOT_FOUND_HTTPD = `<!DOCTYPE HTML PUBLIC "-//IETF//DTD HTML 2.0//EN">
<html><head>
<title>404 Not Found</title>
</head><body>
<h1>Not Found</h1>
<p>The requested URL was not found on this server.</p>
</body></html>
`;

const NOT_FOUND_NGINX = `<html>
<head><title>404 Not Found</title></head>
<body>
<center><h1>404 Not Found</h1></center>
<hr><center>nginx</center>
</body>
</html>
`;

const FORBIDDEN_NGINX = `<html>
<head><title>403 Forbidden</title></head>
<body>
<center><h1>403 Forbidden</h1></center>
<hr><center>nginx</center>
</body>
</html>
`;

/** The app listening on `port`/`protocol` in this container, or undefined (connection refused). */
export function listenerApp(profile: ImageProfile, port: number, protocol: "TCP" | "UDP" = "TCP"): AppKind | undefined {
  return profile.listens.find((l) => l.port === port && l.protocol === protocol)?.app;
}

/** An HTTP GET answered by the container's web server. */
export function httpGet(profile: ImageProfile, fs: ContainerFs, path: string): HttpResponse {
  const server = profile.key === "nginx" ? "nginx" : "Apache";
  const clean = path.split("?")[0] || "/";
  const docroot = profile.docroot ?? "/";
  // CoreDNS's health and ready endpoints.
  if (profile.key === "coredns") {
    if (clean === "/health" || clean === "/ready") return ok("OK", "text/plain; charset=utf-8");
    return { status: 404, reason: "Not Found", body: "404 page not found\n", headers: { "Content-Type": "text/plain; charset=utf-8" } };
  }
  let file = `${docroot}${clean}`;
  if (clean.endsWith("/")) {
    const index = `${file}index.html`;
    if (!fs.isFile(index)) {
      if (profile.key === "nginx") return { status: 403, reason: "Forbidden", body: FORBIDDEN_NGINX, headers: { Server: server, "Content-Type": "text/html" } };
      return { status: 404, reason: "Not Found", body: NOT_FOUND_HTTPD, headers: { Server: server, "Content-Type": "text/html; charset=iso-8859-1" } };
    }
    file = index;
  }
  if (!fs.isFile(file)) {
    const body = profile.key === "nginx" ? NOT_FOUND_NGINX : NOT_FOUND_HTTPD;
    return { status: 404, reason: "Not Found", body, headers: { Server: server, "Content-Type": "text/html" } };
  }
  return ok(fs.read(file), "text/html", server);
}

function ok(body: string, type: string, server?: string): HttpResponse {
  return { status: 200, reason: "OK", body, headers: { ...(server ? { Server: server } : {}), "Content-Type": type } };
}
