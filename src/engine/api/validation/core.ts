// core/v1 validation: k8s.io/kubernetes/pkg/apis/core/validation/validation.go (v1.33), field
// paths and messages as the apiserver prints them. Parts of the API ServiceLab keeps opaque
// (resources, security contexts, affinity...) are not validated.

import { field, type FieldError, GoValue } from "../status";
import { goQ, goServicePortKey } from "./gofmt";
import {
  FIELD_IMMUTABLE,
  nonNegative,
  tooLong,
  validateAnnotations,
  validateLabelName,
  validateLabels,
  validateObjectMeta,
  validateObjectMetaUpdate,
} from "./meta";
import {
  byteLen,
  inclusiveRangeError,
  isConfigMapKey,
  isDNS1123Label,
  isDNS1123Subdomain,
  isQualifiedName,
  isRelaxedEnvVarName,
  isValidLabelValue,
  isValidPortName,
  isValidPortNum,
  nameIsDNS1035Label,
  nameIsDNSLabel,
  nameIsDNSSubdomain,
} from "./names";
import { formatIPv6, ipv4Octets, parseIPv6 } from "../../util/ip.js";

/* eslint-disable @typescript-eslint/no-explicit-any */

const arr = (v: unknown): any[] => (Array.isArray(v) ? v : []);
const gosl = (v: readonly string[]) => new GoValue(`[]string{${v.map(goQ).join(", ")}}`);

export const SUPPORTED_PROTOCOLS = ["SCTP", "TCP", "UDP"];

export function dns1123Label(value: string, path: string): FieldError[] {
  return isDNS1123Label(value).map((m) => field.invalid(path, value, m));
}
function dns1123Subdomain(value: string, path: string): FieldError[] {
  return isDNS1123Subdomain(value).map((m) => field.invalid(path, value, m));
}
function qualifiedName(value: string, path: string): FieldError[] {
  return isQualifiedName(value).map((m) => field.invalid(path, value, m));
}

// ---------------------------------------------------------------------------------------------
// IPs (k8s.io/apimachinery/pkg/util/validation/ip.go, validation.go ValidateNonSpecialIP)

function isValidIP(path: string, value: string): FieldError[] {
  const v4 = ipv4Octets(value);
  if (v4) return [];
  const v6 = parseIPv6(value);
  if (!v6) {
    if (/^[0-9]{1,3}(\.[0-9]{1,3}){3}$/.test(value) && value.split(".").every((p) => Number(p) <= 255)) {
      return [field.invalid(path, value, "must not have leading 0s")];
    }
    return [field.invalid(path, value, "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)")];
  }
  if (v6[0] === 0 && v6[1] === 0 && v6[2] === 0 && v6[3] === 0 && v6[4] === 0 && v6[5] === 0xffff) {
    return [field.invalid(path, value, "must not be an IPv4-mapped IPv6 address")];
  }
  const canon = formatIPv6(v6);
  if (canon !== value) return [field.invalid(path, value, `must be in canonical form (${goQ(canon)})`)];
  return [];
}

export function validateNonSpecialIP(ip: string, path: string): FieldError[] {
  const v4 = ipv4Octets(ip);
  const v6 = v4 ? null : parseIPv6(ip);
  if (!v4 && !v6) return [field.invalid(path, ip, "must be a valid IP address")];
  const errs: FieldError[] = [];
  const unspecified = v4 ? v4.every((x) => x === 0) : v6!.every((x) => x === 0);
  const loopback = v4 ? v4[0] === 127 : v6!.slice(0, 7).every((x) => x === 0) && v6![7] === 1;
  const linkLocalUnicast = v4 ? v4[0] === 169 && v4[1] === 254 : (v6![0] & 0xffc0) === 0xfe80;
  const linkLocalMulticast = v4 ? v4[0] === 224 && v4[1] === 0 && v4[2] === 0 : (v6![0] & 0xff0f) === 0xff02;
  if (unspecified) errs.push(field.invalid(path, ip, `may not be unspecified (${ip})`));
  if (loopback) errs.push(field.invalid(path, ip, "may not be in the loopback range (127.0.0.0/8, ::1/128)"));
  if (linkLocalUnicast) errs.push(field.invalid(path, ip, "may not be in the link-local range (169.254.0.0/16, fe80::/10)"));
  if (linkLocalMulticast) errs.push(field.invalid(path, ip, "may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)"));
  return errs;
}

function isValidCIDR(path: string, value: string): FieldError[] {
  const bad = [field.invalid(path, value, "must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)")];
  const slash = value.indexOf("/");
  if (slash < 0) return bad;
  const ipPart = value.slice(0, slash);
  const bitsPart = value.slice(slash + 1);
  if (!/^[0-9]+$/.test(bitsPart)) return bad;
  const bits = Number(bitsPart);
  const v4 = ipv4Octets(ipPart);
  if (v4) {
    if (bits > 32) return bad;
    if (bitsPart.length > 1 && bitsPart.startsWith("0")) return [field.invalid(path, value, "must not have leading 0s in IP or prefix length")];
    const n = ((v4[0] << 24) >>> 0) + (v4[1] << 16) + (v4[2] << 8) + v4[3];
    const mask = bits === 0 ? 0 : (0xffffffff << (32 - bits)) >>> 0;
    if (((n & ~mask) >>> 0) !== 0) return [field.invalid(path, value, "must not have bits set beyond the prefix length")];
    return [];
  }
  const v6 = parseIPv6(ipPart);
  if (!v6 || bits > 128) return bad;
  for (let i = 0; i < 8; i++) {
    const keep = Math.max(0, Math.min(16, bits - i * 16));
    const m = keep === 0 ? 0 : (0xffff << (16 - keep)) & 0xffff;
    if ((v6[i] & ~m & 0xffff) !== 0) return [field.invalid(path, value, "must not have bits set beyond the prefix length")];
  }
  const canon = `${formatIPv6(v6)}/${bits}`;
  if (canon !== value) return [field.invalid(path, value, `must be in canonical form (${goQ(canon)})`)];
  return [];
}

// ---------------------------------------------------------------------------------------------
// Pod spec

const FILE_MODE_MSG = "must be a number between 0 and 0777 (octal), both inclusive";

function validateKeyToPath(kp: any, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (!kp?.key) errs.push(field.required(`${path}.key`));
  if (!kp?.path) errs.push(field.required(`${path}.path`));
  const p: string = kp?.path ?? "";
  if (p.startsWith("/")) errs.push(field.invalid(`${path}.path`, p, "must be a relative path"));
  if (p.split("/").includes("..")) errs.push(field.invalid(`${path}.path`, p, "must not contain '..'"));
  else if (p.startsWith("..")) errs.push(field.invalid(`${path}.path`, p, "must not start with '..'"));
  if (typeof kp?.mode === "number" && (kp.mode > 0o777 || kp.mode < 0)) errs.push(field.invalid(`${path}.mode`, kp.mode, FILE_MODE_MSG));
  return errs;
}

