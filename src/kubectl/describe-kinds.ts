// kubectl describe for the kinds served for kubectl's default prune list beyond the workloads
// (describe.go v0.33): PersistentVolume, PersistentVolumeClaim, Ingress, IngressClass. The
// shared writers of describe.ts are used only when an object is described.

import { R } from "../engine/api/resources.js";
import { formatQuantity, parseQuantity } from "../engine/api/quantity.js";
import { since } from "./duration.js";
import { annotationsMultiline, type DescribeSource, describeEvents, eventsFor, formatSliceEndpoints, labelsMultiline, type PrefixWriter } from "./describe.js";

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Obj = any;

/** storageutil.GetAccessModesAsString: RWO, ROX, RWX, RWOP, in that order. */
export function accessModesString(modes: readonly string[] | undefined | null): string {
  const have = new Set(modes ?? []);
  const out: string[] = [];
  for (const [mode, short] of [["ReadWriteOnce", "RWO"], ["ReadOnlyMany", "ROX"], ["ReadWriteMany", "RWX"], ["ReadWriteOncePod", "RWOP"]]) {
    if (have.has(mode)) out.push(short);
  }
  return out.join(",");
}

/** A stored quantity's String() ("0" when absent). */
export function quantityString(v: unknown): string {
  const q = v === undefined || v === null ? undefined : parseQuantity(String(v));
  return q ? formatQuantity(q) : "0";
}

/** Go's %v of a []string. */
const goList = (v: readonly string[] | undefined | null) => `[${(v ?? []).join(" ")}]`;

export const pvClass = (pv: Obj): string => pv.metadata.annotations?.["volume.beta.kubernetes.io/storage-class"] ?? pv.spec?.storageClassName ?? "";
export const pvcClass = (pvc: Obj): string => pvc.metadata.annotations?.["volume.beta.kubernetes.io/storage-class"] ?? pvc.spec?.storageClassName ?? "";

function status(w: PrefixWriter, o: Obj, now: number): void {
  if (o.metadata.deletionTimestamp) w.write(0, `Status:\tTerminating (lasts ${since(o.metadata.deletionTimestamp, now)})\n`);
  else w.write(0, `Status:\t${o.status?.phase ?? ""}\n`);
}

function nodeAffinity(w: PrefixWriter, affinity: Obj): void {
  w.write(0, "Node Affinity:\t");
  if (!affinity?.required) {
    w.write(0, "<none>\n");
    return;
  }
  w.write(0, "\n");
  w.write(1, "Required Terms:\t");
  const terms: Obj[] = affinity.required.nodeSelectorTerms ?? [];
  if (!terms.length) {
    w.write(0, "<none>\n");
    return;
  }
  w.write(0, "\n");
  terms.forEach((term, i) => {
    w.write(2, `Term ${i}:\t`);
    const reqs: Obj[] = term.matchExpressions ?? [];
    if (!reqs.length) w.write(0, "<none>\n");
    reqs.forEach((r, j) => {
      if (j !== 0) w.write(2, "\t");
      const vals: string[] = r.values ?? [];
      w.write(0, `${r.key} ${String(r.operator).toLowerCase()}${vals.length ? ` [${vals.join(", ")}]` : ""}\n`);
    });
  });
}

function pvSource(w: PrefixWriter, spec: Obj): void {
  if (spec.hostPath) {
    w.write(2, `Type:\tHostPath (bare host directory volume)\n    Path:\t${spec.hostPath.path}\n    HostPathType:\t${spec.hostPath.type ?? "<none>"}\n`);
  } else if (spec.nfs) {
    w.write(2, `Type:\tNFS (an NFS mount that lasts the lifetime of a pod)\n    Server:\t${spec.nfs.server}\n    Path:\t${spec.nfs.path}\n    ReadOnly:\t${!!spec.nfs.readOnly}\n`);
  } else if (spec.local) {
    w.write(2, `Type:\tLocalVolume (a persistent volume backed by local storage on a node)\n    Path:\t${spec.local.path}\n`);
  } else if (spec.csi) {
    const c = spec.csi;
    w.write(2, `Type:\tCSI (a Container Storage Interface (CSI) volume source)\n    Driver:\t${c.driver ?? ""}\n    FSType:\t${c.fsType ?? ""}\n    VolumeHandle:\t${c.volumeHandle ?? ""}\n    ReadOnly:\t${!!c.readOnly}\n`);
    const attrs = c.volumeAttributes ?? {};
    const keys = Object.keys(attrs).sort();
    w.write(2, "VolumeAttributes:\t");
    if (!keys.length) w.write(0, "<none>\n");
    keys.forEach((k, i) => w.write(0, `${i ? "    \t" : ""}${k}=${attrs[k]}\n`));
  } else {
    w.write(1, "<unknown>\n");
  }
}

