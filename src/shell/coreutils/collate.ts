// The order of names in the node's locale (en_US.UTF-8: glibc's ISO 14651 table), which ls and
// sort use: punctuation is ignored at first (`.bashrc` sorts among the b's), letters compare
// without case, digits before letters; then lowercase before uppercase; then the whole name,
// punctuation first. In the C locale (a container's, or LC_ALL=C) it is byte order.

/** A character's place at the last level: punctuation, then digits, then letters (case-blind). */
function weight(c: string): number {
  if (c >= "0" && c <= "9") return 0x10000 + c.charCodeAt(0);
  const lower = c.toLowerCase();
  if (lower !== c.toUpperCase()) return 0x20000 + lower.charCodeAt(0) * 2 + (c === lower ? 0 : 1);
  return c.charCodeAt(0);
}

const isAlnum = (c: string) => (c >= "0" && c <= "9") || c.toLowerCase() !== c.toUpperCase();

/** strcoll in en_US.UTF-8, for the names a terminal's files have. */
export function collateUtf8(a: string, b: string): number {
  // Accents and case are later levels: é is e at the first.
  const ka = [...a.normalize("NFD")].filter(isAlnum);
  const kb = [...b.normalize("NFD")].filter(isAlnum);
  // First level: the letters and digits, case-blind.
  for (let i = 0; i < Math.min(ka.length, kb.length); i++) {
    const x = weight(ka[i].toLowerCase());
    const y = weight(kb[i].toLowerCase());
    if (x !== y) return x - y;
  }
  if (ka.length !== kb.length) return ka.length - kb.length;
  // Third level: the first difference in case, lowercase first.
  for (let i = 0; i < ka.length; i++) if (ka[i] !== kb[i]) return ka[i] === ka[i].toLowerCase() ? -1 : 1;
  // Last level: every character, punctuation before digits before letters.
  const ca = [...a];
  const cb = [...b];
  for (let i = 0; i < Math.min(ca.length, cb.length); i++) if (ca[i] !== cb[i]) return weight(ca[i]) - weight(cb[i]);
  return ca.length - cb.length;
}

/** strcmp: the C locale's order (bytes; UTF-16 order agrees for the names a terminal has). */
export function collateC(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The collation of the environment's LC_COLLATE. */
export function collation(env: (name: string) => string | undefined): (a: string, b: string) => number {
  const v = env("LC_ALL") || env("LC_COLLATE") || env("LANG") || "";
  return /\.utf-?8$/i.test(v) && !/^(C|POSIX)\./i.test(v) ? collateUtf8 : collateC;
}
