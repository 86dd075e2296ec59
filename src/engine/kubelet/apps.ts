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

/** What the client sent beyond the path, for apps whose answer depends on it. */
interface HttpRequestInfo {
  /** The Host header ("10.96.0.20", "wordpress:80"). */
  host?: string;
  /** WordPress: whether its database (WORDPRESS_DB_HOST, user, password) accepts it. The caller
   * finds out through the data plane; the kubelet's probes assume yes. */
  dbAccepts?: boolean;
}

/** An HTTP GET answered by the container's web server. */
export function httpGet(profile: ImageProfile, fs: ContainerFs, path: string, req: HttpRequestInfo = {}): HttpResponse {
  const server = profile.key === "nginx" ? "nginx" : "Apache";
  const clean = path.split("?")[0] || "/";
  const docroot = profile.docroot ?? "/";
  // CoreDNS's health and ready endpoints.
  if (profile.key === "coredns") {
    if (clean === "/health" || clean === "/ready") return ok("OK", "text/plain; charset=utf-8");
    return { status: 404, reason: "Not Found", body: "404 page not found\n", headers: { "Content-Type": "text/plain; charset=utf-8" } };
  }
  // MetalLB's controller and speaker: the Prometheus endpoint their probes ask.
  if (profile.key === "metallb-controller" || profile.key === "metallb-speaker") {
    if (clean === "/metrics") return ok(METALLB_METRICS, "text/plain; version=0.0.4; charset=utf-8");
    return { status: 404, reason: "Not Found", body: "404 page not found\n", headers: { "Content-Type": "text/plain; charset=utf-8" } };
  }
  if (profile.key === "wordpress") return wordpressGet(clean, req);
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

const METALLB_METRICS = `# HELP metallb_k8s_client_config_loaded_bool 1 if the MetalLB configuration was successfully loaded at least once.
# TYPE metallb_k8s_client_config_loaded_bool gauge
metallb_k8s_client_config_loaded_bool 1
`;

// WordPress before its installation (the official image: Apache/2.4.62, PHP/8.2): every page
// redirects to the installer (wp_not_installed -> wp_redirect(wp_guess_url() . "/wp-admin/install.php"),
// built from the Host header), once wp-config's DB_HOST/DB_USER/DB_PASSWORD connect; without a
// database every page is dead_db()'s 500 "Error establishing a database connection".
const WP_HEADERS = { Server: "Apache/2.4.62 (Debian)", "X-Powered-By": "PHP/8.2.28" };

const WP_DB_ERROR = `<!DOCTYPE html>
<html lang="en-US">
<head>
	<meta http-equiv="Content-Type" content="text/html; charset=utf-8" />
	<meta name="viewport" content="width=device-width, initial-scale=1.0">
	<meta name='robots' content='max-image-preview:large, noindex, follow' />
	<title>Database Error</title>
</head>
<body id="error-page">
	<div class="wp-die-message"><h1>Error establishing a database connection</h1></div></body>
</html>
`;

const WP_INSTALL = `<!DOCTYPE html>
<html lang="en-US" xml:lang="en-US">
<head>
	<meta name="viewport" content="width=device-width" />
	<meta http-equiv="Content-Type" content="text/html; charset=utf-8" />
	<meta name="robots" content="noindex,nofollow" />
	<title>WordPress &rsaquo; Installation</title>
</head>
<body class="wp-core-ui language-chooser">
<p id="logo">WordPress</p>
<form id="setup" method="post" action="?step=1"><label class='screen-reader-text' for='language'>Select a default language</label>
</form>
</body>
</html>
`;

function wordpressGet(path: string, req: HttpRequestInfo): HttpResponse {
  if (req.dbAccepts === false) {
    return { status: 500, reason: "Internal Server Error", body: WP_DB_ERROR, headers: { ...WP_HEADERS, "Content-Type": "text/html; charset=utf-8" } };
  }
  if (path === "/wp-admin/install.php") return { status: 200, reason: "OK", body: WP_INSTALL, headers: { ...WP_HEADERS, "Content-Type": "text/html; charset=utf-8" } };
  return {
    status: 302,
    reason: "Found",
    body: "",
    headers: {
      ...WP_HEADERS,
      Expires: "Wed, 11 Jan 1984 05:00:00 GMT",
      "Cache-Control": "no-cache, must-revalidate, max-age=0, no-store, private",
      "X-Redirect-By": "WordPress",
      Location: `http://${req.host ?? "localhost"}/wp-admin/install.php`,
      "Content-Type": "text/html; charset=UTF-8",
    },
  };
}
