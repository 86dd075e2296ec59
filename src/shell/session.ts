// A terminal on a cluster's control-plane node: bash (just-bash) with kubectl and the node's
// commands, files that persist between command lines, and an "attached" mode in which lines go to
// a pod's shell (kubectl run --rm -it, kubectl exec -it ... sh) until `exit`. Commands that wait
// (sleep, watch, kubectl wait / rollout status / get -w) wait on the line's time source while the
// cluster follows it, and stop when the line's signal is aborted (Ctrl-C): see time.ts.

import * as justBash from "just-bash";
import { Bash, defineCommand, getCommandNames, InMemoryFs } from "just-bash";
import type { Command, DefenseInDepthBox } from "just-bash";
import { R } from "../engine/api/resources.js";
import type { Pod } from "../engine/api/types.js";
import type { Cluster } from "../engine/cluster.js";
import { NODE_RESOLV_CONF } from "../engine/kubelet/kubelet.js";
import { FsError } from "../engine/kubelet/fs.js";
import type { AttachRequest, Editor, KubectlContext, Output } from "./kubectl/context.js";
import { kubectl } from "./kubectl/kubectl.js";
import { kubeconfigText } from "./kubectl/cmd/config.js";
import { boundedFs, NoSpaceError } from "./bounded-fs.js";
import { podShellPrompt } from "./prompt.js";
import { builtinCommands, inShellVoice, type ShellPlace } from "./builtins.js";
import { ShellFs } from "./fs.js";
import { type NodeCommandContext, type NodeCommands, nodeCommands as defaultRegistry } from "./node-commands.js";
// The node's network commands (curl, iptables-save, ipvsadm, nft, nslookup...) join the default registry.
import "./net/index.js";
import { utf8Length } from "./net/http.js";
import { clusterTime, LineTime, sleepMs } from "./time.js";
import { watchCommand } from "./watch.js";

type ShellResult = Output;

/** How one command line runs: its time (source, stop signal) and the terminal it may stream to. */
interface RunOptions {
  stdin?: string;
  /** The line's stop (the host's: src/runtime/budget.ts). */
  signal?: AbortSignal;
  /** The line's time source and stop signal (default: the cluster's own clock, never stopped). */
  time?: LineTime;
  /**
   * The terminal, for output written as it is produced: a line that is one command whose stdout
   * is the terminal (`kubectl get pods -w`, `watch ...`) streams to it. What was streamed is also
   * in the result's stdout, at its start, unless `kept` is false (watch's screens: the alternate
   * screen is gone once it ends, so they are not part of what the terminal keeps).
   */
  write?: (chunk: string, kept: boolean) => void;
  /** The terminal's width (watch's header), when the client says. */
  columns?: number;
}

/** What kubectl sees of the shell that runs it: its environment and a way to run a child. */
interface KubectlShell {
  env(name: string): string | undefined;
  run?(command: string): Promise<Output>;
}

interface SessionOptions {
  editor?: Editor;
  /**
   * An editor the host lends per command line (the web UI's hosted editor): used when `editor`
   * is not set and the holder has one at the time kubectl edit runs.
   */
  hostedEditor?: { current?: Editor };
  nodeCommands?: NodeCommands;
  /** Extra log lines for containers (kube-proxy start-up lines): the network module's hook. */
  extraLogs?: KubectlContext["extraLogs"];
  /** Max bytes of stdout (and of stderr) one command line may return. */
  outputCap?: number;
  /** Max commands one line may run (loops included). */
  maxCommands?: number;
  state?: SessionState;
  /**
   * just-bash's defense-in-depth layer: proxies on ~40 host globals (Function constructors,
   * Module._load, process, Promise.then...) that throw when reached from a command's async
   * context. The terminal runs no JavaScript or Python (js-exec and python are off), so the layer
   * guards only against an escape through a just-bash bug; it is on unless a host turns it off.
   * Its patches stay installed for the life of the process (see DEFENSE).
   */
  defenseInDepth?: boolean;
  /**
   * Lines of kubectl and literal words call kubectl directly instead of through the interpreter,
   * as bash would run them (see runPlainKubectl). On unless turned off (tests compare both ways).
   */
  plainKubectl?: boolean;
}

/**
 * How terminals use just-bash's defense box. By default just-bash installs the box's patches when
 * a command line starts and removes them when the last one running ends: ~1 ms of every command
 * line, more than a `kubectl get svc` itself. The patches block only inside a command's own async
 * context (an AsyncLocalStorage store), so host code between and beside command lines runs as
 * before with them installed. The first terminal therefore takes one activation of the shared box
 * and never releases it: the patches go in once per process.
 *
 * With the patches permanent, the box's process-lifetime hardening is the consistent choice: JSON,
 * Math and Reflect are frozen for good and the well-known symbols' descriptors locked, instead of
 * made read-only per command line behind wrappers on Object.defineProperty and friends (wrappers
 * that cost ~0.1 ms on each of a loop's commands). It is also the stronger form: a frozen
 * intrinsic cannot be reached through a reference cached before activation. A ServiceLab process
 * (the Node server, a Worker isolate, the CLI, a test worker) is such a process-lifetime realm;
 * nothing in it mutates those intrinsics.
 */
export const DEFENSE = { enabled: true, processLifetimeIntrinsicHardening: true } as const;
let defenseHeld = false;
function defense(on: boolean): typeof DEFENSE | false {
  if (!on) return false;
  if (!defenseHeld) {
    // just-bash's browser build, which Workers get, has no box (there the isolate is the boundary).
    // Read off the namespace: a named import of it fails wrangler's build of the Worker ("No
    // matching export"), where the named import only resolved under Node and Vite.
    const box = Reflect.get(justBash, "DefenseInDepthBox") as typeof DefenseInDepthBox | undefined;
    box?.getInstance(DEFENSE).activate();
    defenseHeld = true;
  }
  return DEFENSE;
}

/** What a host persists for a terminal between requests (JSON). */
export interface SessionState {
  version: 1;
  node: string;
  cwd: string;
  vars: Record<string, string>;
  namespace: string;
  files: Record<string, string>;
  /** Files that are not UTF-8 text (a downloaded .tar.gz), base64. */
  binary?: Record<string, string>;
  attached?: { namespace: string; pod: string; container: string; shell: string; removeOnExit: boolean };
  /** Nodes left by `ssh`, innermost last: `exit` returns to them. */
  sshStack?: string[];
  /** The shells left by `ssh` (working directory and variables), beside sshStack. */
  sshFrames?: ShellFrame[];
  /** Modification times (ms) of the entries written since the node was installed. */
  times?: Record<string, number>;
  /** Directories with nothing in them (the others come back with their files). */
  dirs?: string[];
  /** Each node's shell history, oldest line first. */
  history?: Record<string, string[]>;
  /** The files of the other nodes this terminal has been on (`files` are the login node's). */
  nodeFiles?: Record<string, SavedFiles>;
}

/** One node's files in a saved terminal. */
type SavedFiles = Pick<SessionState, "files" | "binary" | "times" | "dirs">;

interface ShellFrame {
  cwd: string;
  vars: Record<string, string>;
}

/** One node's filesystem and the shell interpreter working on it. */
interface NodeShell {
  fs: ShellFs;
  bash: Bash;
  /** The registry version whose commands this shell has. */
  registered: number;
}

