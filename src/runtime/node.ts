// `npm start`: the embedded ServiceLab on PORT (8787) with its data in SERVICELAB_DATA_DIR
// (.data/), and the Kubernetes API over TLS on KUBE_PORT (default PORT+1: 8788; with PORT=0, any
// free port; `off`: none). Local mode lets anyone create clusters; SERVICELAB_ANONYMOUS=0
// requires a tenant key.
import { startNodeServer } from "./node-server.js";
import { shellFactory } from "./terminal.js";

const env = process.env;
const port = Number(env.PORT ?? 8787);
const kubePort = env.KUBE_PORT === "off" ? undefined : env.KUBE_PORT ? Number(env.KUBE_PORT) : port === 0 ? 0 : port + 1;
const s = await startNodeServer({
  port,
  kubePort,
  hostname: env.HOST ?? "127.0.0.1",
  dataDir: env.SERVICELAB_DATA_DIR ?? ".data",
  allowAnonymous: env.SERVICELAB_ANONYMOUS !== "0",
  adminKey: env.SERVICELAB_ADMIN_KEY || undefined,
  idleMs: Number(env.SERVICELAB_IDLE_MINUTES ?? 120) * 60_000,
  shell: await shellFactory(),
});
console.log(`servicelab: listening on http://${env.HOST ?? "127.0.0.1"}:${s.port} (data in ${env.SERVICELAB_DATA_DIR ?? ".data"})`);
if (s.kubePort !== undefined) console.log(`servicelab: Kubernetes API on https://${env.HOST ?? "127.0.0.1"}:${s.kubePort} (kubeconfig: GET /v1/clusters/{id}/kubeconfig)`);

const stop = () => {
  void s.close().then(() => process.exit(0));
};
process.on("SIGINT", stop);
process.on("SIGTERM", stop);
