// Tab completion in the terminal: commands, kubectl's subcommands and flags, resource kinds, and
// the names of the objects the cluster holds now (from the workspace's cluster view).
import type { Graph } from "./api";

const COMMANDS = ["kubectl", "curl", "wget", "iptables-save", "iptables", "ipvsadm", "ipset", "nft", "conntrack", "nslookup", "dig", "host", "ping", "ip", "ssh", "explain", "cat", "ls", "cd", "echo", "grep", "sed", "awk", "sort", "uniq", "head", "tail", "wc", "mkdir", "rm", "cp", "mv", "vi", "env", "export", "sleep", "for", "while", "clear", "exit", "history"];
const KUBECTL = ["get", "describe", "create", "apply", "delete", "edit", "scale", "expose", "run", "exec", "logs", "label", "annotate", "patch", "replace", "rollout", "set", "explain", "diff", "wait", "cordon", "uncordon", "drain", "taint", "top", "config", "version", "cluster-info", "api-resources", "api-versions", "port-forward", "cp", "auth", "attach"];
const KINDS = ["pods", "services", "deployments", "replicasets", "endpoints", "endpointslices", "configmaps", "secrets", "namespaces", "nodes", "daemonsets", "statefulsets", "events", "ipaddresspools", "l2advertisements", "all", "svc", "deploy", "po", "cm", "ns", "ep", "rs", "ds", "sts"];
const CREATE = ["deployment", "service", "configmap", "namespace", "secret", "job"];
const ROLLOUT = ["status", "restart", "history", "undo", "pause", "resume"];

function namesFor(kind: string, g: Graph | undefined): string[] {
  if (!g) return [];
  const k = kind.split("/")[0].toLowerCase();
  if (/^(po|pod|pods)$/.test(k)) return g.pods.map((p) => p.name);
  if (/^(svc|service|services)$/.test(k)) return g.services.map((s) => s.name);
  if (/^(deploy|deployment|deployments)$/.test(k)) return g.deployments.map((d) => d.name);
  if (/^(no|node|nodes)$/.test(k)) return g.nodes.map((n) => n.name);
  if (/^(ep|endpoints|endpointslices?)$/.test(k)) return g.services.map((s) => s.name);
  return [];
}

/** Candidates for the word at the end of `line`. */
export function complete(line: string, g: Graph | undefined): { word: string; candidates: string[] } {
  const words = line.split(/\s+/);
  const word = words.pop() ?? "";
  const prev = words.filter((w) => w && !w.startsWith("-"));
  let pool: string[];
  if (prev.length === 0 || /[;|&]$/.test(words.at(-1) ?? "")) pool = COMMANDS;
  else if (prev[0] === "kubectl") {
    const verb = prev[1];
    if (!verb) pool = KUBECTL;
    else if (verb === "create" && prev.length === 2) pool = CREATE;
    else if (verb === "rollout" && prev.length === 2) pool = ROLLOUT;
    else if ((verb === "exec" || verb === "logs" || verb === "attach") && prev.length === 2) pool = namesFor("pods", g);
    else if (verb === "expose" && prev.length === 2) pool = ["deployment", "service", "pod", "replicaset"];
    else if (["get", "describe", "delete", "edit", "label", "annotate", "patch", "scale", "expose", "wait"].includes(verb) && prev.length === 2) pool = KINDS;
    else if (verb === "rollout" && prev.length === 3) pool = ["deployment", "daemonset", "statefulset"];
    else if (prev.length >= 3) pool = namesFor(prev[prev.length - 1], g);
    else pool = [];
    if (word.startsWith("-")) pool = ["--namespace", "--all-namespaces", "--output", "--selector", "--replicas", "--image", "--port", "--target-port", "--type", "--dry-run=client", "--show-labels", "--watch", "-o", "-n", "-l", "-A", "-it", "-f"];
  } else if (prev[0] === "ssh") pool = namesFor("nodes", g);
  else pool = [];
  return { word, candidates: [...new Set(pool)].filter((c) => c.startsWith(word)).sort() };
}

export function commonPrefix(words: string[]): string {
  if (!words.length) return "";
  let p = words[0];
  for (const w of words) while (!w.startsWith(p)) p = p.slice(0, -1);
  return p;
}