const HOME = "/root";
/** Rocky's /etc/profile: HISTSIZE=1000. */
const HISTSIZE = 1000;
/** What ncurses' clear writes for xterm-256color: home, erase the screen, erase the scrollback (E3). */
const CLEAR = "\x1b[H\x1b[2J\x1b[3J";
/** Commands that lay out their output for a terminal when it is one (isatty). */
const TTY_AWARE = /(?:^|[^\w-])ls(?:$|[^\w-])/;
/** Modes of the node's own directories: / and root's home are not writable by mode (root writes anyway), /tmp is sticky. */
const NODE_MODES: [string, number][] = [["/", 0o555], [HOME, 0o550], ["/tmp", 0o1777]];
/** just-bash's file system methods that change files (everything else only reads). */
const FS_WRITES = ["writeFile", "writeFileSync", "writeFileLazy", "appendFile", "mkdir", "mkdirSync", "rm", "cp", "mv", "chmod", "symlink", "link", "utimes"] as const;
const SHELL_VARS_SKIPPED = new Set(["?", "IFS", "OPTIND", "SHELLOPTS", "BASHOPTS", "OLDPWD", "PWD", "_", "#", "@", "*", "$", "!", "0", "-", "PPID", "UID", "EUID", "RANDOM", "LINENO", "SECONDS", "BASH_VERSION", "HOSTTYPE", "MACHTYPE", "OSTYPE"]);
const DEFAULT_CAP = 1 << 20;
/**
 * sed's branch iterations per script. just-bash's default (100000) let `sed ':a;s/^/x/;ba'`
 * spin ~7 s (the pattern space grows with every pass); 10000 stop it in ~0.2 s and still join a
 * 10000-line file (`:a;N;$!ba;s/\n/,/g`). (Its loop is sliced: scripts/patch-just-bash.mjs, LOOPS.)
 */
const MAX_SED_ITERATIONS = 10_000;
/**
 * awk's loop iterations per loop. just-bash's default (100000) let `awk 'BEGIN { while (1) {} }'`
 * run ~400 ms; 20000 stop it in ~80 ms (its loops are sliced: scripts/patch-just-bash.mjs, LOOPS).
 */
const MAX_AWK_ITERATIONS = 20_000;
/**
 * One command line's memory budget (its CPU budget is the host's: src/runtime/budget.ts): what
 * the interpreter may hold live at once, and its largest string, here-document and input. A
 * Durable Object holds 128 MB for everything, so a line gets a quarter of it; past it the line
 * stops with just-bash's message for the limit it met.
 */
const LINE_MEMORY_BYTES = 32 * 1024 * 1024;
const MEMORY_LIMITS = {
  maxLiveBytes: LINE_MEMORY_BYTES,
  maxInputBytes: LINE_MEMORY_BYTES,
  maxStringLength: LINE_MEMORY_BYTES / 4,
  maxHeredocSize: LINE_MEMORY_BYTES / 4,
  maxArrayElements: 100_000,
} as const;
/**
 * What the node (Rocky Linux 9, a server install) does not have of the interpreter's commands.
 * python3 is among them although the real node has one (dnf needs it): the terminal cannot run
 * Python, and a shell that says so in its own words is better than one that pretends.
 */
const NODE_LACKS = new Set(["python", "python3", "node", "js-exec", "sqlite3", "yq", "xan", "html-to-markdown", "rg", "jq", "tree"]);
/** The interpreter's commands a place may use: all but those it lacks (kept per set: sets are few). */
const commandLists = new WeakMap<ReadonlySet<string>, string[]>();
function commandsWithout(lacks: ReadonlySet<string>): justBash.CommandName[] {
  let list = commandLists.get(lacks);
  if (!list) commandLists.set(lacks, (list = getCommandNames().filter((c) => !lacks.has(c))));
  return list as justBash.CommandName[];
}
/** kubectl and literal words only: nothing bash would expand, redirect, split or run besides it. */
const PLAIN_KUBECTL = /^[ \t]*kubectl(?:[ \t]+[A-Za-z0-9_./:=,@%+-]+)*[ \t]*$/;
/** root's `id` on the node: SELinux is on (permissive, as kubeadm's install asks), so it shows root's context. */
const NODE_ID = "uid=0(root) gid=0(root) groups=0(root) context=unconfined_u:unconfined_r:unconfined_t:s0-s0:c0.c1023\n";
const NODE_PLACE_VOICE = { voice: "bash", name: "bash" } as const;
/** What just-bash's result says when its signal stopped the line. */
const ABORTED = /bash: [^\n]*aborted\n?$/;
/** Where the interpreter finds the terminal a line writes to (scripts/patch-just-bash.mjs, TTY). */
const TTY = Symbol.for("servicelab.tty");
/**
 * One command's output as the terminal shows it. Within a command the order of its writes is
 * not kept, so: a command that succeeds printed its warnings first (kubectl's `Warning: v1
 * Endpoints is deprecated` above the table), one that fails ends with its error (after the
 * objects kubectl did create or delete).
 */
function screenOrder(stdout: string, stderr: string, exitCode: number): string {
  return exitCode === 0 ? stderr + stdout : stdout + stderr;
}

/** How many characters two texts share at their start. */
function commonPrefix(a: string, b: string): number {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  return i;
}
/** Commands that write to the terminal as they go when a line is just one of them. */
const STREAMING = new Set(["kubectl", "watch"]);
const NO_KUBECONFIG: ShellResult = { stdout: "", stderr: "The connection to the server localhost:8080 was refused - did you specify the right host or port?\n", exitCode: 1 };

export class Session {
  readonly cluster: Cluster;
  node = "master";
  /** Nodes this terminal came from with `ssh` (exit goes back). */
  sshStack: string[] = [];
  cwd = HOME;
  namespace = "default";
  vars: Record<string, string>;
  /** The shells (working directory, variables) that `ssh` left, innermost last. */
  private sshFrames: ShellFrame[] = [];
  attached?: AttachRequest;
  /** The node the terminal logged in to: its files are SessionState.files. */
  private readonly home: string;
  /** Each node's own filesystem, made when the terminal first gets there. */
  private readonly shells = new Map<string, NodeShell>();
  private readonly registry: NodeCommands;
  private readonly opts: SessionOptions;
  /** /dev/urandom's words: the cluster's seeded stream, so a replay reads the same bytes. */
  private readonly random = () => this.cluster.rng.get("devrandom").uint32();
  /** The running line's stop (see run). */
  private signal?: AbortSignal;
  /** The running line's time (set by run()). */
  private time: LineTime;
  /** The terminal of the running line while its one command may still take it (see takeTty). */
  private tty?: { write(chunk: string, kept?: boolean): void; name: string };
  /** What the running line wrote to the terminal directly. */
  private streamed = "";
  private columns = 80;
  private fsWrites = 0;
  private kubeconfigSeen?: { key: string; found: boolean };
  /**
   * Each node's shell history (bash's, HISTSIZE lines, HISTCONTROL=ignoredups as Rocky's
   * /etc/profile sets). It is saved with the terminal's other changes, not by itself: a line
   * that changes nothing else (most do not) costs no write, and a terminal restored from its
   * last write may lack the lines typed since, as bash's history file lacks a session's lines
   * until it ends.
   */
  private readonly histories = new Map<string, string[]>();
  /** The commands of the running line whose stdout is the terminal (ls lays out columns there). */
  private ttyCommands?: Set<string>;

