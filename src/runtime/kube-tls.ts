// The Node server's Kubernetes API port speaks TLS, as kube-apiserver's 6443 does: kubectl (and
// client-go generally) sends a kubeconfig's bearer token only over TLS. As kubeadm does, the
// installation has a CA of its own, made once (RSA 2048, 10 years) and kept in the `settings`
// table beside the token secret; the serving certificate is signed by it (1 year, names below),
// kept there too and made again when the names it must cover change or it nears its expiry. The
// kubeconfig carries the CA as certificate-authority-data, so clients verify the server with no
// flags.
//
// Node's crypto makes the keys; node-forge (no dependencies of its own) writes the X.509
// certificates, which node:crypto cannot.
import { generateKeyPair, X509Certificate } from "node:crypto";
import { hostname as osHostname, networkInterfaces } from "node:os";
import { isIP } from "node:net";
import forge, { type pki } from "node-forge";

export interface KubeTls {
  /** The CA's certificate (PEM): the kubeconfig's certificate-authority-data. */
  caCert: string;
  /** The serving certificate (PEM) and its key, for https.createServer. */
  cert: string;
  key: string;
  /** The names (DNS and IP) the serving certificate covers. */
  names: string[];
}

/** Where the installation keeps its settings (SqlPlatform's setting / putSetting). */
export interface SettingsStore {
  setting(key: string, make: () => Promise<string>): Promise<string>;
  putSetting(key: string, value: string): Promise<void>;
}

const CA_KEY = "kube-ca";
const SERVING_KEY = "kube-serving";
const DAY = 86_400_000;
/** The serving certificate is made again when it has less than this long left. */
const RENEW_BEFORE_MS = 30 * DAY;

/** The names kube-apiserver's certificate has (kubeadm's list), plus where this server is reached. */
export function servingNames(host: string | undefined): string[] {
  const names = ["localhost", "kubernetes", "kubernetes.default", "kubernetes.default.svc", "kubernetes.default.svc.cluster.local", "127.0.0.1", "::1"];
  const add = (n: string) => {
    const v = n.replace(/^\[|\]$/g, "").toLowerCase();
    if (v && !names.includes(v)) names.push(v);
  };
  if (host === undefined || host === "" || host === "0.0.0.0" || host === "::") {
    // Listening on every address: the certificate covers this machine's name and addresses.
    add(osHostname());
    for (const list of Object.values(networkInterfaces())) for (const a of list ?? []) if (!a.address.includes("%")) add(a.address);
  } else {
    add(host);
  }
  return names;
}

async function rsaKey(): Promise<string> {
  return new Promise((res, rej) =>
    generateKeyPair("rsa", { modulusLength: 2048, publicKeyEncoding: { type: "spki", format: "pem" }, privateKeyEncoding: { type: "pkcs1", format: "pem" } }, (err, _pub, priv) =>
      err ? rej(err) : res(priv),
    ),
  );
}

/** A positive serial number of 16 random bytes (Go rejects negative ones). */
function serial(): string {
  const b = forge.util.bytesToHex(forge.random.getBytesSync(16));
  return (((parseInt(b[0], 16) & 0x7) | 0x1).toString(16)) + b.slice(1);
}

function certificate(keyPem: string, subjectCN: string, days: number, now: number): { cert: pki.Certificate; key: pki.PrivateKey } {
  const key = forge.pki.privateKeyFromPem(keyPem);
  const cert = forge.pki.createCertificate();
  cert.publicKey = forge.pki.setRsaPublicKey(key.n, key.e);
  cert.serialNumber = serial();
  // A little before now, as kubeadm does, so a client whose clock is slightly behind accepts it.
  cert.validity.notBefore = new Date(now - 5 * 60_000);
  cert.validity.notAfter = new Date(now + days * DAY);
  cert.setSubject([{ name: "commonName", value: subjectCN }]);
  return { cert, key };
}

/** PEM with \n line ends (forge writes \r\n), as openssl and Go write it. */
const pem = (cert: pki.Certificate) => forge.pki.certificateToPem(cert).replace(/\r\n/g, "\n");

/** The installation's CA: `{cert, key}` PEMs. */
export async function makeCa(now = Date.now()): Promise<{ cert: string; key: string }> {
  const keyPem = await rsaKey();
  const { cert, key } = certificate(keyPem, "servicelab-ca", 3650, now);
  cert.setIssuer(cert.subject.attributes);
  cert.setExtensions([
    { name: "basicConstraints", cA: true, critical: true },
    { name: "keyUsage", keyCertSign: true, cRLSign: true, digitalSignature: true, keyEncipherment: true, critical: true },
    { name: "subjectKeyIdentifier" },
  ]);
  cert.sign(key, forge.md.sha256.create());
  return { cert: pem(cert), key: keyPem };
}

/** A serving certificate for `names`, signed by the CA. */
export async function makeServing(ca: { cert: string; key: string }, names: string[], now = Date.now()): Promise<{ cert: string; key: string }> {
  const keyPem = await rsaKey();
  const caCert = forge.pki.certificateFromPem(ca.cert);
  const caKey = forge.pki.privateKeyFromPem(ca.key);
  const { cert } = certificate(keyPem, "kube-apiserver", 365, now);
  cert.setIssuer(caCert.subject.attributes);
  cert.setExtensions([
    { name: "basicConstraints", cA: false, critical: true },
    { name: "keyUsage", digitalSignature: true, keyEncipherment: true, critical: true },
    { name: "extKeyUsage", serverAuth: true },
    { name: "subjectKeyIdentifier" },
    { name: "authorityKeyIdentifier", keyIdentifier: caCert.generateSubjectKeyIdentifier().getBytes() },
    { name: "subjectAltName", altNames: names.map((n) => (isIP(n) ? { type: 7, ip: n } : { type: 2, value: n })) },
  ]);
  cert.sign(caKey, forge.md.sha256.create());
  return { cert: pem(cert), key: keyPem };
}

/**
 * The CA (made on the installation's first start) and a serving certificate for `names`: the
 * one kept, while it covers exactly these names, was signed by this CA and has 30 days left.
 */
export async function kubeTls(store: SettingsStore, names: string[], now = Date.now()): Promise<KubeTls> {
  const ca = JSON.parse(await store.setting(CA_KEY, async () => JSON.stringify(await makeCa(now)))) as { cert: string; key: string };
  const kept = JSON.parse(await store.setting(SERVING_KEY, async () => JSON.stringify({ names: [], ca: "", cert: "", key: "" }))) as { names: string[]; ca: string; cert: string; key: string };
  let serving = kept;
  if (!usable(kept, ca.cert, names, now)) {
    serving = { names, ca: ca.cert, ...(await makeServing(ca, names, now)) };
    await store.putSetting(SERVING_KEY, JSON.stringify(serving));
  }
  return { caCert: ca.cert, cert: serving.cert, key: serving.key, names };
}

function usable(kept: { names: string[]; ca: string; cert: string }, caCert: string, names: string[], now: number): boolean {
  if (!kept.cert || kept.ca !== caCert || kept.names.join(",") !== names.join(",")) return false;
  try {
    return new Date(new X509Certificate(kept.cert).validTo).getTime() - now > RENEW_BEFORE_MS;
  } catch {
    return false;
  }
}