const VOLUME_SOURCES = [
  "hostPath", "emptyDir", "gcePersistentDisk", "awsElasticBlockStore", "gitRepo", "secret", "nfs", "iscsi", "glusterfs",
  "persistentVolumeClaim", "rbd", "flexVolume", "cinder", "cephfs", "flocker", "downwardAPI", "fc", "azureFile", "configMap",
  "vsphereVolume", "quobyte", "azureDisk", "photonPersistentDisk", "projected", "portworxVolume", "scaleIO", "storageos", "csi",
  "ephemeral", "image",
];

function validateVolumes(volumes: any[], path: string): [Set<string>, FieldError[]] {
  const names = new Set<string>();
  const errs: FieldError[] = [];
  volumes.forEach((vol, i) => {
    const idx = `${path}[${i}]`;
    const el: FieldError[] = [];
    const set = VOLUME_SOURCES.filter((s) => vol?.[s] !== undefined && vol?.[s] !== null);
    set.slice(1).forEach((s) => el.push(field.forbidden(`${idx}.${s}`, "may not specify more than 1 volume type")));
    if (set.length === 0) el.push(field.required(idx, "must specify a volume type"));
    const cm = vol?.configMap;
    if (set[0] === "configMap" && cm) {
      if (!cm.name) el.push(field.required(`${idx}.configMap.name`));
      if (typeof cm.defaultMode === "number" && (cm.defaultMode > 0o777 || cm.defaultMode < 0)) {
        el.push(field.invalid(`${idx}.configMap.defaultMode`, cm.defaultMode, FILE_MODE_MSG));
      }
      arr(cm.items).forEach((kp, j) => el.push(...validateKeyToPath(kp, `${idx}.configMap.items[${j}]`)));
    }
    if (set[0] === "secret" && vol.secret && !vol.secret.secretName) el.push(field.required(`${idx}.secret.secretName`));
    if (set[0] === "persistentVolumeClaim" && vol.persistentVolumeClaim && !vol.persistentVolumeClaim.claimName) {
      el.push(field.required(`${idx}.persistentVolumeClaim.claimName`));
    }
    if (set[0] === "hostPath" && vol.hostPath && !vol.hostPath.path) el.push(field.required(`${idx}.hostPath.path`));
    const name: string = vol?.name ?? "";
    if (!name) el.push(field.required(`${idx}.name`));
    else el.push(...dns1123Label(name, `${idx}.name`));
    if (names.has(name)) el.push(field.duplicate(`${idx}.name`, name));
    if (el.length === 0) names.add(name);
    else errs.push(...el);
  });
  return [names, errs];
}

function validateContainerPorts(ports: any[], path: string): FieldError[] {
  const errs: FieldError[] = [];
  const names = new Set<string>();
  ports.forEach((p, i) => {
    const idx = `${path}[${i}]`;
    if (p?.name) {
      const msgs = isValidPortName(p.name);
      if (msgs.length) msgs.forEach((m) => errs.push(field.invalid(`${idx}.name`, p.name, m)));
      else if (names.has(p.name)) errs.push(field.duplicate(`${idx}.name`, p.name));
      else names.add(p.name);
    }
    if (!p?.containerPort) errs.push(field.required(`${idx}.containerPort`));
    else for (const m of isValidPortNum(p.containerPort)) errs.push(field.invalid(`${idx}.containerPort`, p.containerPort, m));
    if (p?.hostPort) for (const m of isValidPortNum(p.hostPort)) errs.push(field.invalid(`${idx}.hostPort`, p.hostPort, m));
    if (!p?.protocol) errs.push(field.required(`${idx}.protocol`));
    else if (!SUPPORTED_PROTOCOLS.includes(p.protocol)) errs.push(field.notSupported(`${idx}.protocol`, p.protocol, SUPPORTED_PROTOCOLS));
  });
  return errs;
}

const ENV_FIELD_PATHS = [
  "metadata.name", "metadata.namespace", "metadata.uid", "spec.nodeName", "spec.serviceAccountName",
  "status.hostIP", "status.hostIPs", "status.podIP", "status.podIPs",
];

function validateEnv(env: any[], path: string): FieldError[] {
  const errs: FieldError[] = [];
  env.forEach((ev, i) => {
    const idx = `${path}[${i}]`;
    // RelaxedEnvironmentVariableValidation is on by default in v1.33.
    if (!ev?.name) errs.push(field.required(`${idx}.name`));
    else for (const m of isRelaxedEnvVarName(ev.name)) errs.push(field.invalid(`${idx}.name`, ev.name, m));
    const vf = ev?.valueFrom;
    if (!vf) return;
    const vp = `${idx}.valueFrom`;
    let n = 0;
    if (vf.fieldRef) {
      n++;
      const fr = vf.fieldRef;
      if (!fr.apiVersion) errs.push(field.required(`${vp}.fieldRef.apiVersion`));
      else if (!fr.fieldPath) errs.push(field.required(`${vp}.fieldRef.fieldPath`));
      else {
        const m = /^(metadata\.(?:labels|annotations))\['(.*)'\]$/.exec(fr.fieldPath);
        if (m) {
          const sub = m[1] === "metadata.annotations" ? m[2].toLowerCase() : m[2];
          errs.push(...qualifiedName(sub, `${vp}.fieldRef`));
        } else if (!ENV_FIELD_PATHS.includes(fr.fieldPath)) {
          errs.push(field.notSupported(`${vp}.fieldRef.fieldPath`, fr.fieldPath, ENV_FIELD_PATHS.slice().sort()));
        }
      }
    }
    if (vf.resourceFieldRef) n++;
    for (const kind of ["configMapKeyRef", "secretKeyRef"] as const) {
      const ks = vf[kind];
      if (!ks) continue;
      n++;
      for (const m of isDNS1123Subdomain(ks.name ?? "")) errs.push(field.invalid(`${vp}.${kind}.name`, ks.name ?? "", m));
      if (!ks.key) errs.push(field.required(`${vp}.${kind}.key`));
      else for (const m of isConfigMapKey(ks.key)) errs.push(field.invalid(`${vp}.${kind}.key`, ks.key, m));
    }
    if (n === 0) errs.push(field.invalid(vp, "", "must specify one of: `fieldRef`, `resourceFieldRef`, `configMapKeyRef` or `secretKeyRef`"));
    else if (ev.value) errs.push(field.invalid(vp, "", "may not be specified when `value` is not empty"));
    else if (n > 1) errs.push(field.invalid(vp, "", "may not have more than one field specified at a time"));
  });
  return errs;
}