  constructor(cluster: Cluster, opts: SessionOptions = {}) {
    this.cluster = cluster;
    this.opts = opts;
    this.registry = opts.nodeCommands ?? defaultRegistry;
    this.time = new LineTime(cluster, clusterTime(cluster));
    const st = opts.state;
    this.vars = st?.vars ?? {};
    this.home = this.node;
    if (st) {
      this.newShell(this.home, st);
      for (const [node, f] of Object.entries(st.nodeFiles ?? {})) this.newShell(node, f);
      this.node = st.node;
      this.sshStack = [...(st.sshStack ?? [])];
      this.sshFrames = (st.sshFrames ?? []).map((f) => ({ cwd: f.cwd, vars: { ...f.vars } }));
      this.cwd = st.cwd;
      this.namespace = st.namespace;
      for (const [node, lines] of Object.entries(st.history ?? {})) this.histories.set(node, [...lines]);
    }
    if (st?.attached) {
      const pod = this.cluster.api.peek(R.pods, st.attached.namespace, st.attached.pod) as Pod | undefined;
      if (pod) this.attached = { pod, container: st.attached.container, shell: st.attached.shell, removeOnExit: st.attached.removeOnExit };
    }
  }

  /** The prompt a terminal shows before the next line. */
  get prompt(): string {
    if (this.attached) return podShellPrompt(this.cluster, this.attached.pod, this.attached.container, this.attached.shell);
    const dir = this.cwd === HOME ? "~" : this.cwd === "/" ? "/" : this.cwd.split("/").pop();
    return `[root@${this.node} ${dir}]# `;
  }

  /** The current node's filesystem and shell. */
  private get shell(): NodeShell {
    return this.shells.get(this.node) ?? this.newShell(this.node, { files: this.initialFiles(this.node) });
  }

  private get fs(): InMemoryFs {
    return this.shell.fs;
  }

  private get bash(): Bash {
    return this.shell.bash;
  }

  private newShell(node: string, saved: SavedFiles): NodeShell {
    const files = { ...saved.files, ...fromBase64Files(saved.binary) };
    // The node's files were laid out when the cluster was set up (kubeadm init and before).
    const fs = boundedFs(files, (f, o) => new ShellFs(f, { random: this.random, installedAt: this.cluster.config.startTime }, o));
    this.countWrites(fs);
    const bash = new Bash({
      fs,
      cwd: HOME,
      env: this.baseEnv(node),
      customCommands: this.commands(),
      commands: commandsWithout(NODE_LACKS),
      executionLimits: {
        maxCommandCount: this.opts.maxCommands ?? 100_000,
        maxLoopIterations: this.opts.maxCommands ?? 100_000,
        maxOutputSize: (this.opts.outputCap ?? DEFAULT_CAP) * 4,
        maxExecutionTimeMs: 30_000,
        maxSedIterations: MAX_SED_ITERATIONS,
        maxAwkIterations: MAX_AWK_ITERATIONS,
        ...MEMORY_LIMITS,
      },
      processInfo: { uid: 0, gid: 0 },
      defenseInDepth: defense(this.opts.defenseInDepth ?? true),
    });
    const shell = { fs, bash, registered: -1 };
    this.shells.set(node, shell);
    // Now rather than at its first line: registering writes the commands' files, and a restored
    // terminal's first line would otherwise look like a change of its files to its host.
    this.syncCommands(shell);
    // Rocky's modes for the directories a listing shows most (the interpreter makes them 755).
    for (const [dir, mode] of NODE_MODES) void fs.chmod(dir, mode);
    fs.restore(saved.dirs, saved.times);
    // From here on a write is the terminal's, at its line's time.
    fs.clock = () => this.time.now();
    return shell;
  }

  private isControlPlane(node: string): boolean {
    return !!this.cluster.config.nodes.find((n) => n.name === node)?.controlPlane;
  }

  /**
   * A node's files as kubeadm leaves them: the admin kubeconfig in ~/.kube only on control-plane
   * nodes (kubectl on a worker has none, as after `kubeadm join`), hostname and hosts.
   */
  private initialFiles(node: string): Record<string, string> {
    const nodeIP = this.cluster.config.nodes.find((n) => n.name === node)?.ip ?? "";
    return {
      ...(this.isControlPlane(node) ? { [`${HOME}/.kube/config`]: kubeconfigText({ cluster: this.cluster, namespace: "default" }, true) } : {}),
      [`${HOME}/.bashrc`]: "# .bashrc\nalias rm='rm -i'\nalias cp='cp -i'\nalias mv='mv -i'\nsource <(kubectl completion bash)\n",
      "/etc/resolv.conf": NODE_RESOLV_CONF,
      "/etc/hostname": `${node}\n`,
      "/etc/hosts": `127.0.0.1   localhost localhost.localdomain localhost4 localhost4.localdomain4\n::1         localhost localhost.localdomain localhost6 localhost6.localdomain6\n${this.cluster.config.nodes.map((n) => `${n.ip} ${n.name}`).join("\n")}\n`,
      "/etc/os-release": 'NAME="Rocky Linux"\nVERSION="9.4 (Blue Onyx)"\nID="rocky"\n',
      "/tmp/.keep": "",
      [`${HOME}/.node-ip`]: nodeIP,
    };
  }

  private baseEnv(node = this.node): Record<string, string> {
    return {
      HOME,
      USER: "root",
      LOGNAME: "root",
      SHELL: "/bin/bash",
      HOSTNAME: node,
      PATH: "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/root/bin",
      LANG: "en_US.UTF-8",
      TERM: "xterm-256color",
      ...(this.isControlPlane(node) ? { KUBECONFIG: `${HOME}/.kube/config` } : {}),
    };
  }

  // -------------------------------------------------------------------------------------------

