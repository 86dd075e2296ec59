// pflag-style parsing for kubectl: --flag=value, --flag value, -n value, -nvalue, bool flags,
// repeated flags for arrays, "--" ending flags, and pflag's error texts.

type FlagType = "bool" | "string" | "int" | "array";

export interface FlagSpec {
  name: string;
  short?: string;
  type: FlagType;
  /** An int flag's size: pflag's Int32 flags (create deployment --replicas) refuse what int32 does not hold. */
  bits?: 32 | 64;
}

/** The range of strconv.ParseInt(s, 0, bits), as BigInts. */
const INT_RANGE = { 32: [-(2n ** 31n), 2n ** 31n - 1n], 64: [-(2n ** 63n), 2n ** 63n - 1n] } as const;

export interface Parsed {
  flags: Map<string, string | boolean | string[]>;
  args: string[];
  /** Arguments after "--" (exec, run). */
  rest?: string[];
}

export class UsageError extends Error {}

/**
 * -h / --help given, and every flag parsed: cobra then prints the command's help instead of
 * running it (flag errors come first). `command` is the command's path, "kubectl get".
 */
export class HelpRequested extends Error {
  constructor(readonly command: string) {
    super(`help for ${command}`);
  }
}

/** kubectl's global flags (`kubectl options`), which every command takes, before or after its name. */
export const GLOBAL_FLAGS: FlagSpec[] = [
  { name: "as", type: "string" },
  { name: "as-group", type: "array" },
  { name: "as-uid", type: "string" },
  { name: "cache-dir", type: "string" },
  { name: "certificate-authority", type: "string" },
  { name: "client-certificate", type: "string" },
  { name: "client-key", type: "string" },
  { name: "cluster", type: "string" },
  { name: "context", type: "string" },
  { name: "disable-compression", type: "bool" },
  { name: "insecure-skip-tls-verify", type: "bool" },
  { name: "kubeconfig", type: "string" },
  { name: "log-flush-frequency", type: "string" },
  { name: "match-server-version", type: "bool" },
  { name: "namespace", short: "n", type: "string" },
  { name: "password", type: "string" },
  { name: "profile", type: "string" },
  { name: "profile-output", type: "string" },
  { name: "request-timeout", type: "string" },
  { name: "server", short: "s", type: "string" },
  { name: "tls-server-name", type: "string" },
  { name: "token", type: "string" },
  { name: "user", type: "string" },
  { name: "username", type: "string" },
  { name: "v", short: "v", type: "int", bits: 32 },
  { name: "vmodule", type: "string" },
  { name: "warnings-as-errors", type: "bool" },
  { name: "help", short: "h", type: "bool" },
];

interface FlagIndex {
  byName: Map<string, FlagSpec>;
  byShort: Map<string, FlagSpec>;
}
/** A command's flags with the global ones, by name and by shorthand (kept for constant spec lists such as get's). */
const indexes = new WeakMap<FlagSpec[], FlagIndex>();
function flagIndex(specs: FlagSpec[]): FlagIndex {
  let ix = indexes.get(specs);
  if (!ix) {
    ix = { byName: new Map(), byShort: new Map() };
    // On a name both lists have, the global flag's entry is kept (it comes last).
    for (const s of [...specs, ...GLOBAL_FLAGS]) {
      ix.byName.set(s.name, s);
      if (s.short) ix.byShort.set(s.short, s);
    }
    indexes.set(specs, ix);
  }
  return ix;
}

export function parseFlags(argv: string[], specs: FlagSpec[], command: string, interspersed = true): Parsed {
  const p = parseAll(argv, specs, command, interspersed);
  if (p.flags.get("help") === true) throw new HelpRequested(command);
  return p;
}

function parseAll(argv: string[], specs: FlagSpec[], command: string, interspersed: boolean): Parsed {
  const { byName, byShort } = flagIndex(specs);
  const flags = new Map<string, string | boolean | string[]>();
  const args: string[] = [];
  const set = (spec: FlagSpec, v: string | boolean, raw: string) => {
    if (spec.type === "int" && typeof v === "string" && !/^-?\d+$/.test(v)) {
      throw new UsageError(`invalid argument "${v}" for "${spec.short ? `-${spec.short}, ` : ""}--${spec.name}" flag: strconv.ParseInt: parsing "${v}": invalid syntax\nSee '${command} --help' for usage.`);
    }
    if (spec.type === "int" && typeof v === "string") {
      const [min, max] = INT_RANGE[spec.bits ?? 64];
      const n = BigInt(v);
      if (n < min || n > max) {
        throw new UsageError(`invalid argument "${v}" for "${spec.short ? `-${spec.short}, ` : ""}--${spec.name}" flag: strconv.ParseInt: parsing "${v}": value out of range\nSee '${command} --help' for usage.`);
      }
    }
    if (spec.type === "bool" && typeof v === "string") {
      if (!/^(true|false|1|0|t|f|TRUE|FALSE|True|False)$/.test(v)) throw new UsageError(`invalid argument "${v}" for "--${spec.name}" flag: strconv.ParseBool: parsing "${v}": invalid syntax`);
      v = /^(true|1|t|TRUE|True)$/.test(v);
    }
    if (spec.type === "array") {
      const prev = (flags.get(spec.name) as string[] | undefined) ?? [];
      flags.set(spec.name, [...prev, String(v)]);
    } else flags.set(spec.name, v);
    void raw;
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === "--") return { flags, args, rest: argv.slice(i + 1) };
    if (a.startsWith("--") && a.length > 2) {
      const eq = a.indexOf("=");
      const name = eq < 0 ? a.slice(2) : a.slice(2, eq);
      const spec = byName.get(name);
      if (!spec) throw new UsageError(`unknown flag: --${name}\nSee '${command} --help' for usage.`);
      if (eq >= 0) set(spec, a.slice(eq + 1), a);
      else if (spec.type === "bool") set(spec, true, a);
      else {
        if (i + 1 >= argv.length) throw new UsageError(`flag needs an argument: --${name}\nSee '${command} --help' for usage.`);
        set(spec, argv[++i], a);
      }
    } else if (a.startsWith("-") && a.length > 1 && a !== "-") {
      // Shorthand cluster: -it, -n ns, -nns, -o=yaml
      let j = 1;
      while (j < a.length) {
        const ch = a[j];
        const spec = byShort.get(ch);
        if (!spec) throw new UsageError(`unknown shorthand flag: '${ch}' in ${a}\nSee '${command} --help' for usage.`);
        if (spec.type === "bool") {
          if (a[j + 1] === "=") {
            set(spec, a.slice(j + 2), a);
            break;
          }
          set(spec, true, a);
          j++;
          continue;
        }
        let v = a.slice(j + 1);
        if (v.startsWith("=")) v = v.slice(1);
        if (v === "") {
          if (i + 1 >= argv.length) throw new UsageError(`flag needs an argument: '${ch}' in -${ch}\nSee '${command} --help' for usage.`);
          v = argv[++i];
        }
        set(spec, v, a);
        break;
      }
    } else {
      args.push(a);
      if (!interspersed) return { flags, args: [...args, ...argv.slice(i + 1)] };
    }
  }
  return { flags, args };
}

export function str(p: Parsed, name: string): string | undefined {
  const v = p.flags.get(name);
  return typeof v === "string" ? v : undefined;
}

export function bool(p: Parsed, name: string): boolean {
  return p.flags.get(name) === true;
}

export function arr(p: Parsed, name: string): string[] {
  const v = p.flags.get(name);
  return Array.isArray(v) ? v : [];
}