function validateVolumeMounts(mounts: any[], volumes: Set<string>, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const points = new Set<string>();
  mounts.forEach((m, i) => {
    const idx = `${path}[${i}]`;
    if (!m?.name) errs.push(field.required(`${idx}.name`));
    if (!volumes.has(m?.name ?? "")) errs.push({ type: "FieldValueNotFound", field: `${idx}.name`, value: m?.name ?? "", hasValue: true, detail: "" });
    if (!m?.mountPath) errs.push(field.required(`${idx}.mountPath`));
    if (points.has(m?.mountPath ?? "")) errs.push(field.invalid(`${idx}.mountPath`, m?.mountPath ?? "", "must be unique"));
    points.add(m?.mountPath ?? "");
    if (m?.subPath) {
      if (String(m.subPath).startsWith("/")) errs.push(field.invalid(`${path}.subPath`, m.subPath, "must be a relative path"));
      if (String(m.subPath).split("/").includes("..")) errs.push(field.invalid(`${path}.subPath`, m.subPath, "must not contain '..'"));
    }
  });
  return errs;
}

function validateProbe(p: any, path: string, kind: "liveness" | "readiness" | "startup"): FieldError[] {
  if (!p) return [];
  const errs: FieldError[] = [];
  const handlers = ["exec", "httpGet", "tcpSocket", "grpc"].filter((h) => p[h] !== undefined && p[h] !== null);
  handlers.slice(1).forEach((h) => errs.push(field.forbidden(`${path}.${h}`, "may not specify more than 1 handler type")));
  if (handlers.length === 0) errs.push(field.required(path, "must specify a handler type"));
  const h = handlers[0];
  if (h === "exec" && !(Array.isArray(p.exec?.command) && p.exec.command.length)) errs.push(field.required(`${path}.exec.command`));
  if (h === "httpGet" || h === "tcpSocket" || h === "grpc") {
    const port = p[h]?.port;
    const pp = `${path}.${h}.port`;
    if (typeof port === "number") for (const m of isValidPortNum(port)) errs.push(field.invalid(pp, port, m));
    else if (typeof port === "string") for (const m of isValidPortName(port)) errs.push(field.invalid(pp, port, m));
    if (h === "httpGet") {
      if (!p.httpGet.path) errs.push(field.required(`${path}.httpGet.path`));
      if (p.httpGet.scheme !== "HTTP" && p.httpGet.scheme !== "HTTPS") errs.push(field.notSupported(`${path}.httpGet.scheme`, p.httpGet.scheme ?? "", ["HTTP", "HTTPS"]));
    }
  }
  for (const k of ["initialDelaySeconds", "timeoutSeconds", "periodSeconds", "successThreshold", "failureThreshold"]) {
    errs.push(...nonNegative(p[k], `${path}.${k}`));
  }
  if (typeof p.terminationGracePeriodSeconds === "number" && p.terminationGracePeriodSeconds <= 0) {
    errs.push(field.invalid(`${path}.terminationGracePeriodSeconds`, p.terminationGracePeriodSeconds, "must be greater than 0"));
  }
  if ((kind === "liveness" || kind === "startup") && p.successThreshold !== 1) {
    errs.push(field.invalid(`${path}.successThreshold`, p.successThreshold ?? 0, "must be 1"));
  }
  if (kind === "readiness" && p.terminationGracePeriodSeconds !== undefined && p.terminationGracePeriodSeconds !== null) {
    errs.push(field.invalid(`${path}.terminationGracePeriodSeconds`, p.terminationGracePeriodSeconds, "must not be set for readinessProbes"));
  }
  return errs;
}

function validateContainerCommon(c: any, volumes: Set<string>, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (!c?.name) errs.push(field.required(`${path}.name`));
  else errs.push(...dns1123Label(c.name, `${path}.name`));
  if (!c?.image) errs.push(field.required(`${path}.image`));
  const tmp = c?.terminationMessagePolicy ?? "";
  if (tmp === "") errs.push(field.required(`${path}.terminationMessagePolicy`));
  else if (tmp !== "File" && tmp !== "FallbackToLogsOnError") {
    errs.push(field.notSupported(`${path}.terminationMessagePolicy`, tmp, ["File", "FallbackToLogsOnError"]));
  }
  errs.push(...validateContainerPorts(arr(c?.ports), `${path}.ports`));
  errs.push(...validateEnv(arr(c?.env), `${path}.env`));
  errs.push(...validateVolumeMounts(arr(c?.volumeMounts), volumes, `${path}.volumeMounts`));
  const pp = c?.imagePullPolicy ?? "";
  if (pp === "") errs.push(field.required(`${path}.imagePullPolicy`));
  else if (!["Always", "IfNotPresent", "Never"].includes(pp)) errs.push(field.notSupported(`${path}.imagePullPolicy`, pp, ["Always", "IfNotPresent", "Never"]));
  return errs;
}

function checkHostPortConflicts(containers: any[], path: string): FieldError[] {
  const seen = new Set<string>();
  const errs: FieldError[] = [];
  containers.forEach((c, ci) =>
    arr(c?.ports).forEach((p, pi) => {
      if (!p?.hostPort) return;
      const s = `${p.protocol ?? ""}/${p.hostIP ?? ""}/${p.hostPort}`;
      if (seen.has(s)) errs.push(field.duplicate(`${path}[${ci}].ports[${pi}].hostPort`, s));
      else seen.add(s);
    }),
  );
  return errs;
}

const TOLERATION_EFFECTS = ["NoSchedule", "PreferNoSchedule", "NoExecute"];

function validateTolerations(tols: any[], path: string): FieldError[] {
  const errs: FieldError[] = [];
  tols.forEach((t, i) => {
    const idx = `${path}[${i}]`;
    const key: string = t?.key ?? "";
    const op: string = t?.operator ?? "";
    if (key) errs.push(...validateLabelName(key, `${idx}.key`));
    if (!key && op !== "Exists") errs.push(field.invalid(`${idx}.operator`, op, 'operator must be Exists when `key` is empty, which means "match all values and all keys"'));
    if (t?.tolerationSeconds !== undefined && t?.tolerationSeconds !== null && t?.effect !== "NoExecute") {
      errs.push(field.invalid(`${idx}.effect`, t?.effect ?? "", "effect must be 'NoExecute' when `tolerationSeconds` is set"));
    }
    if (op === "Equal" || op === "") {
      const m = isValidLabelValue(t?.value ?? "");
      if (m.length) errs.push(field.invalid(`${idx}.operator`, t?.value ?? "", m.join(";")));
    } else if (op === "Exists") {
      if (t?.value) errs.push(field.invalid(`${idx}.operator`, t.value, "value must be empty when `operator` is 'Exists'"));
    } else errs.push(field.notSupported(`${idx}.operator`, op, ["Equal", "Exists"]));
    if (t?.effect && !TOLERATION_EFFECTS.includes(t.effect)) errs.push(field.notSupported(`${idx}.effect`, t.effect, TOLERATION_EFFECTS));
  });
  return errs;
}