function describePersistentVolume(w: PrefixWriter, pv: Obj, src: DescribeSource): void {
  const spec = pv.spec ?? {};
  w.write(0, `Name:\t${pv.metadata.name}\n`);
  labelsMultiline(w, "Labels", pv.metadata.labels);
  annotationsMultiline(w, "Annotations", pv.metadata.annotations);
  w.write(0, `Finalizers:\t${goList(pv.metadata.finalizers)}\n`);
  w.write(0, `StorageClass:\t${pvClass(pv)}\n`);
  status(w, pv, src.now);
  w.write(0, `Claim:\t${spec.claimRef ? `${spec.claimRef.namespace ?? ""}/${spec.claimRef.name ?? ""}` : ""}\n`);
  w.write(0, `Reclaim Policy:\t${spec.persistentVolumeReclaimPolicy ?? ""}\n`);
  w.write(0, `Access Modes:\t${accessModesString(spec.accessModes)}\n`);
  if (spec.volumeMode) w.write(0, `VolumeMode:\t${spec.volumeMode}\n`);
  w.write(0, `Capacity:\t${quantityString(spec.capacity?.storage)}\n`);
  nodeAffinity(w, spec.nodeAffinity);
  w.write(0, `Message:\t${pv.status?.message ?? ""}\n`);
  w.write(0, "Source:\n");
  pvSource(w, spec);
  describeEvents(w, eventsFor(src, pv, "PersistentVolume"), src.now);
}

function describePersistentVolumeClaim(w: PrefixWriter, pvc: Obj, src: DescribeSource): void {
  const spec = pvc.spec ?? {};
  w.write(0, `Name:\t${pvc.metadata.name}\n`);
  w.write(0, `Namespace:\t${pvc.metadata.namespace}\n`);
  w.write(0, `StorageClass:\t${pvcClass(pvc)}\n`);
  status(w, pvc, src.now);
  w.write(0, `Volume:\t${spec.volumeName ?? ""}\n`);
  labelsMultiline(w, "Labels", pvc.metadata.labels);
  annotationsMultiline(w, "Annotations", pvc.metadata.annotations);
  w.write(0, `Finalizers:\t${goList(pvc.metadata.finalizers)}\n`);
  const bound = !!spec.volumeName;
  w.write(0, `Capacity:\t${bound ? quantityString(pvc.status?.capacity?.storage) : ""}\n`);
  w.write(0, `Access Modes:\t${bound ? accessModesString(pvc.status?.accessModes) : ""}\n`);
  if (spec.volumeMode) w.write(0, `VolumeMode:\t${spec.volumeMode}\n`);
  if (spec.dataSource) {
    w.write(0, "DataSource:\n");
    if (spec.dataSource.apiGroup) w.write(1, `APIGroup:\t${spec.dataSource.apiGroup}\n`);
    w.write(1, `Kind:\t${spec.dataSource.kind}\n`);
    w.write(1, `Name:\t${spec.dataSource.name}\n`);
  }
  // getPodsForPVC: the namespace's pods with a volume of this claim, by name.
  const pods = (src.list(R.pods, pvc.metadata.namespace) as Obj[])
    .filter((p) => (p.spec?.volumes ?? []).some((v: Obj) => v.persistentVolumeClaim?.claimName === pvc.metadata.name))
    .map((p) => p.metadata.name as string)
    .sort();
  w.write(0, "Used By:\t");
  if (!pods.length) w.write(0, "<none>\n");
  pods.forEach((n, i) => w.write(0, `${i ? "\t" : ""}${n}\n`));
  describeEvents(w, eventsFor(src, pvc, "PersistentVolumeClaim"), src.now);
}

/** ingressLoadBalancerStatusStringerV1: IPs or hostnames, sorted and unique, clipped to 16 unless wide. */
export function ingressAddress(ing: Obj, wide: boolean): string {
  const set = new Set<string>();
  for (const i of ing.status?.loadBalancer?.ingress ?? []) {
    if (i.ip) set.add(i.ip);
    else if (i.hostname) set.add(i.hostname);
  }
  const r = [...set].sort().join(",");
  return !wide && r.length > 16 ? `${r.slice(0, 13)}...` : r;
}