  /**
   * Runs one command line (in the attached pod's shell if there is one). `signal` stops it (the
   * host's budget, an interrupt: src/runtime/budget.ts); every interpreter the line starts gets
   * it, and so do its waits (`time`). A stopped line keeps what reached the terminal (the host
   * ends it in bash's voice); a command that caught the interrupt (watch) says so (`caught`).
   */
  async run(line: string, opts: RunOptions = {}): Promise<ShellResult> {
    this.signal = opts.signal ?? opts.time?.signal;
    const time = (this.time = opts.time ?? new LineTime(this.cluster, clusterTime(this.cluster), { signal: this.signal }));
    this.streamed = "";
    this.interruptCaught = false;
    this.columns = opts.columns && opts.columns >= 20 && opts.columns <= 1000 ? Math.floor(opts.columns) : 80;
    // A line typed at a terminal (the host says how wide it is): which of its commands write to it.
    this.ttyCommands = opts.columns !== undefined && !this.attached && TTY_AWARE.test(line) ? terminalCommands(line, (l) => this.bash.transform(l).ast) : undefined;
    const write = opts.write;
    const name = write ? terminalCommand(line, (l) => this.bash.transform(l).ast) : undefined;
    this.tty = write && name ? { name, write: (chunk, kept = true) => (kept && (this.streamed += chunk), write(chunk, kept)) } : undefined;
    // Any other line writes each command's output as the command ends (scripts/patch-just-bash.mjs,
    // TTY), stderr and stdout together as a terminal shows them; the result still holds all of
    // it, so what was written is taken off the front of each.
    let wroteOut = "";
    let wroteErr = "";
    if (write && !name && this.signal) {
      const tty = (stdout: string, stderr = "", exitCode = 0) => {
        wroteOut += stdout;
        wroteErr += stderr;
        const chunk = screenOrder(stdout, stderr, exitCode);
        this.streamed += chunk;
        write(chunk, true);
      };
      Object.defineProperty(this.signal, TTY, { value: tty, configurable: true });
    }
    let r: ShellResult;
    try {
      r = await this.runLine(line, opts.stdin ?? "");
      if (wroteOut || wroteErr) r = { ...r, stdout: r.stdout.slice(commonPrefix(r.stdout, wroteOut)), stderr: r.stderr.slice(commonPrefix(r.stderr, wroteErr)) };
    } catch (e) {
      // A full filesystem that the interpreter did not report itself (a redirection's write).
      if (!(e instanceof NoSpaceError)) throw e;
      r = { stdout: "", stderr: `bash: ${e.path}: No space left on device\n`, exitCode: 1 };
    } finally {
      this.signal = undefined;
      this.tty = undefined;
      // Between lines (a real kubectl's exec into a pod) waits move the cluster's own clock.
      this.time = new LineTime(this.cluster, clusterTime(this.cluster));
    }
    this.lastStatus = r.exitCode;
    if (!time.stopped) return this.streamed ? this.capped({ ...r, stdout: this.streamed + r.stdout }) : r;
    // A stopped line keeps what it printed before the stop, as bash had shown it (just-bash's
    // builders pass it on with the abort: scripts/patch-just-bash.mjs, ABORT).
    const aborted = ABORTED.test(r.stderr);
    const out = this.capped({ stdout: this.streamed + r.stdout, stderr: r.stderr, exitCode: r.exitCode });
    return this.interruptCaught ? { ...out, exitCode: aborted ? 0 : out.exitCode, caught: true } : out;
  }
  /** The running line's terminal, for the one command the line is (the first to ask by its name). */
  takeTty(name: string): ((chunk: string, kept?: boolean) => void) | undefined {
    const t = this.tty;
    if (!t || t.name !== name) return undefined;
    this.tty = undefined;
    return t.write;
  }

  /** The running line's time: its source, stop signal and the waits so far. */
  get lineTime(): LineTime {
    return this.time;
  }

  /** The terminal's width (watch's header). */
  get terminalColumns(): number {
    return this.columns;
  }

  /** A command that catches SIGINT and exits on its own (watch) says so: the line is not ended with ^C and 130. */
  caughtInterrupt(): void {
    this.interruptCaught = true;
  }
  private interruptCaught = false;
  /** The last line's exit status: the next line's $?. */
  private lastStatus = 0;

  private async runLine(line: string, stdin: string): Promise<ShellResult> {
    if (this.attached) return this.capped(await this.runAttached(line));
    const trimmed = line.trim();
    this.remember(line);
    if (this.sshStack.length && (trimmed === "exit" || trimmed === "logout" || /^exit\s+\d+$/.test(trimmed))) {
      // Leaving an ssh session: back to the node it was opened from.
      const left = this.node;
      this.node = this.sshStack.pop()!;
      const frame = this.sshFrames.pop();
      if (frame) {
        this.cwd = frame.cwd;
        this.vars = frame.vars;
      }
      return { stdout: "", stderr: `logout\nConnection to ${left} closed.\n`, exitCode: Number(trimmed.split(/\s+/)[1] ?? 0) };
    }
    // The node's commands are on PATH whichever way the line runs (registering them writes files).
    this.syncCommands();
    if (stdin === "" && this.opts.plainKubectl !== false && PLAIN_KUBECTL.test(line)) return this.runPlainKubectl(line);
    const node = this.node;
    const base = this.baseEnv();
    // $? is the status of the line before, as at bash's next prompt: just-bash starts each exec
    // from its instance's own lastExitCode, which no exec updates.
    (this.bash as unknown as { state: { lastExitCode: number } }).state.lastExitCode = this.lastStatus;
    const r = await this.bash.exec(line, { cwd: this.cwd, env: { ...base, ...this.vars }, stdin, rawScript: true, signal: this.signal });
    let cwd = this.cwd;
    let vars = this.vars;
    if (r.env) {
      if (r.env.PWD) cwd = r.env.PWD;
      vars = {};
      for (const [k, v] of Object.entries(r.env)) if (!SHELL_VARS_SKIPPED.has(k) && base[k as keyof typeof base] !== v) vars[k] = v;
    }
    if (this.node !== node) {
      // The line logged in to another node (ssh): this shell waits for `exit`, the new one starts at home.
      this.sshFrames.push({ cwd, vars });
      this.cwd = HOME;
      this.vars = {};
    } else {
      this.cwd = cwd;
      this.vars = vars;
    }
    return this.capped({ stdout: r.stdout, stderr: inShellVoice(NODE_PLACE_VOICE, limitMessage(r.stderr)), exitCode: r.exitCode });
  }

  /** bash adds each line to its history before running it (not a repeat of the last: ignoredups). */
  private remember(line: string): void {
    const text = line.replace(/\n+$/, "");
    if (!text.trim()) return;
    const h = this.histories.get(this.node) ?? [];
    if (h[h.length - 1] === text) return;
    h.push(text);
    if (h.length > HISTSIZE) h.splice(0, h.length - HISTSIZE);
    this.histories.set(this.node, h);
  }

  /**
   * A line of literal words starting with `kubectl` (`kubectl get svc -n web -o wide`): bash would
   * split it on blanks, expand nothing, and run our kubectl with those words, changing neither
   * the directory nor a variable. Going through the interpreter for that costs ~0.6 ms, twenty
   * times the `kubectl get` itself, so such lines call kubectl as bash's command would, with
   * bash's output limit and its message for a command that throws. Functions and aliases do not
   * outlive a line here, and a kubectl file on PATH does not shadow the built-in one, so nothing
   * a student could have defined is bypassed (plain-kubectl.test.ts runs such lines both ways).
   */
  private async runPlainKubectl(line: string): Promise<ShellResult> {
    const args = line.trim().split(/[ \t]+/).slice(1);
    let r: ShellResult;
    try {
      const env = { ...this.baseEnv(), ...this.vars };
      const shell: KubectlShell = { env: (k) => env[k], run: (command) => this.bash.exec(command, { cwd: this.cwd, env, rawScript: true, signal: this.signal }) };
      r = await this.runKubectl(args, this.vars.KUBECONFIG ?? this.baseEnv().KUBECONFIG, this.cwd, "", shell);
    } catch (e) {
      r = { stdout: "", stderr: `kubectl: ${e instanceof Error ? e.message : String(e)}\n`, exitCode: 1 };
    }
    const max = (this.opts.outputCap ?? DEFAULT_CAP) * 4;
    if (utf8Length(r.stdout) + utf8Length(r.stderr) > max) {
      return { stdout: "", stderr: `bash: pipeline: total output size exceeded (>${max} bytes), increase executionLimits.maxOutputSize\n`, exitCode: 126 };
    }
    return this.capped(r);
  }