interface PodSpecOpts {
  isPod: boolean;
}

function validatePodSpec(spec: any, path: string, opts: PodSpecOpts): FieldError[] {
  const s = spec ?? {};
  const errs: FieldError[] = [];
  if (s.terminationGracePeriodSeconds === undefined || s.terminationGracePeriodSeconds === null) {
    errs.push(field.required(`${path}.terminationGracePeriodSeconds`));
  }
  const [vols, vErrs] = validateVolumes(arr(s.volumes), `${path}.volumes`);
  errs.push(...vErrs);
  const containers = arr(s.containers);
  if (containers.length === 0) errs.push(field.required(`${path}.containers`));
  else {
    const names = new Set<string>();
    containers.forEach((c, i) => {
      const p = `${path}.containers[${i}]`;
      errs.push(...validateContainerCommon(c, vols, p));
      if (names.has(c?.name)) errs.push(field.duplicate(`${p}.name`, c?.name ?? ""));
      else names.add(c?.name);
      errs.push(...validateProbe(c?.livenessProbe, `${p}.livenessProbe`, "liveness"));
      errs.push(...validateProbe(c?.readinessProbe, `${p}.readinessProbe`, "readiness"));
      errs.push(...validateProbe(c?.startupProbe, `${p}.startupProbe`, "startup"));
      if (c?.restartPolicy) errs.push(field.forbidden(`${p}.restartPolicy`, "may not be set for non-init containers"));
    });
    errs.push(...checkHostPortConflicts(containers, `${path}.containers`));
  }
  const inits = arr(s.initContainers);
  const all = new Set<string>(containers.map((c) => c?.name));
  inits.forEach((c, i) => {
    const p = `${path}.initContainers[${i}]`;
    errs.push(...validateContainerCommon(c, vols, p));
    const always = c?.restartPolicy === "Always";
    if (c?.restartPolicy && !always) errs.push(field.notSupported(`${p}.restartPolicy`, c.restartPolicy, ["Always"]));
    if (all.has(c?.name)) errs.push(field.duplicate(`${p}.name`, c?.name ?? ""));
    else if (c?.name) all.add(c.name);
    errs.push(...checkHostPortConflicts([c], `${path}.initContainers`));
    if (always) {
      errs.push(...validateProbe(c?.livenessProbe, `${p}.livenessProbe`, "liveness"));
      errs.push(...validateProbe(c?.readinessProbe, `${p}.readinessProbe`, "readiness"));
      errs.push(...validateProbe(c?.startupProbe, `${p}.startupProbe`, "startup"));
    } else {
      for (const k of ["lifecycle", "livenessProbe", "readinessProbe", "startupProbe"]) {
        if (c?.[k]) errs.push(field.forbidden(`${p}.${k}`, "may not be set for init containers without restartPolicy=Always"));
      }
    }
  });
  if (s.hostNetwork === true) {
    containers.forEach((c, i) =>
      arr(c?.ports).forEach((p, j) => {
        const hp = p?.hostPort ?? 0;
        if ((opts.isPod || hp !== 0) && hp !== p?.containerPort) {
          errs.push(field.invalid(`${path}.containers[${i}].ports[${j}].hostPort`, hp, "must match `containerPort` when `hostNetwork` is true"));
        }
      }),
    );
  }
  const rp = s.restartPolicy ?? "";
  if (rp === "") errs.push(field.required(`${path}.restartPolicy`));
  else if (!["Always", "OnFailure", "Never"].includes(rp)) errs.push(field.notSupported(`${path}.restartPolicy`, rp, ["Always", "OnFailure", "Never"]));
  const dp = s.dnsPolicy ?? "";
  const DNS = ["ClusterFirstWithHostNet", "ClusterFirst", "Default", "None"];
  if (dp === "") errs.push(field.required(`${path}.dnsPolicy`));
  else if (!DNS.includes(dp)) errs.push(field.notSupported(`${path}.dnsPolicy`, dp, DNS));
  errs.push(...validateLabels(s.nodeSelector, `${path}.nodeSelector`));
  if (dp === "None") {
    if (!s.dnsConfig) errs.push(field.required(`${path}.dnsConfig`, "must provide `dnsConfig` when `dnsPolicy` is None"));
    else if (!arr(s.dnsConfig.nameservers).length) {
      errs.push(field.required(`${path}.dnsConfig.nameservers`, "must provide at least one DNS nameserver when `dnsPolicy` is None"));
    }
  }
  if (s.dnsConfig) {
    const ns = arr(s.dnsConfig.nameservers);
    if (ns.length > 3) errs.push(field.invalid(`${path}.dnsConfig.nameservers`, gosl(ns), "must not have more than 3 nameservers"));
    ns.forEach((n, i) => errs.push(...isValidIP(`${path}.dnsConfig.nameservers[${i}]`, n)));
    const se = arr(s.dnsConfig.searches);
    if (se.length > 32) errs.push(field.invalid(`${path}.dnsConfig.searches`, gosl(se), "must not have more than 32 search paths"));
    se.forEach((x, i) => {
      if (x !== ".") errs.push(...dns1123Subdomain(String(x).replace(/\.$/, ""), `${path}.dnsConfig.searches[${i}]`));
    });
  }
  if (s.serviceAccountName) {
    for (const m of nameIsDNSSubdomain(s.serviceAccountName, false)) errs.push(field.invalid(`${path}.serviceAccountName`, s.serviceAccountName, m));
  }
  if (s.nodeName) for (const m of nameIsDNSSubdomain(s.nodeName, false)) errs.push(field.invalid(`${path}.nodeName`, s.nodeName, m));
  if (typeof s.activeDeadlineSeconds === "number" && (s.activeDeadlineSeconds < 1 || s.activeDeadlineSeconds > 2147483647)) {
    errs.push(field.invalid(`${path}.activeDeadlineSeconds`, s.activeDeadlineSeconds, inclusiveRangeError(1, 2147483647)));
  }
  if (s.hostname) errs.push(...dns1123Label(s.hostname, `${path}.hostname`));
  if (s.subdomain) errs.push(...dns1123Label(s.subdomain, `${path}.subdomain`));
  if (arr(s.tolerations).length) errs.push(...validateTolerations(s.tolerations, `${path}.tolerations`));
  if (s.priorityClassName) {
    for (const m of nameIsDNSSubdomain(s.priorityClassName, false)) errs.push(field.invalid(`${path}.priorityClassName`, s.priorityClassName, m));
  }
  if (s.preemptionPolicy !== undefined && !["PreemptLowerPriority", "Never"].includes(s.preemptionPolicy)) {
    if (s.preemptionPolicy === "") errs.push(field.required(`${path}.preemptionPolicy`));
    else errs.push(field.notSupported(`${path}.preemptionPolicy`, s.preemptionPolicy, ["PreemptLowerPriority", "Never"]));
  }
  return errs;
}

