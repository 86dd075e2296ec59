// What the route modules (src/http/routes/) share: the app's dependencies and clock, who the
// request is (auth.ts), how a cluster is made (make-cluster.ts), a classroom student's time.
import type { ClusterRow } from "../db/platform.js";
import type { AppDeps } from "./app.js";
import type { Auth } from "./auth.js";
import type { ClassroomTime } from "./classroom-time.js";
import type { clusterMaker } from "./make-cluster.js";

export type AppContext = Auth &
  ReturnType<typeof clusterMaker> & {
    deps: AppDeps;
    now: () => number;
    /** A classroom student's time (undefined for other clusters), read again every few seconds. */
    classTime: ((row: ClusterRow) => Promise<ClassroomTime | undefined>) & { forget(classroomId: string): void };
  };
