// The prompt of a pod's shell: the terminal's kubectl exec -it and a real kubectl's (through
// src/kubeapi's exec streams) print the same one.
import type { Pod } from "../engine/api/types.js";
import type { Cluster } from "../engine/cluster.js";

/** bash's "root@<hostname>:<dir># ", busybox sh's "<dir> # ". */
export function podShellPrompt(cluster: Cluster, pod: Pod, container: string, shell: string): string {
  const host = pod.spec.hostname ?? pod.metadata.name!;
  const dir = cluster.kubelet.filesystem(pod, container)?.workingDir ?? "/";
  return shell === "bash" ? `root@${host}:${dir}# ` : `${dir} # `;
}