/** ValidatePodTemplateSpec (labels/annotations of the template, then its spec). */
export function validatePodTemplateSpec(t: any, path: string): FieldError[] {
  const errs: FieldError[] = [];
  errs.push(...validateLabels(t?.metadata?.labels, `${path}.labels`));
  errs.push(...validateAnnotations(t?.metadata?.annotations, `${path}.annotations`));
  errs.push(...validatePodSpec(t?.spec, `${path}.spec`, { isPod: false }));
  if (t?.spec?.ephemeralContainers) errs.push(field.forbidden(`${path}.spec.ephemeralContainers`, "ephemeral containers not allowed in pod template"));
  return errs;
}

export function validatePod(pod: any): FieldError[] {
  const errs = validateObjectMeta(pod?.metadata, true, nameIsDNSSubdomain);
  errs.push(...validatePodSpec(pod?.spec, "spec", { isPod: true }));
  arr(pod?.spec?.containers).forEach((c, i) => {
    const img = String(c?.image ?? "");
    if (img.length !== img.trim().length) errs.push(field.invalid(`spec.containers[${i}].image`, img, "must not have leading or trailing whitespace"));
  });
  return errs;
}

/**
 * ValidatePodUpdate, reduced to what ServiceLab's pods can change: image, activeDeadlineSeconds,
 * tolerations (additions, and tolerationSeconds) and, once, nodeName via binding.
 */
export function validatePodUpdate(pod: any, old: any): FieldError[] {
  const errs = validateObjectMetaUpdate(pod?.metadata, old?.metadata);
  errs.push(...validatePod(pod).filter((e) => !e.field.startsWith("metadata.")));
  const strip = (s: any) => {
    const c = structuredClone(s ?? {});
    for (const k of ["containers", "initContainers"]) for (const x of arr(c[k])) delete x.image;
    delete c.activeDeadlineSeconds;
    delete c.tolerations;
    delete c.terminationGracePeriodSeconds;
    if (!s?.nodeName) delete c.nodeName;
    return c;
  };
  const a = strip(pod?.spec);
  const b = strip(old?.spec);
  if (!pod?.spec?.nodeName || !old?.spec?.nodeName) {
    delete a.nodeName;
    delete b.nodeName;
  }
  if (JSON.stringify(sortKeys(a)) !== JSON.stringify(sortKeys(b))) {
    errs.push(
      field.forbidden(
        "spec",
        "pod updates may not change fields other than `spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)",
      ),
    );
  }
  return errs;
}

function sortKeys(v: any): any {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (v && typeof v === "object") return Object.fromEntries(Object.keys(v).sort().map((k) => [k, sortKeys(v[k])]));
  return v;
}

// ---------------------------------------------------------------------------------------------
// Service

const isHeadless = (spec: any) => Array.isArray(spec?.clusterIPs) && spec.clusterIPs.length === 1 && spec.clusterIPs[0] === "None";
const SERVICE_TYPES = ["ClusterIP", "ExternalName", "LoadBalancer", "NodePort"];
const MAX_CLIENT_IP_AFFINITY = 86400;

function validateServiceClusterIPsRelatedFields(spec: any): FieldError[] {
  if (spec.type === "ExternalName") return [];
  const errs: FieldError[] = [];
  const ips: string[] = arr(spec.clusterIPs);
  if (spec.clusterIP) {
    if (ips.length === 0) errs.push(field.required("spec.clusterIPs"));
    else if (ips[0] !== spec.clusterIP) errs.push(field.invalid("spec.clusterIPs", gosl(ips), "first value must match `clusterIP`"));
  } else if (ips.length) {
    errs.push(field.invalid("spec.clusterIPs", gosl(ips), "must be empty when `clusterIP` is not specified"));
  }
  const seen = new Set<string>();
  arr(spec.ipFamilies).forEach((f, i) => {
    if (f !== "IPv4" && f !== "IPv6") errs.push(field.notSupported(`spec.ipFamilies[${i}]`, f, ["IPv4", "IPv6"]));
    if (seen.has(f)) errs.push(field.duplicate(`spec.ipFamilies[${i}]`, f));
    seen.add(f);
  });
  if (spec.ipFamilyPolicy !== undefined && spec.ipFamilyPolicy !== null) {
    const P = ["PreferDualStack", "RequireDualStack", "SingleStack"];
    if (!P.includes(spec.ipFamilyPolicy)) errs.push(field.notSupported("spec.ipFamilyPolicy", spec.ipFamilyPolicy, P));
  }
  let bad = false;
  ips.forEach((ip, i) => {
    if (i === 0 && ip === "None") {
      if (ips.length > 1) {
        bad = true;
        errs.push(field.invalid("spec.clusterIPs", gosl(ips), "'None' must be the first and only value"));
      }
      return;
    }
    const e = isValidIP(`spec.clusterIPs[${i}]`, ip);
    if (e.length) bad = true;
    errs.push(...e);
  });
  if (ips.length > 2) errs.push(field.invalid("spec.clusterIPs", gosl(ips), "may only hold up to 2 values"));
  if (bad) return errs;
  if (ips.length > 1) {
    const fams = ips.map((ip) => (ipv4Octets(ip) ? 4 : 6));
    if (!(fams.length === 2 && fams[0] !== fams[1])) {
      errs.push(field.invalid("spec.clusterIPs", gosl(ips), "may specify no more than one IP for each IP family"));
    }
  }
  const fams = arr(spec.ipFamilies);
  if (!isHeadless(spec) && ips.length && fams.length) {
    ips.forEach((ip, i) => {
      if (i > fams.length - 1) return;
      const v6 = !ipv4Octets(ip);
      if (fams[i] === "IPv4" && v6) errs.push(field.invalid(`spec.clusterIPs[${i}]`, ip, `expected an IPv4 value as indicated by \`ipFamilies[${i}]\``));
      if (fams[i] === "IPv6" && !v6) errs.push(field.invalid(`spec.clusterIPs[${i}]`, ip, `expected an IPv6 value as indicated by \`ipFamilies[${i}]\``));
    });
  }
  return errs;
}

