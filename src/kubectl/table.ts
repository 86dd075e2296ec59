// Table rows for every kind we serve, as kubectl 1.33's printers (pkg/printers/internalversion)
// and the MetalLB CRDs' additionalPrinterColumns produce them. One source for the terminal's
// `kubectl get` and the REST API's Table responses (priority 1 = shown only with -o wide).

import type { ResourceInfo } from "../engine/api/resources.js";
import type { KObject } from "../engine/api/types.js";
import { since } from "./duration.js";
import { KIND_TABLES, replicasTable } from "./table-kinds.js";
import { BATCH_TABLES } from "./table-batch.js";

// Objects are read as loose JSON: the printers look at many optional fields.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Obj = any;

export interface Column {
  name: string;
  priority: 0 | 1;
}

export interface TableDef {
  columns: Column[];
  /** Every cell of the row (wide cells included); the caller drops priority-1 cells unless wide. */
  row(obj: Obj, now: number): string[];
}

export function c(name: string, priority: 0 | 1 = 0): Column {
  return { name, priority };
}

/** labels.FormatLabels: sorted k=v joined by ",", `<none>` when empty. */
export function formatLabels(m: Record<string, string> | undefined | null): string {
  const keys = Object.keys(m ?? {}).sort();
  if (!keys.length) return "<none>";
  return keys.map((k) => `${k}=${m![k]}`).join(",");
}

/** metav1.FormatLabelSelector. */
export function formatLabelSelector(sel: Obj): string {
  if (!sel) return "<none>";
  const parts: string[] = [];
  const ml = sel.matchLabels ?? {};
  for (const k of Object.keys(ml).sort()) parts.push(`${k}=${ml[k]}`);
  for (const e of sel.matchExpressions ?? []) {
    const vals = [...(e.values ?? [])];
    switch (e.operator) {
      case "In":
      case "NotIn":
        parts.push(`${e.key} ${e.operator.toLowerCase()} (${vals.join(",")})`);
        break;
      case "Exists":
        parts.push(e.key);
        break;
      case "DoesNotExist":
        parts.push(`!${e.key}`);
        break;
    }
  }
  const s = parts.join(",");
  return s === "" ? "<none>" : s;
}

export function age(o: Obj, now: number): string {
  return since(o.metadata?.creationTimestamp, now);
}

export function containersAndImages(spec: Obj): [string, string] {
  const cs = spec?.containers ?? [];
  return [cs.map((x: Obj) => x.name).join(","), cs.map((x: Obj) => x.image).join(",")];
}

// ---------------------------------------------------------------------------------------------

function podRow(pod: Obj, now: number): string[] {
  const status = pod.status ?? {};
  let restarts = 0;
  const total = (pod.spec?.containers ?? []).length;
  let ready = 0;
  let lastRestart = 0;
  let reason: string = status.reason || status.phase || "";
  const statuses: Obj[] = status.containerStatuses ?? [];
  let hasRunning = false;
  for (let i = statuses.length - 1; i >= 0; i--) {
    const cs = statuses[i];
    restarts += cs.restartCount ?? 0;
    const lt = cs.lastState?.terminated;
    if (lt?.finishedAt) lastRestart = Math.max(lastRestart, Date.parse(lt.finishedAt));
    const st = cs.state ?? {};
    if (st.waiting && st.waiting.reason) reason = st.waiting.reason;
    else if (st.terminated && st.terminated.reason) reason = st.terminated.reason;
    else if (st.terminated) reason = st.terminated.signal ? `Signal:${st.terminated.signal}` : `ExitCode:${st.terminated.exitCode}`;
    else if (cs.ready && st.running) {
      hasRunning = true;
      ready++;
    }
  }
  if (reason === "Completed" && hasRunning) {
    reason = (status.conditions ?? []).some((x: Obj) => x.type === "Ready" && x.status === "True") ? "Running" : "NotReady";
  }
  const phase = status.phase;
  if (pod.metadata.deletionTimestamp && status.reason === "NodeLost") reason = "Unknown";
  else if (pod.metadata.deletionTimestamp && phase !== "Succeeded" && phase !== "Failed") reason = "Terminating";
  let restartsStr = String(restarts);
  if (restarts !== 0 && lastRestart) restartsStr = `${restarts} (${since(new Date(lastRestart).toISOString(), now)} ago)`;
  const ip = status.podIPs?.[0]?.ip || "<none>";
  const gates: Obj[] = pod.spec?.readinessGates ?? [];
  let gatesStr = "<none>";
  if (gates.length) {
    const t = gates.filter((g) => (status.conditions ?? []).some((x: Obj) => x.type === g.conditionType && x.status === "True")).length;
    gatesStr = `${t}/${gates.length}`;
  }
  return [
    pod.metadata.name,
    `${ready}/${total}`,
    reason,
    restartsStr,
    age(pod, now),
    ip,
    pod.spec?.nodeName || "<none>",
    status.nominatedNodeName || "<none>",
    gatesStr,
  ];
}

