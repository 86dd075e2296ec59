import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { base32, fnv32a, safeEncodeString, sha256, sha256Base32KeyName, sha256Base32Name } from "./hash.js";

describe("sha256", () => {
  it("matches node:crypto for lengths across block boundaries", () => {
    for (let n = 0; n < 200; n += 7) {
      const s = "k".repeat(n) + "é";
      expect(Buffer.from(sha256(s)).toString("hex")).toBe(createHash("sha256").update(s).digest("hex"));
    }
  });
});

describe("base32", () => {
  it("matches RFC 4648 vectors", () => {
    const enc = (s: string) => base32(new TextEncoder().encode(s));
    expect(enc("")).toBe("");
    expect(enc("f")).toBe("MY======");
    expect(enc("fo")).toBe("MZXQ====");
    expect(enc("foobar")).toBe("MZXW6YTBOI======");
  });
  it("gives kube-proxy's chain hashes", () => {
    const h = (s: string) => base32(sha256(s)).slice(0, 16);
    expect(h("ns1/svc1:p80tcp")).toBe("XPGD46QRK7WJZT7O");
    expect(h("default/kubernetes:httpstcp")).toBe("NPX46M4PTMTKRN6Y");
    expect(h("default/kubernetes:httpstcp172.18.0.2:6443")).toBe("V2PECCYPB6X2GSCW");
  });
});

describe("fnv32a and safeEncodeString", () => {
  it("matches hash/fnv test vectors", () => {
    expect(fnv32a("")).toBe(0x811c9dc5);
    expect(fnv32a("a")).toBe(0xe40c292c);
    expect(fnv32a("foobar")).toBe(0xbf9cf968);
  });
  it("uses the vowel-free alphabet", () => {
    expect(safeEncodeString("0123")).toMatch(/^[bcdfghjklmnpqrstvwxz2456789]+$/);
  });
});

describe("sha256Base32Prefix", () => {
  it("equals the prefix of the full encoding, for ASCII and non-ASCII input", async () => {
    const { sha256Base32Prefix } = await import("./hash.js");
    for (const s of ["", "a", "ns1/svc1:p80tcp", "x".repeat(55), "x".repeat(56), "x".repeat(64), "é漢字/svc"]) {
      expect(sha256Base32Prefix(s, 16)).toBe(base32(sha256(s)).slice(0, 16));
      expect(sha256Base32Prefix(s, 8)).toBe(base32(sha256(s)).slice(0, 8));
    }
  });
});

describe("sha256Base32Name", () => {
  it("is the prefix and the hash prefix of the parts' concatenation, at every length and for non-ASCII parts", async () => {
    const { sha256Base32Name } = await import("./hash.js");
    const parts: [string, string, string, string, string][] = [
      ["", "", "", "", ""],
      ["ns1/svc1:p80", "tcp", "10.180.0.1", ":", "80"],
      ["é漢字/svc", "tcp", "10.0.0.1", ":", "8080"],
      ["a", "b", "c", "é", "d"],
    ];
    for (let n = 0; n < 140; n++) parts.push(["x".repeat(n % 7), "y".repeat(n % 3), "z".repeat(n), n % 2 ? ":" : "", String(n)]);
    for (const p of parts) {
      const whole = p.join("");
      expect(sha256Base32Name("KUBE-SEP-", 16, ...p)).toBe("KUBE-SEP-" + base32(sha256(whole)).slice(0, 16));
      expect(sha256Base32Name("", 8, p[0], p[1], p[2])).toBe(base32(sha256(p[0] + p[1] + p[2])).slice(0, 8));
    }
  });
});

describe("sha256Base32KeyName", () => {
  it("is sha256Base32Name of the key without an endpoint", () => {
    for (const [a, b] of [["ns1/svc1:p80", "tcp"], ["y".repeat(70), "tcp"], ["é/ns:p", "udp"], ["", ""]]) {
      expect(sha256Base32KeyName("", 16, a, b)).toBe(sha256Base32Name("", 16, a, b));
      expect(sha256Base32KeyName("KUBE-SVC-", 16, a, b)).toBe(sha256Base32Name("KUBE-SVC-", 16, a, b));
    }
    expect(sha256Base32KeyName("", 16, "ns1/svc1:p80", "tcp")).toBe("XPGD46QRK7WJZT7O");
  });
  it("is sha256Base32Name of the endpoint string, across heads, lengths and block boundaries", () => {
    const heads = [["ns1/svc1:p80", "tcp"], ["default/kubernetes:https", "tcp"], ["x".repeat(40), "sctp"], ["y".repeat(70), "tcp"], ["", ""], ["é/ns:p", "udp"]];
    const ips = ["10.0.0.1", "172.18.0.2", "1.2.3.4", "fd00::1", "255.255.255.255".repeat(4), "z".repeat(70), "é"];
    for (const [a, b] of heads) {
      for (const ip of ips) {
        for (const port of [0, 7, 80, 6443, 65535]) {
          expect(sha256Base32KeyName("KUBE-SEP-", 16, a, b, ip, port)).toBe(sha256Base32Name("KUBE-SEP-", 16, a, b, ip, ":", String(port)));
        }
      }
    }
    expect(sha256Base32KeyName("KUBE-SEP-", 16, "default/kubernetes:https", "tcp", "172.18.0.2", 6443)).toBe("KUBE-SEP-V2PECCYPB6X2GSCW");
  });
});

describe("chain-name prefixes", () => {
  it("are base32(sha256(...)) truncated, for every prefix and length the proxiers use", () => {
    for (let i = 0; i < 300; i++) {
      const s = `ns${i}/svc${i * 7}:p${i % 13}tcp10.${i}.0.${i % 256}:${i * 31}`;
      const h = base32(sha256(s));
      for (const prefix of ["", "KUBE-SEP-", "KUBE-FW-", "KUBE-SVC-"]) {
        for (const n of [8, 16]) expect(sha256Base32Name(prefix, n, s, "")).toBe(prefix + h.slice(0, n));
      }
      expect(sha256Base32KeyName("KUBE-SEP-", 16, `ns${i}/svc${i * 7}:p${i % 13}`, "tcp", `10.${i}.0.${i % 256}`, i * 31)).toBe(`KUBE-SEP-${h.slice(0, 16)}`);
    }
  });
});
