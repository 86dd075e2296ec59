// Table rows of the kinds kubectl's default prune list needs served beyond the workloads and
// services of table.ts: ReplicationController, PersistentVolume(Claim), Ingress(Class), as
// printers.go (v1.33) prints them. Functions of table.ts are read only when a row is printed.

import { age, c, containersAndImages, formatLabels, type TableDef } from "./table.js";

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Obj = any;

export const KIND_TABLES: Record<string, TableDef> = {
  ReplicationController: {
    columns: [c("NAME"), c("DESIRED"), c("CURRENT"), c("READY"), c("AGE"), c("CONTAINERS", 1), c("IMAGES", 1), c("SELECTOR", 1)],
    row: (r: Obj, now) => [
      r.metadata.name,
      String(r.spec?.replicas ?? 0),
      String(r.status?.replicas ?? 0),
      String(r.status?.readyReplicas ?? 0),
      age(r, now),
      ...containersAndImages(r.spec?.template?.spec),
      formatLabels(r.spec?.selector),
    ],
  },
};
