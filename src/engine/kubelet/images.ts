// Image behaviour as data: what a container of each image has on disk, which environment its
// image sets, what it listens on, which shell it has, how it starts and how it stops. Anything
// not listed runs as a generic long-running process with a shell and no listener.

interface ImageRef {
  /** As written in the pod spec. */
  text: string;
  /** Registry host ("docker.io" when none is written). */
  registry: string;
  /** Repository path without registry ("library/httpd"). */
  repository: string;
  /** The last path element ("httpd"). */
  name: string;
  tag: string;
}

export function parseImage(text: string): ImageRef {
  let rest = text;
  let digest = "";
  const at = rest.indexOf("@");
  if (at >= 0) {
    digest = rest.slice(at + 1);
    rest = rest.slice(0, at);
  }
  let tag = "";
  const slash = rest.lastIndexOf("/");
  const colon = rest.lastIndexOf(":");
  if (colon > slash) {
    tag = rest.slice(colon + 1);
    rest = rest.slice(0, colon);
  }
  let registry = "docker.io";
  const first = rest.split("/")[0];
  if (rest.includes("/") && (first.includes(".") || first.includes(":") || first === "localhost")) {
    registry = first;
    rest = rest.slice(first.length + 1);
  }
  const repository = registry === "docker.io" && !rest.includes("/") ? `library/${rest}` : rest;
  const name = rest.split("/").pop() ?? rest;
  return { text, registry, repository, name, tag: tag || (digest ? "" : "latest") };
}

export type AppKind = "http" | "mysql" | "dns" | "wordpress" | "none";

interface Listener {
  port: number;
  protocol: "TCP" | "UDP";
  app: AppKind;
}

/** How the image's default command behaves when the container starts. */
type StartBehaviour =
  /** A server: runs until stopped. */
  | "serve"
  /** An interactive shell: exits at once unless stdin is attached (kubectl run -it). */
  | "shell"
  /** Runs until stopped, listening on nothing. */
  | "idle";

/**
 * What an image's userland puts on PATH besides its app, for a shell in the container: which
 * program /bin/sh is, what `id` says of root, which of the terminal's network tools it has, and
 * which of the interpreter's everyday commands it lacks.
 */
interface Userland {
  /** BusyBox's ash (busybox, alpine), Debian's dash (Debian-based images) or bash (Oracle Linux). */
  sh: "ash" | "dash" | "bash";
  /** `id` as root, with the groups of the image's /etc/group. */
  id: string;
  /** The terminal's network commands it has (curl, wget, ping, nslookup, ip...); undefined: all. */
  tools?: readonly string[];
  /** Commands the terminal's interpreter provides that this userland does not have. */
  lacks: readonly string[];
  /** GNU coreutils' version, where they are the userland's ls, cat, wc... (undefined: BusyBox's applets). */
  coreutils?: "8.32" | "9.1";
}

/** Never in an image here: interpreters and tools of the terminal's library, not of a Linux userland. */
const NOWHERE = ["python", "python3", "node", "js-exec", "sqlite3", "yq", "xan", "html-to-markdown", "rg", "jq", "tree"];

/** Debian bookworm(-slim): coreutils, findutils, grep, sed, mawk, tar, gzip, diffutils; no file, column, rev, strings. */
const DEBIAN: Userland = { sh: "dash", id: "uid=0(root) gid=0(root) groups=0(root)\n", tools: ["explain"], lacks: [...NOWHERE, "file", "column", "rev", "strings"], coreutils: "9.1" };

/** BusyBox's applets (busybox and alpine): wget, ping, nslookup and ip among them, no bash or curl. */
const BUSYBOX: Userland = {
  sh: "ash",
  id: "uid=0(root) gid=0(root) groups=0(root),10(wheel)\n",
  tools: ["wget", "ping", "nslookup", "ip", "explain"],
  lacks: [...NOWHERE, "bash", "file", "column", "comm", "join", "printenv", "split", "fgrep"],
};

export interface ImageProfile {
  key: string;
  shell: "bash" | "sh" | null;
  userland: Userland;
  workingDir: string;
  env: Record<string, string>;
  files: Record<string, string>;
  listens: Listener[];
  /** Where the HTTP server serves files from, for "http" listeners. */
  docroot?: string;
  start: StartBehaviour;
  /** Seconds the process needs to exit after SIGTERM (PID 1 shells ignore it: the grace period runs out). */
  stopSeconds: number;
  /** Compressed size reported in the kubelet's "Successfully pulled" event. */
  sizeBytes: number;
  /** Environment the entrypoint insists on: the container exits 1 with `message` without one of them. */
  requiredEnv?: { anyOf: string[]; message: string[] };
  /** Lines the process writes to stdout/stderr at start (kubectl logs). `{ip}` is the pod IP. */
  startLogs?: string[];
}

