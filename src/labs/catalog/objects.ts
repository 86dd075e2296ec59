// Manifests that several labs start from.

/** The lab guide §3.1 Deployment: `kubectl create deployment web --image=...httpd:2.4.58 --replicas=3`. */
export const httpdWeb = {
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
