// Cron schedules as robfig/cron v3's standard parser reads them (cron.ParseStandard: five fields
// minute hour day-of-month month day-of-week, names jan..dec and sun..sat, `*`, `?`, ranges,
// steps and lists; the descriptors @yearly @annually @monthly @weekly @daily @midnight @hourly and
// @every DURATION), with its error texts, and SpecSchedule.Next on the cluster's clock: in UTC,
// or in an IANA zone through Intl's time zone data. Pure.

interface Bounds {
  min: number;
  max: number;
  names?: Record<string, number>;
}

const MONTH_NAMES = Object.fromEntries(["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"].map((n, i) => [n, i + 1]));
const DOW_NAMES = Object.fromEntries(["sun", "mon", "tue", "wed", "thu", "fri", "sat"].map((n, i) => [n, i]));
const MINUTES: Bounds = { min: 0, max: 59 };
const HOURS: Bounds = { min: 0, max: 23 };
const DOM: Bounds = { min: 1, max: 31 };
const MONTHS: Bounds = { min: 1, max: 12, names: MONTH_NAMES };
const DOW: Bounds = { min: 0, max: 6, names: DOW_NAMES };

/** A field's allowed values, and whether it was `*`/`?` (robfig's starBit). */
interface Field {
  values: Set<number>;
  star: boolean;
}

export type Schedule = { kind: "spec"; minute: Field; hour: Field; dom: Field; month: Field; dow: Field } | { kind: "every"; ms: number };

const DESCRIPTORS: Record<string, string> = {
  "@yearly": "0 0 1 1 *",
  "@annually": "0 0 1 1 *",
  "@monthly": "0 0 1 * *",
  "@weekly": "0 0 * * 0",
  "@daily": "0 0 * * *",
  "@midnight": "0 0 * * *",
  "@hourly": "0 * * * *",
};

/** cron.ParseStandard: the schedule, or an Error worded as robfig/cron's. */
export function parseStandard(spec: string): Schedule {
  if (spec.length === 0) throw new Error("empty spec string");
  let s = spec;
  if (s.startsWith("TZ=") || s.startsWith("CRON_TZ=")) {
    const i = s.indexOf(" ");
    s = i < 0 ? "" : s.slice(i).trim();
  }
  if (s.startsWith("@")) {
    if (s.startsWith("@every ")) {
      const d = s.slice("@every ".length);
      const ms = goDuration(d);
      if (ms === undefined) throw new Error(`failed to parse duration ${s}: time: invalid duration ${JSON.stringify(d)}`);
      return { kind: "every", ms: Math.max(1000, Math.floor(ms / 1000) * 1000) };
    }
    const std = DESCRIPTORS[s];
    if (!std) throw new Error(`unrecognized descriptor: ${s}`);
    s = std;
  }
  const fields = s.split(/[ \t\n\r\v\f]+/).filter((x) => x !== "");
  if (fields.length !== 5) throw new Error(`expected exactly 5 fields, found ${fields.length}: [${fields.join(" ")}]`);
  return {
    kind: "spec",
    minute: getField(fields[0], MINUTES),
    hour: getField(fields[1], HOURS),
    dom: getField(fields[2], DOM),
    month: getField(fields[3], MONTHS),
    dow: getField(fields[4], DOW),
  };
}

function getField(field: string, r: Bounds): Field {
  const out: Field = { values: new Set(), star: false };
  for (const expr of field.split(",")) getRange(expr, r, out);
  return out;
}

function getRange(expr: string, r: Bounds, out: Field): void {
  const rangeAndStep = expr.split("/");
  const lowAndHigh = rangeAndStep[0].split("-");
  const singleDigit = lowAndHigh.length === 1;
  let start: number;
  let end: number;
  let star = false;
  if (lowAndHigh[0] === "*" || lowAndHigh[0] === "?") {
    start = r.min;
    end = r.max;
    star = true;
  } else {
    start = parseIntOrName(lowAndHigh[0], r.names);
    if (lowAndHigh.length === 1) end = start;
    else if (lowAndHigh.length === 2) end = parseIntOrName(lowAndHigh[1], r.names);
    else throw new Error(`too many hyphens: ${expr}`);
  }
  let step: number;
  if (rangeAndStep.length === 1) step = 1;
  else if (rangeAndStep.length === 2) {
    step = mustParseInt(rangeAndStep[1]);
    if (singleDigit) end = r.max;
    if (step > 1) star = false;
  } else throw new Error(`too many slashes: ${expr}`);
  if (start < r.min) throw new Error(`beginning of range (${start}) below minimum (${r.min}): ${expr}`);
  if (end > r.max) throw new Error(`end of range (${end}) above maximum (${r.max}): ${expr}`);
  if (start > end) throw new Error(`beginning of range (${start}) beyond end of range (${end}): ${expr}`);
  if (step === 0) throw new Error(`step of range should be a positive number: ${expr}`);
  for (let v = start; v <= end; v += step) out.values.add(v);
  if (star) out.star = true;
}