function validateServicePort(sp: any, requireName: boolean, names: Set<string>, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (requireName && !sp?.name) errs.push(field.required(`${path}.name`));
  else if (sp?.name) {
    errs.push(...dns1123Label(sp.name, `${path}.name`));
    if (names.has(sp.name)) errs.push(field.duplicate(`${path}.name`, sp.name));
    else names.add(sp.name);
  }
  for (const m of isValidPortNum(sp?.port ?? 0)) errs.push(field.invalid(`${path}.port`, sp?.port ?? 0, m));
  if (!sp?.protocol) errs.push(field.required(`${path}.protocol`));
  else if (!SUPPORTED_PROTOCOLS.includes(sp.protocol)) errs.push(field.notSupported(`${path}.protocol`, sp.protocol, SUPPORTED_PROTOCOLS));
  const tp = sp?.targetPort;
  if (typeof tp === "string") for (const m of isValidPortName(tp)) errs.push(field.invalid(`${path}.targetPort`, tp, m));
  else for (const m of isValidPortNum(typeof tp === "number" ? tp : 0)) errs.push(field.invalid(`${path}.targetPort`, typeof tp === "number" ? tp : 0, m));
  if (sp?.appProtocol !== undefined && sp?.appProtocol !== null) errs.push(...qualifiedName(sp.appProtocol, `${path}.appProtocol`));
  return errs;
}

function externallyAccessible(spec: any): boolean {
  return spec.type === "LoadBalancer" || spec.type === "NodePort" || (spec.type === "ClusterIP" && arr(spec.externalIPs).length > 0);
}

export function validateService(svc: any): FieldError[] {
  const errs = validateObjectMeta(svc?.metadata, true, nameIsDNS1035Label);
  const spec = svc?.spec ?? {};
  const ann = svc?.metadata?.annotations ?? {};
  const hints = ann["service.kubernetes.io/topology-aware-hints"];
  const mode = ann["service.kubernetes.io/topology-mode"];
  if (hints !== undefined && mode !== undefined && hints !== mode) {
    errs.push(
      field.invalid("metadata.annotations[service.kubernetes.io/topology-mode]", mode, "must match annotations[service.kubernetes.io/topology-aware-hints] when both are specified"),
    );
  }
  const ports = arr(spec.ports);
  const headless = isHeadless(spec);
  if (ports.length === 0 && !headless && spec.type !== "ExternalName") errs.push(field.required("spec.ports"));
  switch (spec.type) {
    case "LoadBalancer":
      if (headless) errs.push(field.invalid("spec.clusterIPs[0]", spec.clusterIPs[0], "may not be set to 'None' for LoadBalancer services"));
      break;
    case "NodePort":
      if (headless) errs.push(field.invalid("spec.clusterIPs[0]", spec.clusterIPs[0], "may not be set to 'None' for NodePort services"));
      break;
    case "ExternalName": {
      if (arr(spec.clusterIPs).length) errs.push(field.forbidden("spec.clusterIPs", "may not be set for ExternalName services"));
      if (arr(spec.ipFamilies).length) errs.push(field.forbidden("spec.ipFamilies", "may not be set for ExternalName services"));
      if (spec.ipFamilyPolicy !== undefined && spec.ipFamilyPolicy !== null) errs.push(field.forbidden("spec.ipFamilyPolicy", "may not be set for ExternalName services"));
      const cname = String(spec.externalName ?? "").replace(/\.$/, "");
      if (cname) errs.push(...dns1123Subdomain(cname, "spec.externalName"));
      else errs.push(field.required("spec.externalName"));
      break;
    }
  }
  const names = new Set<string>();
  ports.forEach((p, i) => errs.push(...validateServicePort(p, ports.length > 1, names, `spec.ports[${i}]`)));
  if (spec.selector) errs.push(...validateLabels(spec.selector, "spec.selector"));
  const aff = spec.sessionAffinity ?? "";
  if (aff === "") errs.push(field.required("spec.sessionAffinity"));
  else if (aff !== "ClientIP" && aff !== "None") errs.push(field.notSupported("spec.sessionAffinity", aff, ["ClientIP", "None"]));
  if (aff === "ClientIP") {
    const cfg = spec.sessionAffinityConfig;
    const p = "spec.sessionAffinityConfig";
    if (!cfg) errs.push(field.required(p, "when session affinity type is ClientIP"));
    else if (!cfg.clientIP) errs.push(field.required(`${p}.clientIP`, "when session affinity type is ClientIP"));
    else if (cfg.clientIP.timeoutSeconds === undefined || cfg.clientIP.timeoutSeconds === null) {
      errs.push(field.required(`${p}.clientIP.timeoutSeconds`, "when session affinity type is ClientIP"));
    } else {
      const t = cfg.clientIP.timeoutSeconds;
      if (t <= 0 || t > MAX_CLIENT_IP_AFFINITY) {
        errs.push(field.invalid(`${p}.clientIP.timeoutSeconds`, t, `must be greater than 0 and less than ${MAX_CLIENT_IP_AFFINITY}`));
      }
    }
  } else if (aff === "None" && spec.sessionAffinityConfig) {
    errs.push(field.forbidden("spec.sessionAffinityConfig", "must not be set when session affinity is None"));
  }
  errs.push(...validateServiceClusterIPsRelatedFields(spec));
  arr(spec.externalIPs).forEach((ip, i) => {
    const p = `spec.externalIPs[${i}]`;
    const e = isValidIP(p, ip);
    errs.push(...(e.length ? e : validateNonSpecialIP(ip, p)));
  });
  const type = spec.type ?? "";
  if (type === "") errs.push(field.required("spec.type"));
  else if (!SERVICE_TYPES.includes(type)) errs.push(field.notSupported("spec.type", type, SERVICE_TYPES));
  if (type === "ClusterIP") {
    ports.forEach((p, i) => {
      if (p?.nodePort) errs.push(field.forbidden(`spec.ports[${i}].nodePort`, "may not be used when `type` is 'ClusterIP'"));
    });
  }
  const nodePorts = new Set<string>();
  ports.forEach((p, i) => {
    if (!p?.nodePort) return;
    const k = `${p.protocol}/${p.nodePort}`;
    if (nodePorts.has(k)) errs.push(field.duplicate(`spec.ports[${i}].nodePort`, p.nodePort));
    nodePorts.add(k);
  });
  const seenPorts = new Set<string>();
  ports.forEach((p, i) => {
    const k = `${p?.protocol ?? ""}/${p?.port ?? 0}`;
    if (seenPorts.has(k)) errs.push(field.duplicate(`spec.ports[${i}]`, goServicePortKey(p?.protocol ?? "", p?.port ?? 0)));
    seenPorts.add(k);
  });
  const ranges = arr(spec.loadBalancerSourceRanges);
  if (ranges.length) {
    // The capitalised path is upstream's.
    if (type !== "LoadBalancer") errs.push(field.forbidden("spec.LoadBalancerSourceRanges", "may only be used when `type` is 'LoadBalancer'"));
    ranges.forEach((r, i) => errs.push(...isValidCIDR(`spec.LoadBalancerSourceRanges[${i}]`, String(r).trim())));
  }
  if (spec.allocateLoadBalancerNodePorts !== undefined && spec.allocateLoadBalancerNodePorts !== null && type !== "LoadBalancer") {
    errs.push(field.forbidden("spec.allocateLoadBalancerNodePorts", "may only be used when `type` is 'LoadBalancer'"));
  }
  if (type === "LoadBalancer" && (spec.allocateLoadBalancerNodePorts === undefined || spec.allocateLoadBalancerNodePorts === null)) {
    errs.push(field.required("allocateLoadBalancerNodePorts"));
  }
  if (spec.loadBalancerClass !== undefined && spec.loadBalancerClass !== null) {
    if (type !== "LoadBalancer") errs.push(field.forbidden("spec.loadBalancerClass", "may only be used when service type is 'LoadBalancer'"));
    else errs.push(...qualifiedName(spec.loadBalancerClass, "spec.loadBalancerClass"));
  }
  // external traffic policy
  const etp = spec.externalTrafficPolicy ?? "";
  if (!externallyAccessible(spec)) {
    if (etp) errs.push(field.invalid("spec.externalTrafficPolicy", etp, "may only be set for externally-accessible services"));
  } else if (etp === "") errs.push(field.required("spec.externalTrafficPolicy"));
  else if (etp !== "Cluster" && etp !== "Local") errs.push(field.notSupported("spec.externalTrafficPolicy", etp, ["Cluster", "Local"]));
  const hc = spec.healthCheckNodePort ?? 0;
  if (!(type === "LoadBalancer" && etp === "Local")) {
    if (hc) errs.push(field.invalid("spec.healthCheckNodePort", hc, "may only be set when `type` is 'LoadBalancer' and `externalTrafficPolicy` is 'Local'"));
  } else if (hc) {
    // A zero value is allocated after validation in ServiceLab's apiserver; upstream allocates first.
    for (const m of isValidPortNum(hc)) errs.push(field.invalid("spec.healthCheckNodePort", hc, m));
  }
  if (spec.internalTrafficPolicy === undefined || spec.internalTrafficPolicy === null) {
    if (type === "NodePort" || type === "LoadBalancer" || type === "ClusterIP") errs.push(field.required("spec.internalTrafficPolicy"));
  } else if (spec.internalTrafficPolicy !== "Cluster" && spec.internalTrafficPolicy !== "Local") {
    errs.push(field.notSupported("spec.internalTrafficPolicy", spec.internalTrafficPolicy, ["Cluster", "Local"]));
  }
  if (spec.trafficDistribution !== undefined && spec.trafficDistribution !== null && spec.trafficDistribution !== "PreferClose") {
    errs.push(field.notSupported("spec.trafficDistribution", spec.trafficDistribution, ["PreferClose"]));
  }
  return errs;
}

