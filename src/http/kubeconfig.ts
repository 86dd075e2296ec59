// A kubeconfig for real kubectl: the server is this origin's /k8s/{id}, the user the cluster token.
export function kubeconfig(origin: string, id: string, token: string): string {
  const name = `servicelab-${id}`;
  return [
    "apiVersion: v1",
    "kind: Config",
    "clusters:",
    `- name: ${name}`,
    "  cluster:",
    `    server: ${origin}/k8s/${id}`,
    "contexts:",
    `- name: ${name}`,
    "  context:",
    `    cluster: ${name}`,
    `    user: ${name}`,
    "    namespace: default",
    `current-context: ${name}`,
    "preferences: {}",
    "users:",
    `- name: ${name}`,
    "  user:",
    `    token: ${token}`,
    "",
  ].join("\n");
}
