// A minimal ShellRunner for platform tests only (the real terminal is src/shell): enough
// commands to write objects, keep state between calls and print a lot.
import { R } from "../../src/engine/api/resources.js";
import type { ShellFactory } from "../../src/runtime/shell.js";

export const testShell: ShellFactory = (cluster, saved) => {
  const state = { cwd: "/root", ...(saved as { cwd?: string } | null) };
  return {
    save: () => state,
    run(line) {
      const [cmd, ...args] = line.trim().split(/\s+/);
      const ok = (stdout: string) => ({ stdout, stderr: "", exitCode: 0 });
      switch (cmd) {
        case "echo":
          return ok(args.join(" ") + "\n");
        case "cd":
          state.cwd = args[0] ?? "/root";
          return ok("");
        case "pwd":
          return ok(state.cwd + "\n");
        case "big":
          return ok("x".repeat(Number(args[0])));
        case "create-pods": {
          // create-pods <prefix> <n>
          for (let i = 0; i < Number(args[1] ?? 1); i++) {
            cluster.client.create(R.configmaps, "default", { apiVersion: "v1", kind: "ConfigMap", metadata: { name: `${args[0]}-${i}` }, data: { n: String(i) } });
          }
          return ok("");
        }
        case "create-cm":
          cluster.client.create(R.configmaps, "default", { apiVersion: "v1", kind: "ConfigMap", metadata: { name: args[0] }, data: { v: args[1] ?? "" } });
          return ok(`configmap/${args[0]} created\n`);
        case "get-cm":
          return ok(cluster.client.list(R.configmaps, "default").items.map((o) => o.metadata.name).join("\n") + "\n");
        case "create-pod":
          cluster.client.create(R.pods, "default", {
            apiVersion: "v1",
            kind: "Pod",
            metadata: { name: args[0], labels: { app: "t" } },
            spec: { containers: [{ name: "c", image: "busybox" }] },
          });
          return ok(`pod/${args[0]} created\n`);
        case "get-pods":
          return ok(cluster.client.list(R.pods, "default").items.map((o) => o.metadata.name).join("\n") + "\n");
        default:
          return { stdout: "", stderr: `${cmd}: command not found\n`, exitCode: 127 };
      }
    },
  };
};