export function validateServiceUpdate(svc: any, old: any): FieldError[] {
  const errs = validateObjectMetaUpdate(svc?.metadata, old?.metadata);
  const s = svc?.spec ?? {};
  const o = old?.spec ?? {};
  if (s.type !== "ExternalName" && o.type !== "ExternalName" && !(isHeadless(s) && isHeadless(o))) {
    const n: string[] = arr(s.clusterIPs);
    const p: string[] = arr(o.clusterIPs);
    if (p.length === n.length) {
      p.forEach((ip, i) => {
        if (ip !== n[i]) errs.push(field.invalid(`spec.clusterIPs[${i}]`, gosl(n), "may not change once set"));
      });
    } else if (p.length > n.length) {
      if (n.length === 0) errs.push(field.invalid("spec.clusterIPs[0]", gosl(n), "primary clusterIP can not be unset"));
      if (p.length && n.length && n[0] !== p[0]) errs.push(field.invalid("spec.clusterIPs[0]", gosl(n), "may not change once set"));
      if (n.length === 1 && s.ipFamilyPolicy !== "SingleStack") {
        errs.push(field.invalid("spec.ipFamilyPolicy", s.ipFamilyPolicy ?? null, "must be set to 'SingleStack' when releasing the secondary clusterIP"));
      }
    } else if (p.length && n[0] !== p[0]) {
      errs.push(field.invalid("spec.clusterIPs[0]", gosl(n), "may not change once set"));
    }
  }
  if (s.type !== "ExternalName" && o.type !== "ExternalName" && isHeadless(s) === isHeadless(o) && !isHeadless(s)) {
    const n: string[] = arr(s.ipFamilies);
    const p: string[] = arr(o.ipFamilies);
    if (p.length === n.length) {
      p.forEach((f, i) => {
        if (f !== n[i]) errs.push(field.invalid("spec.ipFamilies[0]", gosl(n), "may not change once set"));
      });
    }
  }
  if (o.type === "LoadBalancer" && s.type === "LoadBalancer" && (o.loadBalancerClass ?? null) !== (s.loadBalancerClass ?? null)) {
    errs.push(field.invalid("spec.loadBalancerClass", s.loadBalancerClass ?? null, "may not change once set"));
  }
  const needsHC = (x: any) => x.type === "LoadBalancer" && x.externalTrafficPolicy === "Local";
  if (needsHC(o) && needsHC(s) && s.healthCheckNodePort && s.healthCheckNodePort !== o.healthCheckNodePort) {
    errs.push(field.forbidden("spec.healthCheckNodePort", FIELD_IMMUTABLE));
  }
  errs.push(...validateService(svc));
  return errs;
}

// ---------------------------------------------------------------------------------------------
// ConfigMap, Namespace, Node, Endpoints, Event

const MAX_CONFIGMAP_SIZE = 1024 * 1024;

export function validateConfigMap(cm: any): FieldError[] {
  const errs = validateObjectMeta(cm?.metadata, true, nameIsDNSSubdomain);
  let total = 0;
  const data: Record<string, string> = cm?.data ?? {};
  const bin: Record<string, string> = cm?.binaryData ?? {};
  for (const k of Object.keys(data).sort()) {
    for (const m of isConfigMapKey(k)) errs.push(field.invalid(`data[${k}]`, k, m));
    if (k in bin) errs.push(field.invalid(`data[${k}]`, k, "duplicate of key present in binaryData"));
    total += byteLen(data[k] ?? "");
  }
  for (const k of Object.keys(bin).sort()) {
    for (const m of isConfigMapKey(k)) errs.push(field.invalid(`binaryData[${k}]`, k, m));
    // binaryData travels base64-encoded; its size is the decoded length.
    const b64 = String(bin[k] ?? "").replace(/=+$/, "");
    total += Math.floor((b64.length * 3) / 4);
  }
  if (total > MAX_CONFIGMAP_SIZE) errs.push(tooLong("", MAX_CONFIGMAP_SIZE));
  return errs;
}

