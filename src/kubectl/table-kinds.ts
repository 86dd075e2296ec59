// Table rows of the kinds kubectl's default prune list needs served beyond the workloads and
// services of table.ts: ReplicationController, PersistentVolume(Claim), Ingress(Class), as
// printers.go (v1.33) prints them. Functions of table.ts are read only when a row is printed.

import { accessModesString, ingressAddress, pvcClass, pvClass, quantityString } from "./describe-kinds.js";
import { age, c, containersAndImages, formatLabels, type TableDef } from "./table.js";

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Obj = any;

/**
 * The table of a ReplicaSet or a ReplicationController (printers.go prints both alike); only
 * their selectors differ in form (a LabelSelector, a label map).
 * Here, not in table.ts, which reads it at load: table.ts imports this module first.
 */
export function replicasTable(selector: (sel: Obj) => string): TableDef {
  return {
    columns: [c("NAME"), c("DESIRED"), c("CURRENT"), c("READY"), c("AGE"), c("CONTAINERS", 1), c("IMAGES", 1), c("SELECTOR", 1)],
    row: (r: Obj, now: number) => [
      r.metadata.name,
      String(r.spec?.replicas ?? 0),
      String(r.status?.replicas ?? 0),
      String(r.status?.readyReplicas ?? 0),
      age(r, now),
      ...containersAndImages(r.spec?.template?.spec),
      selector(r.spec?.selector),
    ],
  };
}

export const KIND_TABLES: Record<string, TableDef> = {
  ReplicationController: replicasTable(formatLabels),
  PersistentVolume: {
    columns: [c("NAME"), c("CAPACITY"), c("ACCESS MODES"), c("RECLAIM POLICY"), c("STATUS"), c("CLAIM"), c("STORAGECLASS"), c("VOLUMEATTRIBUTESCLASS"), c("REASON"), c("AGE"), c("VOLUMEMODE", 1)],
    row: (pv: Obj, now) => {
      const ref = pv.spec?.claimRef;
      return [
        pv.metadata.name,
        quantityString(pv.spec?.capacity?.storage),
        accessModesString(pv.spec?.accessModes),
        pv.spec?.persistentVolumeReclaimPolicy ?? "",
        pv.metadata.deletionTimestamp ? "Terminating" : (pv.status?.phase ?? ""),
        ref ? `${ref.namespace ?? ""}/${ref.name ?? ""}` : "",
        pvClass(pv),
        pv.spec?.volumeAttributesClassName ?? "<unset>",
        pv.status?.reason ?? "",
        age(pv, now),
        pv.spec?.volumeMode ?? "<unset>",
      ];
    },
  },
  PersistentVolumeClaim: {
    columns: [c("NAME"), c("STATUS"), c("VOLUME"), c("CAPACITY"), c("ACCESS MODES"), c("STORAGECLASS"), c("VOLUMEATTRIBUTESCLASS"), c("AGE"), c("VOLUMEMODE", 1)],
    row: (pvc: Obj, now) => {
      const bound = !!pvc.spec?.volumeName;
      return [
        pvc.metadata.name,
        pvc.metadata.deletionTimestamp ? "Terminating" : (pvc.status?.phase ?? ""),
        pvc.spec?.volumeName ?? "",
        bound ? quantityString(pvc.status?.capacity?.storage) : "",
        bound ? accessModesString(pvc.status?.accessModes) : "",
        pvcClass(pvc),
        pvc.spec?.volumeAttributesClassName ?? "<unset>",
        age(pvc, now),
        pvc.spec?.volumeMode ?? "<unset>",
      ];
    },
  },
  Ingress: {
    columns: [c("NAME"), c("CLASS"), c("HOSTS"), c("ADDRESS"), c("PORTS"), c("AGE")],
    row: (ing: Obj, now) => [ing.metadata.name, ing.spec?.ingressClassName ?? "<none>", ingressHosts(ing.spec?.rules ?? []), ingressAddress(ing, false), ing.spec?.tls?.length ? "80, 443" : "80", age(ing, now)],
  },
  IngressClass: {
    columns: [c("NAME"), c("CONTROLLER"), c("PARAMETERS"), c("AGE")],
    row: (ic: Obj, now) => {
      const p = ic.spec?.parameters;
      const params = p ? `${p.kind}${p.apiGroup ? `.${p.apiGroup}` : ""}/${p.name}` : "<none>";
      return [ic.metadata.name, ic.spec?.controller ?? "", params, age(ic, now)];
    },
  },
};

/** printers.go formatHosts: at most three hosts, then "+ N more...", "*" when none has one. */
function ingressHosts(rules: Obj[]): string {
  const list: string[] = [];
  const max = 3;
  let more = false;
  for (const r of rules) {
    if (list.length === max) more = true;
    if (!more && r.host) list.push(r.host);
  }
  if (!list.length) return "*";
  return more ? `${list.join(",")} + ${rules.length - max} more...` : list.join(",");
}
