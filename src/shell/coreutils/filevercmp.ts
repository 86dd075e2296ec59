// gnulib's filevercmp as coreutils 8.32 has it (ls -v, sort -V): names compared as versions,
// runs of digits by value, '~' before everything, hidden files first, a file's suffix
// (/(\.[A-Za-z~][A-Za-z0-9~]*)*$/) compared last.

const isDigit = (c: string | undefined) => c !== undefined && c >= "0" && c <= "9";
const isAlpha = (c: string | undefined) => c !== undefined && /[A-Za-z]/.test(c);

/** Where the name's suffix starts (undefined: none). */
function matchSuffix(s: string): number | undefined {
  let match: number | undefined;
  let readAlpha = false;
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (readAlpha) {
      readAlpha = false;
      if (!isAlpha(c) && c !== "~") match = undefined;
    } else if (c === ".") {
      readAlpha = true;
      if (match === undefined) match = i;
    } else if (!isAlpha(c) && !isDigit(c) && c !== "~") match = undefined;
  }
  return match;
}

function order(c: string): number {
  if (isDigit(c)) return 0;
  if (isAlpha(c)) return c.charCodeAt(0);
  if (c === "~") return -1;
  return c.charCodeAt(0) + 256;
}

function verrevcmp(s1: string, len1: number, s2: string, len2: number): number {
  let p1 = 0;
  let p2 = 0;
  while (p1 < len1 || p2 < len2) {
    let firstDiff = 0;
    while ((p1 < len1 && !isDigit(s1[p1])) || (p2 < len2 && !isDigit(s2[p2]))) {
      const c1 = p1 === len1 ? 0 : order(s1[p1]);
      const c2 = p2 === len2 ? 0 : order(s2[p2]);
      if (c1 !== c2) return c1 - c2;
      p1++;
      p2++;
    }
    while (s1[p1] === "0") p1++;
    while (s2[p2] === "0") p2++;
    while (isDigit(s1[p1]) && isDigit(s2[p2])) {
      if (!firstDiff) firstDiff = s1.charCodeAt(p1) - s2.charCodeAt(p2);
      p1++;
      p2++;
    }
    if (isDigit(s1[p1])) return 1;
    if (isDigit(s2[p2])) return -1;
    if (firstDiff) return firstDiff;
  }
  return 0;
}

export function filevercmp(a: string, b: string): number {
  const simple = a < b ? -1 : a > b ? 1 : 0;
  if (simple === 0) return 0;
  if (!a) return -1;
  if (!b) return 1;
  for (const special of [".", ".."]) {
    if (a === special) return -1;
    if (b === special) return 1;
  }
  if (a[0] === "." && b[0] !== ".") return -1;
  if (a[0] !== "." && b[0] === ".") return 1;
  if (a[0] === "." && b[0] === ".") {
    a = a.slice(1);
    b = b.slice(1);
  }
  const sa = matchSuffix(a);
  const sb = matchSuffix(b);
  let la = sa ?? a.length;
  let lb = sb ?? b.length;
  if ((sa !== undefined || sb !== undefined) && la === lb && a.slice(0, la) === b.slice(0, lb)) {
    la = a.length;
    lb = b.length;
  }
  const r = verrevcmp(a, la, b, lb);
  return r === 0 ? simple : r;
}
