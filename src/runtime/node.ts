// `npm start`: the embedded ServiceLab on PORT (8787) with its data in SERVICELAB_DATA_DIR
// (.data/). Local mode lets anyone create clusters; SERVICELAB_ANONYMOUS=0 requires a tenant key.
import { startNodeServer } from "./node-server.js";
import { shellFactory } from "./terminal.js";

const env = process.env;
const s = await startNodeServer({
  port: Number(env.PORT ?? 8787),
  hostname: env.HOST ?? "127.0.0.1",
  dataDir: env.SERVICELAB_DATA_DIR ?? ".data",
  allowAnonymous: env.SERVICELAB_ANONYMOUS !== "0",
  adminKey: env.SERVICELAB_ADMIN_KEY || undefined,
  idleMs: Number(env.SERVICELAB_IDLE_MINUTES ?? 120) * 60_000,
  shell: await shellFactory(),
});
console.log(`servicelab: listening on http://${env.HOST ?? "127.0.0.1"}:${s.port} (data in ${env.SERVICELAB_DATA_DIR ?? ".data"})`);

const stop = () => {
  void s.close().then(() => process.exit(0));
};
process.on("SIGINT", stop);
process.on("SIGTERM", stop);