function serviceExternalIP(svc: Obj, wide: boolean): string {
  const spec = svc.spec ?? {};
  const ext: string[] = spec.externalIPs ?? [];
  switch (spec.type) {
    case "ClusterIP":
    case "NodePort":
    case undefined:
      return ext.length ? ext.join(",") : "<none>";
    case "LoadBalancer": {
      const ing: Obj[] = svc.status?.loadBalancer?.ingress ?? [];
      const set = new Set<string>();
      for (const i of ing) {
        if (i.ip) set.add(i.ip);
        else if (i.hostname) set.add(i.hostname);
      }
      let lb = [...set].sort().join(",");
      if (!wide && lb.length > 16) lb = lb.slice(0, 13) + "...";
      const all = [lb, ...ext].filter((x) => x !== "");
      return all.length ? all.join(",") : "<pending>";
    }
    case "ExternalName":
      return spec.externalName ?? "";
  }
  return "<unknown>";
}

function servicePorts(ports: Obj[] | undefined): string {
  if (!ports?.length) return "<none>";
  return ports
    .map((p) => (p.nodePort ? `${p.port}:${p.nodePort}/${p.protocol}` : `${p.port}/${p.protocol}`))
    .join(",");
}

function endpointsCell(ep: Obj): string {
  const subsets: Obj[] = ep.subsets ?? [];
  if (!subsets.length) return "<none>";
  const list: string[] = [];
  let count = 0;
  let more = false;
  for (const ss of subsets) {
    const ports: Obj[] = ss.ports ?? [];
    for (const a of ss.addresses ?? []) {
      if (ports.length === 0) {
        if (list.length < 3) list.push(a.ip);
        else more = true;
        count++;
      }
      for (const p of ports) {
        if (list.length < 3) list.push(`${a.ip}:${p.port}`);
        else more = true;
        count++;
      }
    }
  }
  let s = list.join(",");
  if (more) s += ` + ${count - list.length} more...`;
  return s;
}

function sliceCells(es: Obj): [string, string] {
  const ports: Obj[] = es.ports ?? [];
  let portsStr = "<unset>";
  if (ports.length) {
    portsStr = ports.map((p) => (p.port !== undefined && p.port !== null ? String(p.port) : p.name ? p.name : "*")).join(",");
    const max = 3;
    if (ports.length > max) portsStr = ports.slice(0, max).map((p) => String(p.port ?? p.name ?? "*")).join(",") + ` + ${ports.length - max} more...`;
  }
  const addrs: string[] = [];
  for (const e of es.endpoints ?? []) for (const a of e.addresses ?? []) addrs.push(a);
  let epStr = "<unset>";
  if (addrs.length) epStr = addrs.slice(0, 3).join(",") + (addrs.length > 3 ? ` + ${addrs.length - 3} more...` : "");
  return [portsStr, epStr];
}

function nodeRoles(node: Obj): string {
  const roles = new Set<string>();
  for (const [k, v] of Object.entries((node.metadata.labels ?? {}) as Record<string, string>)) {
    if (k.startsWith("node-role.kubernetes.io/")) roles.add(k.slice("node-role.kubernetes.io/".length));
    else if (k === "kubernetes.io/role" && v) roles.add(v);
  }
  const list = [...roles].filter((r) => r !== "").sort();
  return list.length ? list.join(",") : "<none>";
}