  private capped(r: ShellResult): ShellResult {
    const cap = this.opts.outputCap ?? DEFAULT_CAP;
    const cut = (s: string) => (s.length > cap ? s.slice(0, cap) + `\n[output truncated: more than ${cap} bytes]\n` : s);
    return { stdout: cut(r.stdout), stderr: cut(r.stderr), exitCode: r.exitCode };
  }

  private async runAttached(line: string): Promise<ShellResult> {
    const a = this.attached!;
    const trimmed = line.trim();
    if (trimmed === "exit" || /^exit\s+\d+$/.test(trimmed) || trimmed === "logout") {
      this.attached = undefined;
      if (a.removeOnExit) {
        const ns = a.pod.metadata.namespace!;
        const name = a.pod.metadata.name!;
        let out = "Session ended, resume using 'kubectl attach " + name + " -c " + a.container + " -i -t' command when the pod is running\n";
        try {
          this.cluster.client.delete(R.pods, ns, name, { gracePeriodSeconds: 0 });
          out = `pod "${name}" deleted\n`;
        } catch {
          /* already gone */
        }
        return { stdout: out, stderr: "", exitCode: 0 };
      }
      return { stdout: "", stderr: "", exitCode: Number(trimmed.split(/\s+/)[1] ?? 0) };
    }
    const pod = (this.cluster.api.peek(R.pods, a.pod.metadata.namespace, a.pod.metadata.name!) as Pod | undefined) ?? a.pod;
    return this.execInPod(pod, a.container, [a.shell, "-c", line], "");
  }

  // -------------------------------------------------------------------------------------------
  // Commands

  private syncCommands(shell = this.shell): void {
    if (shell.registered === this.registry.version) return;
    shell.registered = this.registry.version;
    for (const name of this.registry.names()) shell.bash.registerCommand(this.nodeCommand(name, undefined));
    // The commands' files are programs (the interpreter writes them 644).
    for (const p of shell.fs.getAllPaths()) if (/^\/(usr\/)?bin\/[^/]+$/.test(p)) void shell.fs.chmod(p, 0o755);
  }

  private nodeCommand(name: string, pod: { pod: Pod; container: string } | undefined, fs?: InMemoryFs): Command {
    return defineCommand(name, async (args, ctx) => {
      const fn = this.registry.get(name)!;
      const target = fs ?? this.fs;
      // The environment is copied only if the command reads it: under defense-in-depth ctx.env is
      // a proxy whose every entry is re-wrapped, and most commands (curl, nslookup) never look.
      let env: Record<string, string> | undefined;
      const c: NodeCommandContext = {
        cluster: this.cluster,
        node: pod ? pod.pod.spec.nodeName ?? this.node : this.node,
        pod,
        stdin: decodeStdin(ctx.stdin),
        cwd: ctx.cwd,
        get env() {
          if (!env) {
            env = {};
            for (const [k, v] of ctx.env) env[k] = v;
          }
          return env;
        },
        readFile: (p) => target.readFile(target.resolvePath(ctx.cwd, p)),
        writeFile: (p, content) => target.writeFile(target.resolvePath(ctx.cwd, p), content),
        exists: (p) => target.exists(target.resolvePath(ctx.cwd, p)),
      };
      return fn(args, c);
    });
  }

  /** The node's login shell, as the built-ins see it. */
  private nodePlace(): ShellPlace {
    const ip = this.cluster.config.nodes.find((n) => n.name === this.node)?.ip;
    const node = this.node;
    return {
      voice: "bash",
      name: "bash",
      hostname: node,
      addresses: ip ? [ip] : [],
      id: NODE_ID,
      lacks: NODE_LACKS,
      vi: true,
      coreutils: "8.32",
      selinux: true,
      installedAt: this.cluster.config.startTime,
      now: () => this.time.now(),
      tty: (name) => (this.ttyCommands?.has(name) ? this.columns : undefined),
      history: { lines: () => this.histories.get(node) ?? [], clear: () => this.histories.set(node, []) },
      clear: CLEAR,
      which: true,
    };
  }

  private commands(): Command[] {
    const sleep = this.sleepCommand();
    const watch = watchCommand(this);
    const kubectlCmd = defineCommand("kubectl", async (args, ctx) => {
      // The editor kubectl edit runs is a child of kubectl: the shell's exported variables and a
      // command line run in it (KUBE_EDITOR="sed -i ..." kubectl edit ...).
      const shell: KubectlShell = {
        env: (k) => (ctx.exportedEnv ? ctx.exportedEnv[k] : ctx.env.get(k)),
        run: ctx.exec ? (command) => ctx.exec!(command, { cwd: ctx.cwd }) : undefined,
      };
      return this.runKubectl(args, ctx.env.get("KUBECONFIG"), ctx.cwd, decodeStdin(ctx.stdin), shell, ctx.signal);
    });
    const ssh = defineCommand("ssh", async (args, ctx) => this.ssh(args, ctx.cwd));
    return [...builtinCommands(() => this.nodePlace()), sleep, watch, kubectlCmd, ssh];
  }

  /**
   * coreutils' sleep, the one definition for the node's shell and pods' shells: it waits on the
   * line's time (the cluster follows), and a stop ends it at once (the line then ends as bash
   * ends an interrupted one).
   */
  private sleepCommand(): Command {
    return defineCommand("sleep", async (args, ctx) => {
      const ms = sleepMs(args);
      if (typeof ms === "string") return { stdout: "", stderr: ms, exitCode: 1 };
      const done = await this.time.wait(ms, ctx.signal);
      return { stdout: "", stderr: "", exitCode: done ? 0 : 130 };
    });
  }

  /**
   * `ssh NODE` (or root@NODE, or the node's IP) moves this terminal to another node of the
   * cluster, whose prompt, hostname and rules (iptables-save, ipvsadm, nft, conntrack) are then
   * that node's; `exit` comes back. `ssh NODE COMMAND...` runs one command there.
   */
  private async ssh(args: string[], cwd: string): Promise<ShellResult> {
    // ssh's own options come before the destination; everything after it is the remote command.
    let i = 0;
    while (i < args.length && args[i].startsWith("-")) i += /^-[bcDEeFIiJLlmOopQRSWw]$/.test(args[i]) ? 2 : 1;
    const rest = args.slice(i);
    if (rest.length === 0) {
      return { stdout: "", stderr: "usage: ssh [-46AaCfGgKkMNnqsTtVvXxYy] [-B bind_interface] [-b bind_address]\n           [-c cipher_spec] [-D [bind_address:]port] [-E log_file]\n           [-e escape_char] [-F configfile] [-I pkcs11] [-i identity_file]\n           [-J destination] [-L address] [-l login_name] [-m mac_spec]\n           [-O ctl_cmd] [-o option] [-P tag] [-p port] [-R address]\n           [-S ctl_path] [-W host:port] [-w local_tun[:remote_tun]]\n           destination [command [argument ...]]\n", exitCode: 255 };
    }
    const dest = rest[0].replace(/^[^@]*@/, "");
    const node = this.cluster.config.nodes.find((n) => n.name === dest || n.ip === dest);
    if (!node) {
      const isIP = /^\d+\.\d+\.\d+\.\d+$/.test(dest);
      return {
        stdout: "",
        stderr: isIP ? `ssh: connect to host ${dest} port 22: Connection timed out\n` : `ssh: Could not resolve hostname ${dest}: Name or service not known\n`,
        exitCode: 255,
      };
    }
    const command = rest.slice(1).join(" ");
    if (command) {
      // A fresh shell on that node, in root's home there, with the login environment.
      const here = this.node;
      this.node = node.name;
      try {
        const shell = this.shell;
        this.syncCommands(shell);
        const r = await shell.bash.exec(command, { cwd: HOME, env: this.baseEnv(), rawScript: true, replaceEnv: true, signal: this.signal });
        return { stdout: r.stdout, stderr: r.stderr, exitCode: r.exitCode };
      } finally {
        this.node = here;
      }
    }
    // A login shell on that node: run() keeps this shell's directory and variables for `exit`.
    this.sshStack.push(this.node);
    this.node = node.name;
    // ctime(3) as sshd prints it: "Thu Jan  1 00:00:01 2026".
    const when = new Date(this.cluster.now()).toUTCString().replace(/^(\w+), (\d+) (\w+) (\d+) ([\d:]+) GMT$/, (_m, d, day, mon, y, t) => `${d} ${mon} ${String(Number(day)).padStart(2, " ")} ${t} ${y}`);
    return { stdout: `Last login: ${when} from ${this.cluster.config.nodes[0].ip}\n`, stderr: "", exitCode: 0 };
  }