function parseIntOrName(expr: string, names?: Record<string, number>): number {
  if (names) {
    const n = names[expr.toLowerCase()];
    if (n !== undefined) return n;
  }
  return mustParseInt(expr);
}

/** strconv.Atoi, then robfig's check for a negative number. */
function mustParseInt(expr: string): number {
  const m = /^[+-]?\d+$/.exec(expr);
  if (!m) throw new Error(`failed to parse int from ${expr}: strconv.Atoi: parsing ${JSON.stringify(expr)}: invalid syntax`);
  const n = Number(expr);
  if (n < 0) throw new Error(`negative number (${n}) not allowed: ${expr}`);
  return n;
}

/** time.ParseDuration for what @every takes (units ns..h, fractions, sums like 1h30m). */
function goDuration(s: string): number | undefined {
  const unit: Record<string, number> = { ns: 1e-6, us: 1e-3, "µs": 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
  if (s === "0") return 0;
  const re = /(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|ms|s|m|h)/y;
  let ms = 0;
  let i = 0;
  while (i < s.length) {
    re.lastIndex = i;
    const m = re.exec(s);
    if (!m) return undefined;
    ms += Number(m[1]) * unit[m[2]];
    i = re.lastIndex;
  }
  return s.length ? ms : undefined;
}

// ---------------------------------------------------------------------------------------------
// Next

/** Wall-clock fields of `ms` in `zone` (UTC when undefined). */
function wall(ms: number, zone: string | undefined): { y: number; mo: number; d: number; h: number; mi: number; dow: number } {
  if (!zone || zone === "UTC" || zone === "Etc/UTC") {
    const t = new Date(ms);
    return { y: t.getUTCFullYear(), mo: t.getUTCMonth() + 1, d: t.getUTCDate(), h: t.getUTCHours(), mi: t.getUTCMinutes(), dow: t.getUTCDay() };
  }
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat("en-US", { timeZone: zone, hourCycle: "h23", year: "numeric", month: "numeric", day: "numeric", hour: "numeric", minute: "numeric", weekday: "short" })
      .formatToParts(new Date(ms))
      .map((p) => [p.type, p.value]),
  );
  return { y: Number(parts.year), mo: Number(parts.month), d: Number(parts.day), h: Number(parts.hour) % 24, mi: Number(parts.minute), dow: DOW_NAMES[String(parts.weekday).toLowerCase().slice(0, 3)] };
}

/** Whether `zone` is a time zone Intl knows (time.LoadLocation's question). */
export function knownTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

function matches(s: Extract<Schedule, { kind: "spec" }>, w: ReturnType<typeof wall>): boolean {
  if (!s.month.values.has(w.mo) || !s.hour.values.has(w.h) || !s.minute.values.has(w.mi)) return false;
  // dayMatches: both restricted means either; otherwise both.
  const domOk = s.dom.values.has(w.d);
  const dowOk = s.dow.values.has(w.dow);
  return s.dom.star || s.dow.star ? domOk && dowOk : domOk || dowOk;
}

/**
 * The first activation strictly after `after` (ms), or undefined within five years (robfig's
 * zero time). Minute by minute, skipping hours, days and months that cannot match.
 */
export function nextAfter(s: Schedule, after: number, zone?: string): number | undefined {
  if (s.kind === "every") return Math.floor(after / 1000) * 1000 + s.ms;
  const limit = after + 5 * 366 * 86_400_000;
  let t = Math.floor(after / 60_000) * 60_000 + 60_000;
  while (t <= limit) {
    const w = wall(t, zone);
    if (!s.month.values.has(w.mo)) {
      t += 86_400_000 - (w.h * 60 + w.mi) * 60_000;
      continue;
    }
    const domOk = s.dom.values.has(w.d);
    const dowOk = s.dow.values.has(w.dow);
    const dayOk = s.dom.star || s.dow.star ? domOk && dowOk : domOk || dowOk;
    if (!dayOk) {
      t += 86_400_000 - (w.h * 60 + w.mi) * 60_000;
      continue;
    }
    if (!s.hour.values.has(w.h)) {
      t += (60 - w.mi) * 60_000;
      continue;
    }
    if (matches(s, w)) return t;
    t += 60_000;
  }
  return undefined;
}
