/** Where a kubeconfig sends kubectl: a server URL and, for a server of our own CA, that CA (PEM). */
export interface KubeServer {
  server: string;
  certificateAuthority?: string;
}

// A kubeconfig for real kubectl: the cluster's API server (the Node server's TLS port, whose
// CA it carries, or /k8s/{id} of this origin), the user the cluster token. kubectl sends the
// token only when the server is https (client-go applies a bearer token only over TLS).
export function kubeconfig(target: KubeServer, id: string, token: string): string {
  const name = `servicelab-${id}`;
  return [
    "apiVersion: v1",
    "kind: Config",
    "clusters:",
    `- name: ${name}`,
    "  cluster:",
    ...(target.certificateAuthority ? [`    certificate-authority-data: ${btoa(target.certificateAuthority)}`] : []),
    `    server: ${target.server}`,
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