  /** kubectl on this node; without a kubeconfig (a worker after kubeadm join) it falls back to localhost:8080. */
  private async runKubectl(args: string[], kubeconfigEnv: string | undefined, cwd: string, stdin: string, shell?: KubectlShell, signal?: AbortSignal): Promise<ShellResult> {
    if (!(await this.hasKubeconfig(kubeconfigEnv, cwd)) && needsServer(args)) return { ...NO_KUBECONFIG };
    return kubectl(args, { ...this.kubectlContext(cwd, stdin, shell), ...(signal ? { commandSignal: signal } : {}) });
  }

  /**
   * Whether kubectl finds a kubeconfig on this node: $KUBECONFIG's files, else ~/.kube/config.
   * The answer is kept until a file system write (fsWrites) or another node, directory or
   * $KUBECONFIG: looking the files up cost more than the rest of a plain kubectl line's shell.
   */
  private async hasKubeconfig(env: string | undefined, cwd: string): Promise<boolean> {
    const key = `${this.fsWrites}|${this.node}|${cwd}|${env ?? ""}`;
    if (this.kubeconfigSeen?.key === key) return this.kubeconfigSeen.found;
    const paths = env ? env.split(":").filter(Boolean) : [`${HOME}/.kube/config`];
    let found = false;
    for (const p of paths) if ((found = await this.fs.exists(this.fs.resolvePath(cwd, p)))) break;
    this.kubeconfigSeen = { key, found };
    return found;
  }

  private kubectlContext(cwd: string, stdin: string, shell?: KubectlShell): KubectlContext {
    const fs = this.fs;
    return {
      cluster: this.cluster,
      signal: this.signal,
      namespace: this.namespace,
      setNamespace: (ns) => {
        this.namespace = ns;
        void fs.writeFile(`${HOME}/.kube/config`, kubeconfigText({ cluster: this.cluster, namespace: ns }, true));
      },
      cwd,
      stdin,
      readFile: async (p) => {
        const path = fs.resolvePath(cwd, p);
        const st = await fs.stat(path);
        if (st.isDirectory) throw new Error("is a directory");
        return fs.readFile(path);
      },
      listDir: async (p) => {
        const path = fs.resolvePath(cwd, p);
        if (!(await fs.exists(path))) return undefined;
        const st = await fs.stat(path);
        if (!st.isDirectory) return undefined;
        const out: string[] = [];
        for (const e of (await fs.readdir(path)).sort()) if (!(await fs.stat(`${path}/${e}`)).isDirectory) out.push(e);
        return out;
      },
      editor: this.opts.editor ?? this.opts.hostedEditor?.current,
      getenv: shell?.env,
      runShell: shell?.run,
      writeFile: async (p, text) => {
        await fs.writeFile(fs.resolvePath(cwd, p), text);
      },
      attach: (req) => {
        this.attached = req;
      },
      execInPod: (pod, container, argv, input) => this.execInPod(pod, container, argv, input),
      extraLogs: this.opts.extraLogs,
      time: this.time,
      tty: this.takeTty("kubectl"),
    };
  }

  // -------------------------------------------------------------------------------------------
  // Pod shells