const STD_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

const HTTPD_INDEX = "<html><body><h1>It works!</h1></body></html>\n";

const NGINX_INDEX = `<!DOCTYPE html>
<html>
<head>
<title>Welcome to nginx!</title>
<style>
html { color-scheme: light dark; }
body { width: 35em; margin: 0 auto;
font-family: Tahoma, Verdana, Arial, sans-serif; }
</style>
</head>
<body>
<h1>Welcome to nginx!</h1>
<p>If you see this page, the nginx web server is successfully installed and
working. Further configuration is required.</p>

<p>For online documentation and support please refer to
<a href="http://nginx.org/">nginx.org</a>.<br/>
Commercial support is available at
<a href="http://nginx.com/">nginx.com</a>.</p>

<p><em>Thank you for using nginx.</em></p>
</body>
</html>
`;

const NGINX_50X = `<!DOCTYPE html>
<html>
<head>
<title>Error</title>
<style>
html { color-scheme: light dark; }
body { width: 35em; margin: 0 auto;
font-family: Tahoma, Verdana, Arial, sans-serif; }
</style>
</head>
<body>
<h1>An error occurred.</h1>
<p>Sorry, the page you are looking for is currently unavailable.<br/>
Please try again later.</p>
<p>If you are the system administrator of this resource then please check
the <a href="http://nginx.com/support.html">error log</a> for details.</p>
<p><em>Faithfully yours, nginx.</em></p>
</body>
</html>
`;

const NGINX_DEFAULT_CONF = `server {
    listen       80;
    listen  [::]:80;
    server_name  localhost;

    #access_log  /var/log/nginx/host.access.log  main;

    location / {
        root   /usr/share/nginx/html;
        index  index.html index.htm;
    }

    #error_page  404              /404.html;

    # redirect server error pages to the static page /50x.html
    #
    error_page   500 502 503 504  /50x.html;
    location = /50x.html {
        root   /usr/share/nginx/html;
    }
}
`;

function httpd(tag: string): ImageProfile {
  const version = /^\d+\.\d+\.\d+/.exec(tag)?.[0] ?? "2.4.65";
  return {
    key: "httpd",
    shell: tag.includes("alpine") ? "sh" : "bash",
    userland: tag.includes("alpine") ? BUSYBOX : DEBIAN,
    workingDir: "/usr/local/apache2",
    env: { PATH: `/usr/local/apache2/bin:${STD_PATH}`, HTTPD_PREFIX: "/usr/local/apache2", HTTPD_VERSION: version },
    files: {
      "/usr/local/apache2/htdocs/index.html": HTTPD_INDEX,
      "/usr/local/apache2/conf/httpd.conf": "ServerRoot \"/usr/local/apache2\"\nListen 80\nDocumentRoot \"/usr/local/apache2/htdocs\"\n",
    },
    listens: [{ port: 80, protocol: "TCP", app: "http" }],
    docroot: "/usr/local/apache2/htdocs",
    start: "serve",
    stopSeconds: 1,
    sizeBytes: 58_012_345,
    startLogs: [
      "AH00558: httpd: Could not reliably determine the server's fully qualified domain name, using {ip}. Set the 'ServerName' directive globally to suppress this message",
      "AH00558: httpd: Could not reliably determine the server's fully qualified domain name, using {ip}. Set the 'ServerName' directive globally to suppress this message",
      `[{apachetime}] [mpm_event:notice] [pid 1:tid 1] AH00489: Apache/${version} (Unix) configured -- resuming normal operations`,
      "[{apachetime}] [core:notice] [pid 1:tid 1] AH00094: Command line: 'httpd -D FOREGROUND'",
    ],
  };
}

