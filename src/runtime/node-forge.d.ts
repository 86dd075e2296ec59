// The part of node-forge (1.4.3, CommonJS, no types of its own) that kube-tls.ts uses: making
// and signing X.509 certificates. Declared here rather than with @types/node-forge, whose
// `/// <reference types="node" />` changed how the rest of the project's Uint8Array bodies typecheck.
declare module "node-forge" {
  namespace pki {
    interface PrivateKey {
      n: unknown;
      e: unknown;
    }
    type PublicKey = object;
    interface DistinguishedName {
      attributes: unknown[];
    }
    interface Certificate {
      publicKey: PublicKey;
      serialNumber: string;
      validity: { notBefore: Date; notAfter: Date };
      subject: DistinguishedName;
      setSubject(attrs: Array<{ name: string; value: string }>): void;
      setIssuer(attrs: unknown[]): void;
      setExtensions(exts: Array<Record<string, unknown>>): void;
      sign(key: PrivateKey, md: unknown): void;
      generateSubjectKeyIdentifier(): { getBytes(): string };
    }
    function createCertificate(): Certificate;
    function certificateToPem(cert: Certificate): string;
    function certificateFromPem(pem: string): Certificate;
    function privateKeyFromPem(pem: string): PrivateKey;
    function setRsaPublicKey(n: unknown, e: unknown): PublicKey;
  }
  namespace md {
    namespace sha256 {
      function create(): unknown;
    }
  }
  namespace random {
    function getBytesSync(n: number): string;
  }
  namespace util {
    function bytesToHex(bytes: string): string;
  }
  const forge: { pki: typeof pki; md: typeof md; random: typeof random; util: typeof util };
  export { pki, md, random, util };
  export default forge;
}