  /**
   * Runs argv in a pod's container: its files (synced back afterwards), environment, hostname and
   * working directory. A shell the image does not have fails as containerd reports it.
   */
  async execInPod(pod: Pod, container: string, argv: string[], stdin: string, signal = this.signal): Promise<ShellResult> {
    // An exec of its own (a real kubectl's, not a terminal line): its waits stop with its signal.
    if (signal !== this.signal) this.time = new LineTime(this.cluster, clusterTime(this.cluster), { signal });
    const kubelet = this.cluster.kubelet;
    const cfs = kubelet.filesystem(pod, container);
    const profile = kubelet.profile(pod, container);
    if (!cfs || !profile) return { stdout: "", stderr: `error: unable to upgrade connection: container not found ("${container}")\n`, exitCode: 1 };
    const shells = profile.shell === "bash" ? ["bash", "sh"] : profile.shell === "sh" ? ["sh", "ash"] : [];
    let bin = argv[0].split("/").pop()!;
    const checkOnly = argv[0] === "__check_shell__";
    if (checkOnly) bin = argv[1];
    const isShell = /^(sh|bash|ash|zsh|dash)$/.test(bin);
    if ((isShell && !shells.includes(bin)) || (!isShell && !shells.length)) return runtimeNotFound(pod, checkOnly ? argv[1] : argv[0], this.cluster.now());
    if (checkOnly) return { stdout: "", stderr: "", exitCode: 0 };
    // The container's files in a scratch filesystem; what changed is written back.
    const before = new Map<string, string>();
    for (const f of cfs.allFiles()) {
      try {
        before.set(f, cfs.read(f));
      } catch {
        /* unreadable */
      }
    }
    const readOnly = cfs.readOnlyPaths();
    const isReadOnly = (p: string) => readOnly.some((r) => p === r || p.startsWith(`${r}/`));
    const layout = kubelet.volumeLayout(pod, container);
    const files: Record<string, string> = {};
    for (const [p, content] of before) if (!layout.some((v) => p.startsWith(`${v.dir}/`))) files[p] = content;
    // A configMap directory volume as the kubelet's atomic writer leaves it: the data in a
    // timestamped directory, `..data` a symlink to it, each key a symlink. The kubelet's key links
    // go through ..data (`..data/KEY`); just-bash's file system follows one level of links only,
    // so here they name the timestamped directory itself.
    const links: [string, string][] = [];
    for (const v of layout) {
      for (const [p, content] of before) {
        if (!p.startsWith(`${v.dir}/`)) continue;
        const key = p.slice(v.dir.length + 1);
        files[`${v.dir}/${v.stamp}/${key}`] = content;
        links.push([`${v.stamp}/${key}`, p]);
      }
      links.push([v.stamp, `${v.dir}/..data`]);
    }
    // The container's files are as old as the container (what an exec wrote is not dated).
    const started = pod.status?.containerStatuses?.find((s) => s.name === container)?.state?.running?.startedAt;
    const mem = boundedFs(files, (f, o) => new ShellFs(f, { random: this.random, installedAt: started ? Date.parse(started) : this.cluster.now() }, o));
    for (const d of ["/tmp", "/root", "/home", cfs.workingDir, ...cfs.directories(), ...layout.map((v) => v.dir)]) await mem.mkdir(d, { recursive: true }).catch(() => {});
    for (const [target, link] of links) await mem.symlink(target, link);
    mem.readOnly = readOnly.length ? isReadOnly : undefined;
    mem.clock = () => this.time.now();
    const env = Object.fromEntries(kubelet.environment(pod, container, false));
    const host = pod.spec.hostname ?? pod.metadata.name!;
    const userland = profile.userland;
    const voice = bin === "bash" ? "bash" : userland.sh;
    const lacks = new Set(userland.lacks);
    const place: ShellPlace = {
      voice,
      name: bin === "bash" ? "bash" : "sh",
      hostname: host,
      addresses: userland.sh === "ash" ? undefined : [pod.status?.podIP ?? ""],
      id: userland.id,
      lacks,
      vi: false,
      coreutils: userland.coreutils,
      selinux: false,
      installedAt: started ? Date.parse(started) : this.cluster.now(),
      now: () => this.time.now(),
    };
    const podRef = { pod, container };
    const tools = this.registry.names().filter((n) => !userland.tools || userland.tools.includes(n));
    const custom: Command[] = [...builtinCommands(() => place), this.sleepCommand(), ...tools.map((n) => this.nodeCommand(n, podRef, mem))];
    const bash = new Bash({
      fs: mem,
      cwd: cfs.workingDir,
      env: { ...env, HOSTNAME: host, HOME: "/root" },
      customCommands: custom,
      commands: commandsWithout(lacks),
      executionLimits: { maxCommandCount: this.opts.maxCommands ?? 100_000, maxLoopIterations: this.opts.maxCommands ?? 100_000, maxSedIterations: MAX_SED_ITERATIONS, maxAwkIterations: MAX_AWK_ITERATIONS, ...MEMORY_LIMITS },
      processInfo: { uid: 0, gid: 0 },
      defenseInDepth: defense(this.opts.defenseInDepth ?? true),
    });
    // A program the container does not have fails in the runtime, before any shell runs.
    if (!isShell) {
      // A path names a file (just-bash's `command -v` finds names on PATH only).
      const found = argv[0].includes("/")
        ? (await mem.exists(mem.resolvePath(cfs.workingDir, argv[0]))) && !(await mem.stat(mem.resolvePath(cfs.workingDir, argv[0]))).isDirectory
        : (await bash.exec(`command -v -- ${shellQuote(argv[0])}`, { rawScript: true, replaceEnv: true, env: { ...env, HOME: "/root" } })).exitCode === 0;
      if (!found) return runtimeNotFound(pod, argv[0], this.cluster.now());
    }
    let script: string;
    if (isShell) {
      const c = argv.indexOf("-c");
      script = c >= 0 ? argv[c + 1] ?? "" : stdin;
    } else {
      script = argv.map(shellQuote).join(" ");
    }
    const r = await bash.exec(script, { stdin, rawScript: true, replaceEnv: true, env: { ...env, HOSTNAME: host, HOME: "/root", PWD: cfs.workingDir }, signal });
    // Write back what the command changed (nothing under a read-only volume can have).
    const after = new Set(mem.getAllPaths().filter((p) => !isReadOnly(p)));
    for (const p of after) {
      let st;
      try {
        st = await mem.stat(p);
      } catch {
        continue;
      }
      if (st.isDirectory) {
        if (!cfs.isDir(p)) cfs.mkdir(p);
        continue;
      }
      const content = await mem.readFile(p);
      if (before.get(p) === content) continue;
      try {
        cfs.write(p, content);
      } catch (e) {
        if (!(e instanceof FsError)) throw e;
      }
    }
    for (const p of before.keys()) {
      if (!after.has(p) && !isReadOnly(p)) {
        try {
          cfs.remove(p);
        } catch {
          /* read-only mount */
        }
      }
    }
    return { stdout: r.stdout, stderr: inShellVoice(place, limitMessage(r.stderr)), exitCode: r.exitCode };
  }

  // -------------------------------------------------------------------------------------------
  // Snapshots

  /** Counts a node file system's writes, for revision(). */
  private countWrites(fs: InMemoryFs): void {
    const methods = fs as unknown as Record<string, (...a: unknown[]) => unknown>;
    for (const m of FS_WRITES) {
      const f = methods[m];
      if (typeof f !== "function") continue;
      methods[m] = (...a: unknown[]) => {
        this.fsWrites++;
        return f.apply(fs, a);
      };
    }
  }

  /** A value that changes whenever save() may return something new: hosts skip saving otherwise. */
  revision(): string {
    const a = this.attached;
    const attached = a ? `${a.pod.metadata.namespace}/${a.pod.metadata.name}/${a.container}/${a.shell}/${a.removeOnExit}` : "";
    return `${this.fsWrites}|${this.shells.size}|${this.node}|${this.sshStack.join(",")}|${JSON.stringify(this.sshFrames)}|${this.cwd}|${this.namespace}|${attached}|${JSON.stringify(this.vars)}`;
  }

  /** The terminal's state as JSON: files, working directory, variables, namespace, attachment. */
  save(): SessionState {
    const home = this.shells.get(this.home);
    const { files, binary, times, dirs } = home ? filesOf(home.fs) : { files: this.initialFiles(this.home), binary: undefined, times: undefined, dirs: undefined };
    const nodeFiles: NonNullable<SessionState["nodeFiles"]> = {};
    for (const [node, shell] of this.shells) if (node !== this.home) nodeFiles[node] = filesOf(shell.fs);
    return {
      version: 1,
      node: this.node,
      ...(this.sshStack.length ? { sshStack: [...this.sshStack], sshFrames: this.sshFrames.map((f) => ({ cwd: f.cwd, vars: { ...f.vars } })) } : {}),
      cwd: this.cwd,
      vars: { ...this.vars },
      namespace: this.namespace,
      files,
      ...(binary ? { binary } : {}),
      ...(times ? { times } : {}),
      ...(dirs ? { dirs } : {}),
      ...(Object.keys(nodeFiles).length ? { nodeFiles } : {}),
      ...(this.histories.size ? { history: Object.fromEntries([...this.histories].map(([n, h]) => [n, [...h]])) } : {}),
      ...(this.attached
        ? { attached: { namespace: this.attached.pod.metadata.namespace!, pod: this.attached.pod.metadata.name!, container: this.attached.container, shell: this.attached.shell, removeOnExit: this.attached.removeOnExit } }
        : {}),
    };
  }

  /** Reads a file of the node's filesystem (tests, hosts). */
  readFile(path: string): Promise<string> {
    return this.fs.readFile(this.fs.resolvePath(this.cwd, path));
  }
}

/**
 * The command a line is, when it is only that one command with its stdout on the terminal (no
 * pipe, redirection, list, substitution or assignment) and one that streams: its name.
 */
