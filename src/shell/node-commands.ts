// The extension point for commands that need the network data plane (curl, wget, ping,
// nslookup, dig, host, iptables-save, iptables, ipvsadm, ipset, nft, conntrack, ip). The network
// module registers them here; the terminal offers them on nodes and, with `pod` set, in pods.

import type { Pod } from "../engine/api/types.js";
import type { Cluster } from "../engine/cluster.js";

export interface NodeCommandContext {
  cluster: Cluster;
  /** The node the command runs on ("master", "node1", ...). */
  node: string;
  /** Set when the command runs inside a pod (kubectl exec / run -it): its source address is the pod's. */
  pod?: { pod: Pod; container: string };
  stdin: string;
  cwd: string;
  env: Record<string, string>;
  /** Reads a file of the current filesystem (node or container). */
  readFile(path: string): Promise<string>;
  /** Writes a file (bytes for downloads such as a .tar.gz). */
  writeFile(path: string, content: string | Uint8Array): Promise<void>;
  /** Whether a path exists in the current filesystem. */
  exists?(path: string): Promise<boolean>;
}

export interface NodeCommandResult {
  stdout: string;
  stderr: string;
  exitCode: number;
}

export type NodeCommand = (args: string[], ctx: NodeCommandContext) => Promise<NodeCommandResult> | NodeCommandResult;

export class NodeCommands {
  private readonly commands = new Map<string, NodeCommand>();
  /** Bumped on every registration, so sessions pick up commands registered after they started. */
  version = 0;
  register(name: string, fn: NodeCommand): this {
    this.commands.set(name, fn);
    this.version++;
    return this;
  }
  get(name: string): NodeCommand | undefined {
    return this.commands.get(name);
  }
  names(): string[] {
    return [...this.commands.keys()].sort();
  }
}

/** The registry sessions use unless given another one. */
export const nodeCommands = new NodeCommands();