function nodeStatus(node: Obj): string {
  const conds: Obj[] = node.status?.conditions ?? [];
  const out: string[] = [];
  const ready = conds.find((x) => x.type === "Ready");
  if (!ready) out.push("Unknown");
  else out.push(ready.status === "True" ? "Ready" : "NotReady");
  if (node.spec?.unschedulable) out.push("SchedulingDisabled");
  return out.join(",");
}

function nodeAddress(node: Obj, type: string): string {
  return (node.status?.addresses ?? []).find((a: Obj) => a.type === type)?.address ?? "<none>";
}

const BINDING_COLUMNS = [c("NAME"), c("ROLE"), c("AGE"), c("USERS", 1), c("GROUPS", 1), c("SERVICEACCOUNTS", 1)];

/** printRoleBinding: Kind/name of the role, then (wide) rbac.SubjectsStrings' users, groups and namespace/name of service accounts. */
function bindingRow(b: Obj, now: number): string[] {
  const users: string[] = [];
  const groups: string[] = [];
  const sas: string[] = [];
  for (const s of (b.subjects ?? []) as Obj[]) {
    if (s.kind === "User") users.push(s.name);
    else if (s.kind === "Group") groups.push(s.name);
    else if (s.kind === "ServiceAccount") sas.push(`${s.namespace ?? ""}/${s.name}`);
  }
  return [b.metadata.name, `${b.roleRef?.kind ?? ""}/${b.roleRef?.name ?? ""}`, age(b, now), users.join(", "), groups.join(", "), sas.join(", ")];
}

function eventRow(ev: Obj, now: number): string[] {
  const first = ev.firstTimestamp ? since(ev.firstTimestamp, now) : since(ev.eventTime, now);
  let last = ev.lastTimestamp ? since(ev.lastTimestamp, now) : first;
  let count = ev.count ?? 0;
  if (ev.series) {
    last = since(ev.series.lastObservedTime, now);
    count = ev.series.count;
  } else if (count === 0) count = 1;
  const io = ev.involvedObject ?? {};
  const target = io.name ? `${String(io.kind ?? "").toLowerCase()}/${io.name}` : String(io.kind ?? "").toLowerCase();
  const src = ev.source ?? {};
  let source = src.component || ev.reportingComponent || "";
  if (src.host) source = `${source}, ${src.host}`;
  return [last, ev.type ?? "", ev.reason ?? "", target, io.fieldPath ?? "", source, String(ev.message ?? "").trim(), first, String(count), ev.metadata.name];
}