/** describeBackendV1: the service and its endpoints on the backend's port, or the resource. */
function ingressBackend(src: DescribeSource, ns: string, b: Obj): string {
  if (b?.service) {
    const port = b.service.port?.number ? String(b.service.port.number) : (b.service.port?.name ?? "");
    const sb = `${b.service.name}:${port}`;
    const svc = (src.list(R.services, ns) as Obj[]).find((s) => s.metadata.name === b.service.name);
    if (!svc) return `${sb} (<error: services "${b.service.name}" not found>)`;
    let spName = "";
    for (const sp of svc.spec?.ports ?? []) {
      if (b.service.port?.number && b.service.port.number === sp.port) spName = sp.name ?? "";
      else if (b.service.port?.name && b.service.port.name === sp.name) spName = sp.name ?? "";
    }
    const slices = (src.list(R.endpointslices, ns) as Obj[]).filter((s) => s.metadata.labels?.["kubernetes.io/service-name"] === b.service.name);
    return `${sb} (${formatSliceEndpoints(slices, spName)})`;
  }
  if (b?.resource) return `APIGroup: ${b.resource.apiGroup ?? "<none>"}, Kind: ${b.resource.kind}, Name: ${b.resource.name}`;
  return "";
}

function describeIngress(w: PrefixWriter, ing: Obj, src: DescribeSource): void {
  const spec = ing.spec ?? {};
  const ns = ing.metadata.namespace;
  w.write(0, `Name:\t${ing.metadata.name}\n`);
  labelsMultiline(w, "Labels", ing.metadata.labels);
  w.write(0, `Namespace:\t${ns}\n`);
  w.write(0, `Address:\t${ingressAddress(ing, true)}\n`);
  w.write(0, `Ingress Class:\t${spec.ingressClassName ?? "<none>"}\n`);
  const def = spec.defaultBackend ? ingressBackend(src, ns, spec.defaultBackend) : "<default>";
  w.write(0, `Default backend:\t${def}\n`);
  if (spec.tls?.length) {
    w.write(0, "TLS:\n");
    for (const t of spec.tls) {
      const hosts = (t.hosts ?? []).join(",");
      w.write(1, t.secretName ? `${t.secretName} terminates ${hosts}\n` : `SNI routes ${hosts}\n`);
    }
  }
  w.write(0, "Rules:\n  Host\tPath\tBackends\n");
  w.write(1, "----\t----\t--------\n");
  let count = 0;
  for (const rule of spec.rules ?? []) {
    if (!rule.http) continue;
    count++;
    w.write(1, `${rule.host || "*"}\t\n`);
    for (const p of rule.http.paths ?? []) w.write(2, `\t${p.path ?? ""} \t${ingressBackend(src, ns, p.backend)}\n`);
  }
  if (count === 0) w.write(1, `*\t*\t${def}\n`);
  annotationsMultiline(w, "Annotations", ing.metadata.annotations);
  describeEvents(w, eventsFor(src, ing, "Ingress"), src.now);
}

function describeIngressClass(w: PrefixWriter, ic: Obj, src: DescribeSource): void {
  w.write(0, `Name:\t${ic.metadata.name}\n`);
  labelsMultiline(w, "Labels", ic.metadata.labels);
  annotationsMultiline(w, "Annotations", ic.metadata.annotations);
  w.write(0, `Controller:\t${ic.spec?.controller ?? ""}\n`);
  const p = ic.spec?.parameters;
  if (p) {
    w.write(0, "Parameters:\n");
    if (p.apiGroup) w.write(1, `APIGroup:\t${p.apiGroup}\n`);
    w.write(1, `Kind:\t${p.kind}\n`);
    w.write(1, `Name:\t${p.name}\n`);
  }
  describeEvents(w, eventsFor(src, ic, "IngressClass"), src.now);
}

export const KIND_DESCRIBERS: Record<string, (w: PrefixWriter, o: Obj, src: DescribeSource) => void> = {
  PersistentVolume: describePersistentVolume,
  PersistentVolumeClaim: describePersistentVolumeClaim,
  Ingress: describeIngress,
  IngressClass: describeIngressClass,
};