function nginx(tag: string): ImageProfile {
  const version = /^\d+\.\d+\.\d+/.exec(tag)?.[0] ?? (/^\d+\.\d+/.exec(tag) ? `${/^\d+\.\d+/.exec(tag)![0]}.0` : "1.29.3");
  return {
    key: "nginx",
    shell: tag.includes("alpine") ? "sh" : "bash",
    // The Debian image installs curl (with gettext-base) for its entrypoint; no wget, ping or ip.
    userland: tag.includes("alpine") ? { ...BUSYBOX, tools: [...BUSYBOX.tools!, "curl"] } : { ...DEBIAN, tools: ["curl", "explain"] },
    workingDir: "/",
    env: { PATH: STD_PATH, NGINX_VERSION: version, NJS_VERSION: "0.9.4", NJS_RELEASE: "1~bookworm", PKG_RELEASE: "1~bookworm", DYNPKG_RELEASE: "1~bookworm" },
    files: {
      "/usr/share/nginx/html/index.html": NGINX_INDEX,
      "/usr/share/nginx/html/50x.html": NGINX_50X,
      "/etc/nginx/conf.d/default.conf": NGINX_DEFAULT_CONF,
    },
    listens: [{ port: 80, protocol: "TCP", app: "http" }],
    docroot: "/usr/share/nginx/html",
    start: "serve",
    stopSeconds: 0,
    sizeBytes: 72_195_292,
    startLogs: [
      "/docker-entrypoint.sh: /docker-entrypoint.d/ is not empty, will attempt to perform configuration",
      "/docker-entrypoint.sh: Looking for shell scripts in /docker-entrypoint.d/",
      "/docker-entrypoint.sh: Launching /docker-entrypoint.d/10-listen-on-ipv6-by-default.sh",
      "10-listen-on-ipv6-by-default.sh: info: Getting the checksum of /etc/nginx/conf.d/default.conf",
      "10-listen-on-ipv6-by-default.sh: info: Enabled listen on IPv6 in /etc/nginx/conf.d/default.conf",
      "/docker-entrypoint.sh: Sourcing /docker-entrypoint.d/15-local-resolvers.envsh",
      "/docker-entrypoint.sh: Launching /docker-entrypoint.d/20-envsubst-on-templates.sh",
      "/docker-entrypoint.sh: Launching /docker-entrypoint.d/30-tune-worker-processes.sh",
      "/docker-entrypoint.sh: Configuration complete; ready for start up",
      `{nginxtime} [notice] 1#1: using the "epoll" event method`,
      `{nginxtime} [notice] 1#1: nginx/${version}`,
      "{nginxtime} [notice] 1#1: start worker processes",
    ],
  };
}

/** Distroless and scratch-based images: no shell, nothing to run. */
const NO_USERLAND: Userland = { sh: "ash", id: "", tools: [], lacks: [] };

/** A base image whose default command is `sh`: it exits at once unless stdin is attached. */
function shellImage(key: string, sizeBytes: number): ImageProfile {
  return { key, shell: "sh", userland: BUSYBOX, workingDir: "/", env: { PATH: STD_PATH }, files: {}, listens: [], start: "shell", stopSeconds: Infinity, sizeBytes };
}

const PROFILES: Record<string, (tag: string) => ImageProfile> = {
  httpd,
  nginx,
  busybox: () => shellImage("busybox", 2_156_465),
  alpine: () => shellImage("alpine", 3_642_880),
  mysql: (tag) => ({
    key: "mysql",
    shell: "bash",
    // Oracle Linux 9 slim: /bin/sh is bash; no curl, wget or ping.
    userland: { sh: "bash", id: "uid=0(root) gid=0(root) groups=0(root)\n", tools: ["explain"], lacks: [...NOWHERE, "file", "column", "strings"], coreutils: "8.32" },
    workingDir: "/",
    env: { PATH: STD_PATH, GOSU_VERSION: "1.17", MYSQL_MAJOR: /^\d+\.\d+/.exec(tag)?.[0] ?? "innovation", MYSQL_VERSION: /^\d+\.\d+\.\d+/.exec(tag)?.[0] ?? "9.1.0-1.el9", MYSQL_SHELL_VERSION: "9.1.0-1.el9" },
    files: {},
    listens: [
      { port: 3306, protocol: "TCP", app: "mysql" },
      { port: 33060, protocol: "TCP", app: "mysql" },
    ],
    start: "serve",
    stopSeconds: 2,
    sizeBytes: 172_403_411,
    requiredEnv: {
      anyOf: ["MYSQL_ROOT_PASSWORD", "MYSQL_ALLOW_EMPTY_PASSWORD", "MYSQL_RANDOM_ROOT_PASSWORD"],
      message: [
        "{mysqltime} [Note] [Entrypoint]: Entrypoint script for MySQL Server 9.1.0-1.el9 started.",
        "{mysqltime} [ERROR] [Entrypoint]: Database is uninitialized and password option is not specified",
        "    You need to specify one of the following as an environment variable:",
        "    - MYSQL_ROOT_PASSWORD",
        "    - MYSQL_ALLOW_EMPTY_PASSWORD",
        "    - MYSQL_RANDOM_ROOT_PASSWORD",
      ],
    },
    startLogs: [
      "{mysqltime} [Note] [Entrypoint]: Entrypoint script for MySQL Server 9.1.0-1.el9 started.",
      "{mysqltime} [Note] [Entrypoint]: Switching to dedicated user 'mysql'",
      "{mysqltime} [Note] [Entrypoint]: Database files initialized",
      "{mysqltime} [Note] [Entrypoint]: MySQL init process done. Ready for start up.",
    ],
  }),
  wordpress: () => ({
    key: "wordpress",
    shell: "bash",
    // php's Debian images keep curl.
    userland: { ...DEBIAN, tools: ["curl", "explain"] },
    workingDir: "/var/www/html",
    env: { PATH: STD_PATH, PHP_INI_DIR: "/usr/local/etc/php", APACHE_CONFDIR: "/etc/apache2", APACHE_ENVVARS: "/etc/apache2/envvars", PHP_VERSION: "8.2.28" },
    files: { "/var/www/html/index.php": "<?php\ndefine( 'WP_USE_THEMES', true );\nrequire __DIR__ . '/wp-blog-header.php';\n" },
    listens: [{ port: 80, protocol: "TCP", app: "wordpress" }],
    docroot: "/var/www/html",
    start: "serve",
    stopSeconds: 1,
    sizeBytes: 253_431_918,
    startLogs: [
      "WordPress not found in /var/www/html - copying now...",
      "Complete! WordPress has been successfully copied to /var/www/html",
      "AH00558: apache2: Could not reliably determine the server's fully qualified domain name, using {ip}. Set the 'ServerName' directive globally to suppress this message",
      "AH00558: apache2: Could not reliably determine the server's fully qualified domain name, using {ip}. Set the 'ServerName' directive globally to suppress this message",
      "[{apachetime}] [mpm_prefork:notice] [pid 1:tid 1] AH00163: Apache/2.4.62 (Debian) PHP/8.2.28 configured -- resuming normal operations",
      "[{apachetime}] [core:notice] [pid 1:tid 1] AH00094: Command line: 'apache2 -D FOREGROUND'",
    ],
  }),
  coredns: () => ({
    key: "coredns",
    shell: null,
    userland: NO_USERLAND,
    workingDir: "/",
    env: { PATH: STD_PATH },
    files: {},
    listens: [
      { port: 53, protocol: "UDP", app: "dns" },
      { port: 53, protocol: "TCP", app: "dns" },
      { port: 8080, protocol: "TCP", app: "http" },
      { port: 8181, protocol: "TCP", app: "http" },
      { port: 9153, protocol: "TCP", app: "http" },
    ],
    start: "serve",
    stopSeconds: 5,
    sizeBytes: 20_939_036,
    startLogs: [".:53", "[INFO] plugin/reload: Running configuration SHA512 = 1b226df79860026c6a52e67daa10d7f0d57ec5b023288ec00c5e05f93523c894564e15b91770d3a07ae1cfbe861d15b37d4a0027e69c546ab112970993a3b03b", "CoreDNS-1.12.0", "linux/amd64, go1.23.3, 51e11f1"],
  }),
};