export function validateConfigMapUpdate(cm: any, old: any): FieldError[] {
  const errs = validateObjectMetaUpdate(cm?.metadata, old?.metadata);
  if (old?.immutable === true) {
    if (cm?.immutable !== true) errs.push(field.forbidden("immutable", "field is immutable when `immutable` is set"));
    if (JSON.stringify(sortKeys(cm?.data ?? null)) !== JSON.stringify(sortKeys(old?.data ?? null))) {
      errs.push(field.forbidden("data", "field is immutable when `immutable` is set"));
    }
    if (JSON.stringify(sortKeys(cm?.binaryData ?? null)) !== JSON.stringify(sortKeys(old?.binaryData ?? null))) {
      errs.push(field.forbidden("binaryData", "field is immutable when `immutable` is set"));
    }
  }
  errs.push(...validateConfigMap(cm));
  return errs;
}

export function validateNamespace(ns: any): FieldError[] {
  const errs = validateObjectMeta(ns?.metadata, false, nameIsDNSLabel);
  for (const f of arr(ns?.spec?.finalizers)) {
    for (const m of isQualifiedName(f)) errs.push(field.invalid("spec.finalizers", f, m));
    if (String(f).split("/").length === 1 && !["kubernetes", "orphan", "foregroundDeletion"].includes(f)) {
      errs.push(field.invalid("spec.finalizers", f, "name is neither a standard finalizer name nor is it fully qualified"));
    }
  }
  return errs;
}

function validateTaints(taints: any[], path: string): FieldError[] {
  const errs: FieldError[] = [];
  const unique = new Map<string, Set<string>>();
  taints.forEach((t, i) => {
    const idx = `${path}[${i}]`;
    errs.push(...validateLabelName(t?.key ?? "", `${idx}.key`));
    const vm = isValidLabelValue(t?.value ?? "");
    if (vm.length) errs.push(field.invalid(`${idx}.value`, t?.value ?? "", vm.join(";")));
    if (!t?.effect) errs.push(field.required(`${idx}.effect`));
    else if (!TOLERATION_EFFECTS.includes(t.effect)) errs.push(field.notSupported(`${idx}.effect`, t.effect, TOLERATION_EFFECTS));
    const set = unique.get(t?.effect) ?? new Set<string>();
    if (set.has(t?.key)) {
      errs.push({
        type: "FieldValueDuplicate",
        field: idx,
        value: new GoValue(`core.Taint{Key:${goQ(t?.key ?? "")}, Value:${goQ(t?.value ?? "")}, Effect:${goQ(t?.effect ?? "")}, TimeAdded:<nil>}`),
        hasValue: true,
        detail: "taints must be unique by key and effect pair",
      });
      return;
    }
    set.add(t?.key);
    unique.set(t?.effect, set);
  });
  return errs;
}

export function validateNode(node: any): FieldError[] {
  // The taints path is upstream's: metadata.taints.
  const errs = validateObjectMeta(node?.metadata, false, nameIsDNSSubdomain);
  if (arr(node?.spec?.taints).length) errs.push(...validateTaints(node.spec.taints, "metadata.taints"));
  const cidrs = arr(node?.spec?.podCIDRs);
  cidrs.forEach((c, i) => errs.push(...isValidCIDR(`spec.podCIDRs[${i}]`, c)));
  return errs;
}

export function validateNodeUpdate(node: any, old: any): FieldError[] {
  const errs = validateObjectMetaUpdate(node?.metadata, old?.metadata);
  const oc = arr(old?.spec?.podCIDRs);
  const nc = arr(node?.spec?.podCIDRs);
  if (oc.length) {
    if (oc.length !== nc.length || oc.some((c, i) => c !== nc[i])) {
      errs.push(field.forbidden("spec.podCIDRs", 'node updates may not change podCIDR except from "" to valid'));
    }
  }
  if (old?.spec?.providerID && old.spec.providerID !== node?.spec?.providerID) {
    errs.push(field.forbidden("spec.providerID", 'node updates may not change providerID except from "" to valid'));
  }
  if (arr(node?.spec?.taints).length) errs.push(...validateTaints(node.spec.taints, "metadata.taints"));
  return errs;
}

export function validateEndpoints(ep: any): FieldError[] {
  const errs = validateObjectMeta(ep?.metadata, true, nameIsDNSSubdomain);
  arr(ep?.subsets).forEach((ss, i) => {
    const idx = `subsets[${i}]`;
    if (!arr(ss?.addresses).length && !arr(ss?.notReadyAddresses).length) {
      errs.push(field.required(idx, "must specify `addresses` or `notReadyAddresses`"));
    }
    for (const k of ["addresses", "notReadyAddresses"]) {
      arr(ss?.[k]).forEach((a, j) => {
        const p = `${idx}.${k}[${j}]`;
        errs.push(...isValidIP(`${p}.ip`, a?.ip ?? ""));
        if (a?.hostname) errs.push(...dns1123Label(a.hostname, `${p}.hostname`));
        if (a?.nodeName) for (const m of nameIsDNSSubdomain(a.nodeName, false)) errs.push(field.invalid(`${p}.nodeName`, a.nodeName, m));
        errs.push(...validateNonSpecialIP(a?.ip ?? "", `${p}.ip`));
      });
    }
    const ports = arr(ss?.ports);
    ports.forEach((pt, j) => {
      const p = `${idx}.ports[${j}]`;
      if (ports.length > 1 && !pt?.name) errs.push(field.required(`${p}.name`));
      else if (pt?.name) errs.push(...dns1123Label(pt.name, `${p}.name`));
      for (const m of isValidPortNum(pt?.port ?? 0)) errs.push(field.invalid(`${p}.port`, pt?.port ?? 0, m));
      if (!pt?.protocol) errs.push(field.required(`${p}.protocol`));
      else if (!SUPPORTED_PROTOCOLS.includes(pt.protocol)) errs.push(field.notSupported(`${p}.protocol`, pt.protocol, SUPPORTED_PROTOCOLS));
      if (pt?.appProtocol !== undefined && pt?.appProtocol !== null) errs.push(...qualifiedName(pt.appProtocol, `${p}.appProtocol`));
    });
  });
  return errs;
}

/** core/v1 Events: name a subdomain, involvedObject.namespace matching the event's. */
export function validateEvent(ev: any): FieldError[] {
  const errs = validateObjectMeta(ev?.metadata, true, nameIsDNSSubdomain);
  const ns = ev?.metadata?.namespace ?? "";
  const ions = ev?.involvedObject?.namespace ?? "";
  if (ions && ns !== ions) errs.push(field.invalid("involvedObject.namespace", ions, "does not match event.namespace"));
  return errs;
}