const TABLES: Record<string, TableDef> = {
  ...(BATCH_TABLES as Record<string, TableDef>),
  Pod: {
    columns: [c("NAME"), c("READY"), c("STATUS"), c("RESTARTS"), c("AGE"), c("IP", 1), c("NODE", 1), c("NOMINATED NODE", 1), c("READINESS GATES", 1)],
    row: podRow,
  },
  Service: {
    columns: [c("NAME"), c("TYPE"), c("CLUSTER-IP"), c("EXTERNAL-IP"), c("PORT(S)"), c("AGE"), c("SELECTOR", 1)],
    row: (s, now) => [
      s.metadata.name,
      s.spec?.type ?? "",
      s.spec?.clusterIPs?.[0] ?? (s.spec?.clusterIP || "<none>"),
      serviceExternalIP(s, false),
      servicePorts(s.spec?.ports),
      age(s, now),
      formatLabels(s.spec?.selector),
    ],
  },
  Endpoints: {
    columns: [c("NAME"), c("ENDPOINTS"), c("AGE")],
    row: (e, now) => [e.metadata.name, endpointsCell(e), age(e, now)],
  },
  EndpointSlice: {
    columns: [c("NAME"), c("ADDRESSTYPE"), c("PORTS"), c("ENDPOINTS"), c("AGE")],
    row: (e, now) => [e.metadata.name, e.addressType ?? "", ...sliceCells(e), age(e, now)],
  },
  Deployment: {
    columns: [c("NAME"), c("READY"), c("UP-TO-DATE"), c("AVAILABLE"), c("AGE"), c("CONTAINERS", 1), c("IMAGES", 1), c("SELECTOR", 1)],
    row: (d, now) => [
      d.metadata.name,
      `${d.status?.readyReplicas ?? 0}/${d.spec?.replicas ?? 0}`,
      String(d.status?.updatedReplicas ?? 0),
      String(d.status?.availableReplicas ?? 0),
      age(d, now),
      ...containersAndImages(d.spec?.template?.spec),
      formatLabelSelector(d.spec?.selector),
    ],
  },
  ReplicaSet: replicasTable(formatLabelSelector),
  DaemonSet: {
    columns: [c("NAME"), c("DESIRED"), c("CURRENT"), c("READY"), c("UP-TO-DATE"), c("AVAILABLE"), c("NODE SELECTOR"), c("AGE"), c("CONTAINERS", 1), c("IMAGES", 1), c("SELECTOR", 1)],
    row: (d, now) => [
      d.metadata.name,
      String(d.status?.desiredNumberScheduled ?? 0),
      String(d.status?.currentNumberScheduled ?? 0),
      String(d.status?.numberReady ?? 0),
      String(d.status?.updatedNumberScheduled ?? 0),
      String(d.status?.numberAvailable ?? 0),
      formatLabels(d.spec?.template?.spec?.nodeSelector),
      age(d, now),
      ...containersAndImages(d.spec?.template?.spec),
      formatLabelSelector(d.spec?.selector),
    ],
  },
  StatefulSet: {
    columns: [c("NAME"), c("READY"), c("AGE"), c("CONTAINERS", 1), c("IMAGES", 1)],
    row: (s, now) => [s.metadata.name, `${s.status?.readyReplicas ?? 0}/${s.spec?.replicas ?? 0}`, age(s, now), ...containersAndImages(s.spec?.template?.spec)],
  },
  ControllerRevision: {
    columns: [c("NAME"), c("CONTROLLER"), c("REVISION"), c("AGE")],
    row: (r, now) => {
      const ref = (r.metadata.ownerReferences ?? []).find((o: Obj) => o.controller);
      let ctrl = "<none>";
      if (ref) {
        const g = String(ref.apiVersion ?? "").includes("/") ? String(ref.apiVersion).split("/")[0] : "";
        ctrl = `${String(ref.kind).toLowerCase()}${g ? "." + g : ""}/${ref.name}`;
      }
      return [r.metadata.name, ctrl, String(r.revision ?? 0), age(r, now)];
    },
  },
  Node: {
    columns: [c("NAME"), c("STATUS"), c("ROLES"), c("AGE"), c("VERSION"), c("INTERNAL-IP", 1), c("EXTERNAL-IP", 1), c("OS-IMAGE", 1), c("KERNEL-VERSION", 1), c("CONTAINER-RUNTIME", 1)],
    row: (n, now) => {
      const info = n.status?.nodeInfo ?? {};
      return [
        n.metadata.name,
        nodeStatus(n),
        nodeRoles(n),
        age(n, now),
        info.kubeletVersion ?? "",
        nodeAddress(n, "InternalIP"),
        nodeAddress(n, "ExternalIP"),
        info.osImage || "<unknown>",
        info.kernelVersion || "<unknown>",
        info.containerRuntimeVersion || "<unknown>",
      ];
    },
  },
  Namespace: {
    columns: [c("NAME"), c("STATUS"), c("AGE")],
    row: (n, now) => [n.metadata.name, n.status?.phase ?? "", age(n, now)],
  },
  ConfigMap: {
    columns: [c("NAME"), c("DATA"), c("AGE")],
    row: (m, now) => [m.metadata.name, String(Object.keys(m.data ?? {}).length + Object.keys(m.binaryData ?? {}).length), age(m, now)],
  },
  Event: {
    columns: [c("LAST SEEN"), c("TYPE"), c("REASON"), c("OBJECT"), c("SUBOBJECT", 1), c("SOURCE", 1), c("MESSAGE"), c("FIRST SEEN", 1), c("COUNT", 1), c("NAME", 1)],
    row: eventRow,
  },
  Lease: {
    columns: [c("NAME"), c("HOLDER"), c("AGE")],
    row: (l, now) => [l.metadata.name, l.spec?.holderIdentity ?? "", age(l, now)],
  },
  // printers.go's printRole/printClusterRole: the creation time itself, not an age.
  Role: { columns: [c("NAME"), c("CREATED AT")], row: (r) => [r.metadata.name, r.metadata.creationTimestamp ?? ""] },
  ClusterRole: { columns: [c("NAME"), c("CREATED AT")], row: (r) => [r.metadata.name, r.metadata.creationTimestamp ?? ""] },
  RoleBinding: { columns: BINDING_COLUMNS, row: bindingRow },
  ClusterRoleBinding: { columns: BINDING_COLUMNS, row: bindingRow },
  IPAddressPool: {
    columns: [c("NAME"), c("AUTO ASSIGN"), c("AVOID BUGGY IPS"), c("ADDRESSES")],
    row: (p) => [p.metadata.name, String(p.spec?.autoAssign ?? true), String(p.spec?.avoidBuggyIPs ?? false), p.spec?.addresses ? JSON.stringify(p.spec.addresses) : ""],
  },
  L2Advertisement: {
    columns: [c("NAME"), c("IPADDRESSPOOLS"), c("IPADDRESSPOOL SELECTORS"), c("INTERFACES"), c("NODE SELECTORS", 1)],
    row: (a) => {
      const j = (v: unknown) => (v === undefined || v === null ? "" : JSON.stringify(v));
      return [a.metadata.name, j(a.spec?.ipAddressPools), j(a.spec?.ipAddressPoolSelectors), j(a.spec?.interfaces), j(a.spec?.nodeSelectors)];
    },
  },
};

