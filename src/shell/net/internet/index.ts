// The internet as a lab node sees it: nothing, except the few downloads the lab guide makes.
// The lab network's resolver knows only the hosts these come from (engine/dns/upstream.ts:
// addresses of 198.18.0.0/15, the range RFC 2544 sets aside for tests); a URL of such a host in
// the catalog answers with its bytes, any other path 404. The catalog is data.

import { METALLB_NATIVE_YAML, METALLB_README, METALLB_VERSION } from "./metallb-v0.14.8.js";
import { gzipStored, tar } from "./targz.js";

interface InternetObject {
  contentType: string;
  body: Uint8Array;
}

interface Entry {
  /** Whether this entry serves `host` + `path`. */
  matches(host: string, path: string): boolean;
  get(): InternetObject;
}

/** MetalLB v0.14.8's release commit time (2024-07-23T12:22:48Z): the archive's file times. */
const METALLB_MTIME = Date.UTC(2024, 6, 23, 12, 22, 48) / 1000;

let metallbArchive: Uint8Array | undefined;
function metallbTarGz(): Uint8Array {
  if (!metallbArchive) {
    const top = `metallb-${METALLB_VERSION}/`;
    const archive = tar(
      [
        { path: top },
        { path: `${top}README.md`, content: METALLB_README },
        { path: `${top}config/` },
        { path: `${top}config/manifests/` },
        { path: `${top}config/manifests/metallb-native.yaml`, content: METALLB_NATIVE_YAML },
      ],
      METALLB_MTIME,
    );
    metallbArchive = gzipStored(archive, 0);
  }
  return metallbArchive;
}

const CATALOG: Entry[] = [
  {
    // The guide's mirror (https://laoma.cloud/.../metallb-0.14.8.tar.gz), whichever known host.
    matches: (_host, path) => path.split("?")[0].endsWith(`/metallb-${METALLB_VERSION}.tar.gz`),
    get: () => ({ contentType: "application/octet-stream", body: metallbTarGz() }),
  },
  {
    // GitHub's archive of the tag.
    matches: (host, path) => host === "github.com" && /^\/metallb\/metallb\/archive\/(refs\/tags\/)?v0\.14\.8\.tar\.gz$/.test(path),
    get: () => ({ contentType: "application/x-gzip", body: metallbTarGz() }),
  },
  {
    // The manifest MetalLB's installation page applies.
    matches: (host, path) => host === "raw.githubusercontent.com" && path === `/metallb/metallb/v${METALLB_VERSION}/config/manifests/metallb-native.yaml`,
    get: () => ({ contentType: "text/plain; charset=utf-8", body: new TextEncoder().encode(METALLB_NATIVE_YAML) }),
  },
];

/** What the internet serves at host + path, or undefined (404). */
export function internetGet(host: string, path: string): InternetObject | undefined {
  const e = CATALOG.find((x) => x.matches(host.toLowerCase(), path));
  return e?.get();
}
