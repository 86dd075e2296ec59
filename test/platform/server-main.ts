// The Node server as a child process for the kill -9 test: the real startNodeServer with the
// test terminal, on PORT with SERVICELAB_DATA_DIR, printing "ready <port>" when it listens.
import { startNodeServer } from "../../src/runtime/node-server.js";
import { testShell } from "./runner.js";

const s = await startNodeServer({
  port: Number(process.env.PORT ?? 0),
  dataDir: process.env.SERVICELAB_DATA_DIR ?? ".data",
  allowAnonymous: true,
  adminKey: "admin-test-key",
  idleMs: 3_600_000,
  shell: testShell,
});
console.log(`ready ${s.port}`);