function terminalCommand(line: string, parse: (line: string) => ReturnType<Bash["transform"]>["ast"]): string | undefined {
  const first = /^\s*([A-Za-z]+)/.exec(line)?.[1];
  if (!first || !STREAMING.has(first)) return undefined;
  // Parsed by the session's Bash (transform with no plugins: the AST alone), not just-bash's
  // `parse` export: the Worker's browser build exports none, and both hosts stream alike.
  let script;
  try {
    script = parse(line);
  } catch {
    return undefined;
  }
  if (script.statements.length !== 1) return undefined;
  const st = script.statements[0];
  if (st.background || st.pipelines.length !== 1 || st.pipelines[0].commands.length !== 1) return undefined;
  const cmd = st.pipelines[0].commands[0];
  if (cmd.type !== "SimpleCommand" || cmd.assignments.length || cmd.redirections.length) return undefined;
  // A substitution in a word runs a command before this one (it could take the terminal).
  if (/Substitution|Arithmetic/.test(JSON.stringify(cmd.args))) return undefined;
  return first;
}

/**
 * The commands of a line whose stdout is the terminal wherever they appear: the last of a
 * pipeline, no stdout redirection on them or around them, not inside a substitution or a
 * function (whose caller decides).
 */
function terminalCommands(line: string, parse: (line: string) => ReturnType<Bash["transform"]>["ast"]): Set<string> {
  let script;
  try {
    script = parse(line);
  } catch {
    return new Set();
  }
  const on = new Set<string>();
  const off = new Set<string>();
  const redirectsStdout = (rs: unknown) =>
    Array.isArray(rs) && rs.some((r: { operator: string; fd: number | null }) => [">", ">>", ">|", "&>", "&>>", ">&"].includes(r.operator) && (r.fd === null || r.fd === 1));
  const literal = (w: { parts?: { type: string; value?: string }[] } | null) => (w?.parts?.length === 1 && w.parts[0].type === "Literal" ? w.parts[0].value : undefined);
  const visit = (node: unknown, tty: boolean): void => {
    if (!node || typeof node !== "object") return;
    if (Array.isArray(node)) return node.forEach((n) => visit(n, tty));
    const n = node as Record<string, unknown> & { type?: string };
    if (n.type === "Pipeline") {
      const cmds = n.commands as unknown[];
      cmds.forEach((c, i) => visit(c, tty && i === cmds.length - 1));
      return;
    }
    if (n.type === "CommandSubstitution" || n.type === "ProcessSubstitution" || n.type === "FunctionDef") tty = false;
    if (redirectsStdout(n.redirections)) tty = false;
    if (n.type === "SimpleCommand") {
      const name = literal(n.name as never);
      if (name) (tty ? on : off).add(name);
    }
    for (const v of Object.values(n)) visit(v, n.type === "SimpleCommand" ? false : tty);
  };
  visit(script, true);
  for (const name of off) on.delete(name);
  return on;
}

/** Whether a kubectl command line talks to the apiserver (help, completion, config and the client version do not). */
function needsServer(args: string[]): boolean {
  const verb = args.find((a) => !a.startsWith("-"));
  if (!verb || args.includes("--help") || args.includes("-h")) return false;
  if (verb === "version") return !args.includes("--client");
  return !["help", "completion", "config", "options", "plugin"].includes(verb);
}

/**
 * A filesystem's files for a snapshot: text as is, other bytes (a downloaded .tar.gz) base64,
 * with the times of what was written since the installation and the empty directories.
 */
function filesOf(fs: ShellFs): SavedFiles {
  const files: Record<string, string> = {};
  const binary: Record<string, string> = {};
  const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false });
  for (const p of fs.getAllPaths()) {
    const e = (fs as unknown as { data: Map<string, { type: string; content?: unknown }> }).data?.get(p);
    if (!e || e.type !== "file") continue;
    if (typeof e.content === "string") files[p] = e.content;
    else {
      try {
        files[p] = utf8.decode(e.content as Uint8Array);
      } catch {
        binary[p] = toBase64(e.content as Uint8Array);
      }
    }
  }
  const out: SavedFiles = Object.keys(binary).length ? { files, binary } : { files };
  const times = fs.changedTimes();
  const dirs = fs.emptyDirectories();
  if (Object.keys(times).length) out.times = times;
  if (dirs.length) out.dirs = dirs;
  return out;
}

const UTF8 = new TextDecoder();
const ASCII = /^[\x00-\x7f]*$/;

/** A command's stdin as text: just-bash hands over bytes, or a string of byte values (latin1). */
function decodeStdin(s: unknown): string {
  // A string of byte values below 0x80 is the same text in UTF-8.
  if (typeof s === "string" && ASCII.test(s)) return s;
  return UTF8.decode(toBytes(s));
}

function toBytes(s: unknown): Uint8Array {
  if (typeof s === "string") return Uint8Array.from(s, (c) => c.charCodeAt(0));
  return (s as Uint8Array) ?? new Uint8Array();
}

function toBase64(b: Uint8Array): string {
  let s = "";
  for (let i = 0; i < b.length; i += 0x8000) s += String.fromCharCode(...b.subarray(i, i + 0x8000));
  return btoa(s);
}

function fromBase64Files(files: Record<string, string> | undefined): Record<string, Uint8Array> {
  const out: Record<string, Uint8Array> = {};
  for (const [p, b64] of Object.entries(files ?? {})) out[p] = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
  return out;
}

function shellQuote(s: string): string {
  return /^[A-Za-z0-9_\-./=:,@%+]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

/** containerd's answer to an exec of a program the image does not have (kubectl prints it, exits 1). */
function runtimeNotFound(pod: Pod, program: string, now: number): ShellResult {
  const id = execId(pod.metadata.uid ?? "", now);
  return {
    stdout: "",
    stderr: `error: Internal error occurred: error executing command in container: failed to exec in container: failed to start exec "${id}": OCI runtime exec failed: exec failed: unable to start container process: exec: "${program}": executable file not found in $PATH: unknown\n`,
    exitCode: 126,
  };
}

function execId(uid: string, now: number): string {
  let h1 = 0x811c9dc5;
  let out = "";
  const input = `${uid}/${now}`;
  for (let round = 0; round < 8; round++) {
    for (let i = 0; i < input.length; i++) h1 = Math.imul(h1 ^ input.charCodeAt(i), 0x01000193) >>> 0;
    h1 = Math.imul(h1 ^ round, 0x01000193) >>> 0;
    out += h1.toString(16).padStart(8, "0");
  }
  return out;
}

/** just-bash's limit texts, said the way a student can act on. */
function limitMessage(stderr: string): string {
  return stderr
    .replace(/(sed|awk): \1: (?:command execution|while loop|for loop|do-while loop) exceeded maximum iterations \((\d+)\)\n?/g, (_m, tool: string, n: string) => `${tool}: execution limit reached: more than ${n} ${tool === "sed" ? "branch" : "loop"} iterations in one script; stopped\n`)
    .replace(/bash: too many (commands executed|loop iterations) \(>(\d+)\), increase executionLimits\.\w+\n?/g, (_m, what: string, n: string) => `bash: execution limit reached: more than ${n} ${what === "commands executed" ? "commands" : "loop iterations"} in one command line; stopped\n`);
}