/** MetalLB's images (quay.io/metallb/controller, .../speaker): distroless, Prometheus metrics on
 * --port=7472 (the probes' "monitoring" port); the controller's webhook on 9443, the speaker's
 * memberlist on 7946. */
function metallb(component: "controller" | "speaker"): ImageProfile {
  const listens: Listener[] = [{ port: 7472, protocol: "TCP", app: "http" }];
  if (component === "controller") listens.push({ port: 9443, protocol: "TCP", app: "none" });
  else listens.push({ port: 7946, protocol: "TCP", app: "none" }, { port: 7946, protocol: "UDP", app: "none" });
  return { key: `metallb-${component}`, shell: null, userland: NO_USERLAND, workingDir: "/", env: { PATH: STD_PATH }, files: {}, listens, start: "serve", stopSeconds: 1, sizeBytes: component === "controller" ? 28_417_231 : 51_287_104 };
}

/** Images without a shell or a listener of interest: system images. */
const SYSTEM = /^(pause|etcd|kube-apiserver|kube-controller-manager|kube-scheduler|kube-proxy|controller|speaker)$/;

/** What an image runs and serves (immutable: the kubelet remembers one per image reference, shared by its containers). */
export function imageProfile(image: string): ImageProfile {
  const ref = parseImage(image);
  const make = PROFILES[ref.name];
  if (make) return make(ref.tag);
  if (/(^|\/)metallb\/(controller|speaker)$/.test(ref.repository)) return metallb(ref.name as "controller" | "speaker");
  if (SYSTEM.test(ref.name)) {
    return { key: ref.name, shell: null, userland: NO_USERLAND, workingDir: "/", env: { PATH: STD_PATH }, files: {}, listens: [], start: "idle", stopSeconds: 1, sizeBytes: 30_000_000 };
  }
  // An image not described here: a shell and every tool, rather than take away what it may have.
  return { key: "generic", shell: "sh", userland: { sh: "ash", id: "uid=0(root) gid=0(root) groups=0(root)\n", lacks: NOWHERE }, workingDir: "/", env: { PATH: STD_PATH }, files: {}, listens: [], start: "idle", stopSeconds: Infinity, sizeBytes: 10_000_000 };
}

/** The digest the runtime reports in imageID: stable per image reference. */
export function imageDigestInput(ref: ImageRef): string {
  return `${ref.registry}/${ref.repository}:${ref.tag}`;
}
