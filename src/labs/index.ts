// Lab definitions as data: a lab is a cluster config and the objects it starts with, written
// through the apiserver like any client write (so they are validated and defaulted).

export interface LabObject {
  /** apiVersion/kind are in the manifest; this is the object as `kubectl apply -f` would send it. */
  manifest: Record<string, unknown>;
}

export interface Lab {
  id: string;
  title: string;
  description: string;
  objects: Record<string, unknown>[];
}

const webDeployment = {
  apiVersion: "apps/v1",
  kind: "Deployment",
  metadata: { name: "web", namespace: "default", labels: { app: "web" } },
  spec: {
    replicas: 3,
    selector: { matchLabels: { app: "web" } },
    template: {
      metadata: { labels: { app: "web" } },
      spec: { containers: [{ name: "httpd", image: "hub.laoma.cloud/library/httpd:2.4.58" }] },
    },
  },
};

export const LABS: Record<string, Lab> = {
  empty: {
    id: "empty",
    title: "Empty cluster",
    description: "A kubeadm v1.33 cluster (master, node1, node2) with only its system pods.",
    objects: [],
  },
  "clusterip-web": {
    id: "clusterip-web",
    title: "ClusterIP: the web Deployment",
    description:
      "The lab guide's `kubectl create deployment web --image=hub.laoma.cloud/library/httpd:2.4.58 --replicas=3`, already applied: expose it and read the rules.",
    objects: [webDeployment],
  },
};

export function lab(id: string): Lab | undefined {
  return Object.hasOwn(LABS, id) ? LABS[id] : undefined;
}