// The wide EXTERNAL-IP of a LoadBalancer is not clipped: recompute that cell.
const WIDE_OVERRIDES: Record<string, (obj: Obj, cells: string[]) => void> = {
  Service: (s, cells) => {
    cells[3] = serviceExternalIP(s, true);
  },
};

export function tableFor(info: ResourceInfo): TableDef {
  return TABLES[info.kind] ?? KIND_TABLES[info.kind] ?? { columns: [c("NAME"), c("AGE")], row: (o: Obj, now: number) => [o.metadata.name, age(o, now)] };
}

interface TableOptions {
  wide?: boolean;
  /** Prefix a NAMESPACE column (-A). */
  withNamespace?: boolean;
  showLabels?: boolean;
  /** -L: one column per label key, headed by the key's last segment in capitals. */
  labelColumns?: readonly string[];
  /** Prefix names with `kind.group/` (several resource types in one get). */
  withKind?: string;
  noHeaders?: boolean;
}

/** Header and rows as cells (no padding): the Table a REST client would get, filtered for `opts`. */
export function tableCells(info: ResourceInfo, objs: readonly KObject[], now: number, opts: TableOptions = {}): { header: string[]; rows: string[][] } {
  const def = tableFor(info);
  const keep = def.columns.map((col) => col.priority === 0 || !!opts.wide);
  const header = def.columns.filter((_, i) => keep[i]).map((col) => col.name);
  if (opts.withNamespace) header.unshift("NAMESPACE");
  const labelColumns = opts.labelColumns ?? [];
  for (const l of labelColumns) header.push(l.split("/").pop()!.toUpperCase());
  if (opts.showLabels) header.push("LABELS");
  const rows: string[][] = [];
  const override = opts.wide ? WIDE_OVERRIDES[info.kind] : undefined;
  const nameCol = info.kind === "Event" ? -1 : 0;
  for (const o of objs) {
    const all = def.row(o, now);
    override?.(o, all);
    const cells = all.filter((_, i) => keep[i]);
    if (opts.withKind && nameCol === 0) cells[0] = `${opts.withKind}/${cells[0]}`;
    if (opts.withNamespace) cells.unshift(o.metadata.namespace ?? "");
    for (const l of labelColumns) cells.push(o.metadata.labels?.[l] ?? "");
    if (opts.showLabels) cells.push(formatLabels(o.metadata.labels));
    rows.push(cells);
  }
  return { header, rows };
}

/** The table as kubectl prints it (unpadded cells joined by tabs; tabwrite() aligns). */
export function tableText(info: ResourceInfo, objs: readonly KObject[], now: number, opts: TableOptions = {}): string {
  const { header, rows } = tableCells(info, objs, now, opts);
  const lines: string[] = [];
  if (!opts.noHeaders) lines.push(header.join("\t"));
  for (const r of rows) lines.push(r.join("\t"));
  return lines.length ? lines.join("\n") + "\n" : "";
}
