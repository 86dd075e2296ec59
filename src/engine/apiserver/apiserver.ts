// The apiserver: the only door into a cluster's state. kubectl in the terminal, the REST API for
// real kubectl, labs, the UI and the controllers all write through these functions, so every
// object is decoded, defaulted, validated and allocated the same way and every refusal is the
// apiserver's own v1 Status.

import { applyDefaults, generateJobSelector } from "../api/defaults.js";
import { matchesFields, parseFieldSelector } from "../api/fields.js";
import { parseSelector } from "../api/labels.js";
import { applyPatch } from "../api/patch/index.js";
import { apiVersionOf, R, type ResourceInfo, resourceKey } from "../api/resources.js";
import {
  alreadyExists,
  badRequest,
  conflict,
  field,
  forbidden,
  invalid,
  isStatusError,
  notFound,
  notServed,
  OPTIMISTIC_LOCK_MESSAGE,
  quotaExceeded,
  type FieldError,
} from "../api/status.js";
import type { KObject, Service } from "../api/types.js";
import { validateObject, validateUpdate } from "../api/validation/index.js";
import { type Clock, rememberedRfc3339, rfc3339Micro } from "../clock.js";
import { NAME_ALPHABET, type RandomStreams } from "../rng.js";
import type { Store } from "../store/store.js";
import { ClusterIPAllocator, NodePortAllocator } from "./allocators.js";
import { decode, type FieldValidation } from "./decode.js";
import { ServiceAllocations } from "./service-alloc.js";
import { type EventRecord, EventRecorder } from "./event-recorder.js";
import { type Attribution, podAdmissionFields, recordApply, recordUpdate } from "./fieldmanager.js";
import { BINDING_FIELDS, deferKnownWrite, deferOwnWrite, withOwnWrites } from "./own-writes.js";
import { review } from "../rbac/reviews.js";
import { defaultPolicyBodies } from "../rbac/policy-objects.js";
import type { UserInfo } from "../rbac/authorizer.js";
import { parse as parseYaml } from "yaml";
import { cloneJSON } from "../util/clone.js";

interface ApiServerConfig {
  serviceCIDR: string;
  nodePortRange: [number, number];
}

export interface WriteOptions {
  dryRun?: boolean;
  fieldValidation?: FieldValidation;
  /**
   * Write the status subresource (status changes only) instead of the main resource; "scale":
   * a main-resource write through the scale subresource (attributed to it in managedFields).
   */
  subresource?: "status" | "scale";
  /** Warnings for the client (unknown fields, deprecations) are appended here. */
  warnings?: string[];
  /**
   * Who makes the write (the fieldManager parameter, or the user agent's first word): its
   * managedFields entry is recorded. Writes without one (the cluster's own) record none.
   */
  fieldManager?: string;
  /** Server-side apply: take fields other managers own instead of refusing (409). */
  force?: boolean;
  /** Set by apply itself: the object's managedFields are already those of the apply. */
  appliedFields?: boolean;
  /**
   * A trusted create of a definition every cluster shares (the default RBAC policy): everything
   * but metadata is frozen and stored as is, so clusters hold one copy of the rules between them.
   */
  sharedDefinition?: boolean;
  /** Who asks a review kind (SelfSubjectAccessReview...): kubeadm's admin when unset. */
  requester?: UserInfo;
}

export type PatchType = "json" | "merge" | "strategic" | "apply";

export interface ListOptions {
  labelSelector?: string;
  fieldSelector?: string;
}

export interface ListResult {
  items: KObject[];
  resourceVersion: string;
}

export type PropagationPolicy = "Foreground" | "Background" | "Orphan";

export interface DeleteOptions {
  propagationPolicy?: PropagationPolicy;
  gracePeriodSeconds?: number;
  dryRun?: boolean;
  preconditions?: { uid?: string; resourceVersion?: string };
}

/** How many Event objects a cluster keeps. */
export { MAX_EVENTS } from "./event-recorder.js";

/**
 * The host's limits on what a cluster holds, admitted as the ResourceQuota admission plugin
 * admits a `pods` or object-count quota: a create that would pass one is refused before anything
 * is stored. Events are not counted: the apiserver keeps at most MAX_EVENTS of them, trimming the
 * oldest, and a refused event would only be dropped by the recorder.
 */
export interface Quota {
  /** Stored pods, system pods included (the quota is named podsPerCluster). */
  pods: number;
  /** Stored objects of every resource but events, beyond the default RBAC policy (objectsPerCluster). */
  objects: number;
}

const PODS = "pods";
const EVENTS = "events";

/** Namespaces the NamespaceLifecycle admission plugin never lets go. */
const IMMORTAL_NAMESPACES = new Set(["default", "kube-system", "kube-public"]);

export class ApiServer {
  readonly services: ServiceAllocations;
  /** CustomResourceDefinitions installed (their names), deciding which CRD kinds are served. */
  readonly crds = new Set<string>();
  /** The Events recorder (event-recorder.ts); its sequence number is saved with the cluster. */
  private readonly events: EventRecorder;
  get eventSeq(): number {
    return this.events.seq;
  }
  set eventSeq(n: number) {
    this.events.seq = n;
  }
  /**
   * Writes from the cluster's own controllers (set by the controller manager while they run):
   * they are built from stored objects, so decoding is skipped and status writes skip the
   * spec validation a status update cannot change anyway.
   */
  trusted = false;
  /**
   * The manager of trusted writes (kube-controller-manager, kubelet, ...): set by the controller
   * manager for the controller running; unset for the cluster's bootstrap writes, which record none.
   */
  manager: string | undefined;
  /** Validate the controllers' writes too (tests: a controller bug shows as a 422). */
  paranoid = false;
  /** The host's limits, admitted at every create (see Quota); none when undefined. */
  quota: Quota | undefined;
  /** Defaulted pod specs by the (stored) spec a controller's pod bodies carry: see sharedPodSpec. */
  private readonly podSpecs = new WeakMap<object, object>();
  /** Pods' labels by the template labels they were copied from, and owner references by owner uid. */
  private readonly podLabels = new WeakMap<object, Record<string, string>>();
  private readonly ownerRefs = new Map<string, NonNullable<KObject["metadata"]["ownerReferences"]>>();
  /** Timestamps' texts, one string per second for the objects stamped in it. */
  private readonly rfc3339 = rememberedRfc3339();

  constructor(
    readonly store: Store,
    readonly clock: Clock,
    readonly random: RandomStreams,
    readonly config: ApiServerConfig,
  ) {
    this.events = new EventRecorder(store, clock, random, this.rfc3339);
    this.services = new ServiceAllocations(
      new ClusterIPAllocator(config.serviceCIDR),
      new NodePortAllocator(config.nodePortRange[0], config.nodePortRange[1]),
      random.get("alloc"),
    );
  }

  /** The store was loaded from a snapshot (which makes no store events): see EventRecorder.loaded. */
  loaded(): void {
    this.events.loaded();
  }

  /** Rebuilds allocator state (and forgets the event order) after the store was loaded from a snapshot. */
  restoreAllocations(): void {
    for (const svc of this.store.iterate(key(R.services))) this.services.restore(svc as Service);
    this.events.forgetOrder();
  }

  isServed(info: ResourceInfo): boolean {
    return !info.crd || this.crds.has(info.crd);
  }

  private checkServed(info: ResourceInfo): void {
    if (!this.isServed(info)) throw notServed();
  }

  private checkNamespace(info: ResourceInfo, namespace: string | undefined): string | undefined {
    if (!info.namespaced) return undefined;
    if (!namespace) throw badRequest("the server could not find the requested resource");
    return namespace;
  }

  // ---------------------------------------------------------------------------------------------
  // Reads

  get(info: ResourceInfo, namespace: string | undefined, name: string): KObject {
    this.checkServed(info);
    const ns = this.checkNamespace(info, namespace);
    const obj = this.store.get(key(info), ns, name);
    if (!obj) throw notFound(info.resource, info.group, name);
    return info === R.leases ? this.presentLease(withTypeMeta(info, obj)) : withTypeMeta(info, withOwnWrites(obj));
  }

  /**
   * A lease held by a running component reads as renewed at its holder's latest renewal: node
   * leases every 10 s (a quarter of their 40 s), leader-election leases every 2 s (the retry
   * period), the apiserver's identity lease every 10 s. A renewal changes nothing else a reader
   * can act on, so they are not written (a real cluster writes each one, bumping resourceVersion).
   */
  presentLease(lease: KObject): KObject {
    const spec = lease.spec as { holderIdentity?: string; renewTime?: string } | undefined;
    const base = Date.parse(spec?.renewTime ?? "");
    if (!spec?.holderIdentity || Number.isNaN(base)) return lease;
    const ns = lease.metadata.namespace;
    const name = lease.metadata.name!;
    let period = 0;
    if (ns === "kube-node-lease") {
      const node = this.store.get(key(R.nodes), undefined, name) as { status?: { conditions?: Array<{ type: string; status: string }> } } | undefined;
      if (spec.holderIdentity === name && node?.status?.conditions?.some((c) => c.type === "Ready" && c.status === "True")) period = 10_000;
    } else if (ns === "kube-system") {
      if (name === "kube-controller-manager" || name === "kube-scheduler") period = 2_000;
      else if (name.startsWith("apiserver-") && spec.holderIdentity.startsWith(`${name}_`)) period = 10_000;
    }
    const now = this.clock.now();
    if (!period || now <= base) return lease;
    const renewed = base + Math.floor((now - base) / period) * period;
    return { ...lease, spec: { ...spec, renewTime: rfc3339Micro(renewed) } } as KObject;
  }

  /** The stored object itself (read-only), or undefined: for controllers and printers. */
  peek(info: ResourceInfo, namespace: string | undefined, name: string): KObject | undefined {
    return this.store.get(key(info), info.namespaced ? namespace : undefined, name);
  }

  list(info: ResourceInfo, namespace: string | undefined, opts: ListOptions = {}): ListResult {
    this.checkServed(info);
    const labelSel = opts.labelSelector ? parseSelector(opts.labelSelector) : undefined;
    const fieldSel = opts.fieldSelector ? parseFieldSelector(info.kind, opts.fieldSelector) : undefined;
    const items: KObject[] = [];
    for (const o of this.store.list(key(info), info.namespaced ? namespace : undefined)) {
      if (labelSel && !labelSel.matches(o.metadata.labels ?? {})) continue;
      if (fieldSel && !matchesFields(info.kind, o, fieldSel)) continue;
      items.push(info === R.leases ? this.presentLease(withTypeMeta(info, o)) : withTypeMeta(info, withOwnWrites(o)));
    }
    return { items, resourceVersion: String(this.store.revision()) };
  }

  // ---------------------------------------------------------------------------------------------
  // Create

  create(info: ResourceInfo, namespace: string | undefined, body: unknown, opts: WriteOptions = {}): KObject {
    this.checkServed(info);
    if (info.review) {
      checkTypeMeta(info, (body ?? {}) as KObject);
      return review(this.store, info.kind, info.group, namespace, body, opts.requester) as KObject;
    }
    // A controller's next pod from a template whose defaulted spec is known: that spec is stored
    // as is (see sharedPodSpec), so the body's spec is neither copied nor defaulted again.
    const knownSpec = info === R.pods && this.trusted && isObjectWithMeta(body) ? this.knownPodSpec(body) : undefined;
    const { object: obj, warnings } = knownSpec
      ? { object: copyWithSpec(body as KObject, knownSpec), warnings: [] }
      : opts.sharedDefinition && this.trusted && isObjectWithMeta(body)
        ? { object: { ...body, metadata: cloneJSON(body.metadata) }, warnings: [] }
        : decodeBody(this, info, body, opts.fieldValidation ?? "Strict");
    opts.warnings?.push(...warnings);
    checkTypeMeta(info, obj);
    const meta = obj.metadata;
    if (info.namespaced) {
      const ns = namespace ?? meta.namespace ?? "";
      if (meta.namespace && namespace && meta.namespace !== namespace) {
        throw badRequest("the namespace of the provided object does not match the namespace sent on the request");
      }
      if (!ns) throw badRequest("an empty namespace may not be set during creation");
      meta.namespace = ns;
    } else {
      delete meta.namespace;
    }
    if (!meta.name && meta.generateName) meta.name = this.generateName(info, meta.namespace, meta.generateName);
    const name = meta.name ?? "";
    if (info.namespaced) this.admitNamespace(info, meta.namespace!, name);

    // What admission will set is known from the spec as sent, before defaulting fills it in.
    const admitted = info === R.pods ? podAdmissionFields(obj.spec) : undefined;
    if (!knownSpec) applyDefaults(info.kind, obj);
    if (info === R.pods && this.trusted) {
      if (!knownSpec) obj.spec = this.sharedPodSpec(body, obj.spec);
      this.sharePodMetadata(body, obj.metadata);
    }
    this.prepareForCreate(info, obj);
    const errs = this.trusted && !this.paranoid ? [] : validateObject(info.kind, obj);
    if (errs.length) throw invalid(info.kind, info.group, name, errs);
    // Validating admission (ResourceQuota) comes after validation and before storage, dry runs
    // included; the name is generated by then, so the refusal names the pod.
    if (this.quota) this.admitQuota(info, name);
    if (this.store.get(key(info), meta.namespace, name)) throw alreadyExists(info.resource, info.group, name);

    if (opts.fieldManager && !this.trusted && !opts.appliedFields) {
      recordUpdate(undefined, obj, { ...this.attribution(info, opts), admitted });
    }
    let undo = NOOP;
    if (info === R.services) undo = this.services.create(obj as Service, name);
    if (opts.dryRun) {
      undo();
      return withTypeMeta(info, obj);
    }
    const toStore = stripTypeMeta(obj);
    if (this.trusted && this.manager) deferOwnWrite(undefined, toStore, { ...this.attribution(info, opts), admitted });
    const stored = this.store.put(key(info), toStore);
    if (info === R.customresourcedefinitions) this.crds.add(crdName(stored));
    return withTypeMeta(info, stored);
  }

  /**
   * The defaulted spec made before from the body's spec object, if any. Pod defaulting reads
   * nothing but the spec, and a trusted body's spec is a stored object (never changed), so the
   * result is the same. Paranoid mode (tests) still defaults a copy and checks that it is.
   */
  private knownPodSpec(body: unknown): object | undefined {
    const from = (body as { spec?: unknown }).spec;
    if (!from || typeof from !== "object") return undefined;
    const known = this.podSpecs.get(from);
    if (known !== undefined && this.paranoid) {
      const pod = { spec: cloneJSON(from) };
      applyDefaults("Pod", pod);
      if (!deepEqual(pod.spec, known)) throw new Error("a template's pod spec defaulted differently than before (was it changed after it was stored?)");
    }
    return known;
  }

  /**
   * A controller's pods are made from one stored template spec, and defaulting makes the same spec
   * of it every time: the pods share that one (stored objects are never changed; binding copies
   * the spec's top level to set nodeName). The result is always what defaulting produced.
   */
  private sharedPodSpec(body: unknown, spec: unknown): unknown {
    const from = (body as { spec?: unknown }).spec;
    if (!from || typeof from !== "object") return spec;
    const known = this.podSpecs.get(from);
    if (known !== undefined && deepEqual(known, spec)) return known;
    this.podSpecs.set(from, spec as object);
    return spec;
  }

  /**
   * The same for a controller's pods' labels (the template's, by the stored labels object they
   * are copied from) and owner references (the controller's, by its uid, checked with deepEqual
   * before sharing). ~200 bytes per pod.
   */
  private sharePodMetadata(body: unknown, meta: KObject["metadata"]): void {
    const from = (body as { metadata?: { labels?: unknown } }).metadata?.labels;
    if (from && typeof from === "object" && meta.labels) {
      // The body's labels are a stored object (the template's), copied as they are: equal to the
      // known copy unless someone changed a stored object, which paranoid mode (tests) checks.
      const known = this.podLabels.get(from);
      if (known !== undefined && (!this.paranoid || deepEqual(known, meta.labels))) meta.labels = known;
      else this.podLabels.set(from, meta.labels);
    }
    const refs = meta.ownerReferences;
    if (refs?.length === 1) {
      const k = refs[0].uid;
      const known = this.ownerRefs.get(k);
      if (known !== undefined && deepEqual(known, refs)) meta.ownerReferences = known;
      else {
        if (this.ownerRefs.size >= 4096) this.ownerRefs.clear();
        this.ownerRefs.set(k, refs);
      }
    }
  }

  /** Refuses a create that would take the cluster past its quota (see Quota). */
  private admitQuota(info: ResourceInfo, name: string): void {
    const q = this.quota!;
    if (info === R.pods) {
      const used = this.store.count(PODS);
      if (used >= q.pods) throw quotaExceeded(info.resource, info.group, name, "podsPerCluster", "pods", used, q.pods);
    }
    if (info === R.events) return;
    const used = this.objectCount();
    if (used >= q.objects) throw quotaExceeded(info.resource, info.group, name, "objectsPerCluster", "objects", used, q.objects);
  }

  /**
   * Stored objects but events, less the default RBAC policy's: what objectsPerCluster counts.
   * The ~150 default roles and bindings are one definition shared by every cluster (see
   * rbac/policy-objects.ts), so the bound is on what the cluster holds beyond its kubeadm defaults.
   */
  objectCount(): number {
    let n = 0;
    for (const r of this.store.resources()) if (r !== EVENTS) n += this.store.count(r);
    return Math.max(0, n - defaultPolicyBodies().length);
  }

  private generateName(info: ResourceInfo, namespace: string | undefined, prefix: string): string {
    // names.SimpleNameGenerator: the prefix is cut to leave room for 5 random characters.
    const base = prefix.length > 58 ? prefix.slice(0, 58) : prefix;
    for (let i = 0; i < 8; i++) {
      const name = base + this.random.get("name").string(5, NAME_ALPHABET);
      if (!this.store.get(key(info), namespace, name)) return name;
    }
    return base + this.random.get("name").string(5, NAME_ALPHABET);
  }

  private admitNamespace(info: ResourceInfo, namespace: string, name: string): void {
    const ns = this.store.get(key(R.namespaces), undefined, namespace);
    if (!ns) throw notFound("namespaces", "", namespace);
    if (ns.metadata.deletionTimestamp && info !== R.events) {
      throw forbidden(
        info.resource,
        info.group,
        name,
        `unable to create new content in namespace ${namespace} because it is being terminated`,
      );
    }
  }

  private prepareForCreate(info: ResourceInfo, obj: KObject): void {
    const meta = obj.metadata;
    meta.uid = this.random.get("uid").uuid();
    meta.creationTimestamp = this.rfc3339(this.clock.now());
    delete meta.deletionTimestamp;
    delete meta.deletionGracePeriodSeconds;
    delete meta.resourceVersion;
    delete meta.selfLink;
    if (info.tracksGeneration) meta.generation = 1;
    else delete meta.generation;
    if (info === R.pods) {
      obj.status = { phase: "Pending", qosClass: qosClass(obj) };
    } else if (info === R.services) {
      obj.status = { loadBalancer: {} };
    } else if (info === R.namespaces) {
      obj.status = { phase: "Active" };
    } else if (info === R.persistentvolumes) {
      // PrepareForCreate: Pending since now (PersistentVolumeLastPhaseTransitionTime, GA).
      obj.status = { phase: "Pending", lastPhaseTransitionTime: meta.creationTimestamp };
    } else if (info === R.ingresses) {
      // IngressStatus.loadBalancer is a struct: an empty status still encodes it.
      obj.status = { loadBalancer: {} };
    } else if (info === R.persistentvolumeclaims) {
      // The status is cleared; v1 defaulting makes its phase Pending wherever it is read.
      obj.status = { phase: "Pending" };
    } else if (info.hasStatus) {
      if (info === R.jobs) generateJobSelector(obj);
      if (info.tracksGeneration) obj.status = {};
      else delete obj.status;
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Update and patch

  update(info: ResourceInfo, namespace: string | undefined, name: string, body: unknown, opts: WriteOptions = {}): KObject {
    this.checkServed(info);
    const ns = this.checkNamespace(info, namespace);
    const old = this.store.get(key(info), ns, name);
    if (!old) throw notFound(info.resource, info.group, name);
    if (this.trusted && opts.subresource === "status" && isObjectWithMeta(body)) {
      // A controller's status write takes only the status, which it built for this write: no
      // copy of the body (the stored object shares the status, and never changes it).
      checkTypeMeta(info, body);
      if (body.metadata.name && body.metadata.name !== name) {
        throw badRequest(`the name of the object (${body.metadata.name}) does not match the name on the URL (${name})`);
      }
      const rv = body.metadata.resourceVersion;
      if (conditional(rv) && rv !== old.metadata.resourceVersion) throw conflict(info.resource, info.group, name, OPTIMISTIC_LOCK_MESSAGE);
      const next = { ...old, metadata: { ...old.metadata }, status: body.status } as KObject;
      return this.finishUpdate(info, old, next, opts);
    }
    const { object: obj, warnings } = decodeBody(this, info, body, opts.fieldValidation ?? "Strict");
    opts.warnings?.push(...warnings);
    checkTypeMeta(info, obj);
    if (obj.metadata.name && obj.metadata.name !== name) {
      throw badRequest(`the name of the object (${obj.metadata.name}) does not match the name on the URL (${name})`);
    }
    const rv = obj.metadata.resourceVersion;
    if (conditional(rv) && rv !== old.metadata.resourceVersion) throw conflict(info.resource, info.group, name, OPTIMISTIC_LOCK_MESSAGE);
    return this.commitUpdate(info, old, obj, opts);
  }

  patch(
    info: ResourceInfo,
    namespace: string | undefined,
    name: string,
    type: PatchType,
    patch: unknown,
    opts: WriteOptions = {},
  ): KObject {
    this.checkServed(info);
    const ns = this.checkNamespace(info, namespace);
    if (type === "apply") return this.apply(info, ns, name, patch, opts);
    const old = this.store.get(key(info), ns, name);
    if (!old) throw notFound(info.resource, info.group, name);
    const patched = applyPatch(info.kind, withTypeMeta(info, withOwnWrites(old)), type, patch) as KObject;
    // A strategic patch reaches the typed object through the unstructured converter, whose
    // reflect Convert keeps an int64's low 32 bits: 99999999999 replicas become 1215752191.
    if (type === "strategic") wrapInt32Replicas(patched);
    let decoded;
    try {
      decoded = decodeBody(this, info, patched, opts.fieldValidation ?? "Strict");
    } catch (e) {
      // JSON and merge patches decode the patched document: a type error there is the
      // patcher's 422 on `patch` (no kind, no name), with the document as its value.
      const at = isStatusError(e) && type !== "strategic" ? e.message.indexOf(": json: cannot unmarshal ") : -1;
      if (at < 0) throw e;
      throw invalid("", "", "", [field.invalid("patch", goDocument(patched), (e as Error).message.slice(at + 2))]);
    }
    const { object: obj, warnings } = decoded;
    opts.warnings?.push(...warnings);
    checkTypeMeta(info, obj);
    if (obj.metadata?.name !== name) {
      throw invalid(info.kind, info.group, name, [field.invalid("metadata.name", obj.metadata?.name ?? "", "field is immutable")]);
    }
    const rv = obj.metadata.resourceVersion;
    if (conditional(rv) && rv !== old.metadata.resourceVersion) throw conflict(info.resource, info.group, name, OPTIMISTIC_LOCK_MESSAGE);
    return this.commitUpdate(info, old, obj, opts);
  }

  /** How a write is attributed in managedFields. */
  private attribution(info: ResourceInfo, opts: WriteOptions): Attribution {
    return {
      kind: info.kind,
      apiVersion: apiVersionOf(info),
      manager: opts.fieldManager ?? (this.trusted ? this.manager : undefined) ?? "",
      subresource: opts.subresource,
      hasStatus: info.hasStatus,
      now: this.rfc3339(this.clock.now()),
    };
  }

  /**
   * Server-side apply (application/apply-patch+yaml): the configuration is merged into the live
   * object (or creates it) with the fields it owns recorded for its manager, then decoded,
   * defaulted, validated and stored as any write is.
   */
  apply(info: ResourceInfo, ns: string | undefined, name: string, body: unknown, opts: WriteOptions = {}): KObject {
    let config: unknown = body;
    if (typeof body === "string") {
      try {
        config = parseYaml(body, { maxAliasCount: 100 });
      } catch (e) {
        throw badRequest(`error decoding YAML: ${(e as Error).message.split("\n")[0]}`);
      }
    }
    if (!config || typeof config !== "object" || Array.isArray(config)) {
      const what = Array.isArray(config) ? "array" : config === null || config === undefined ? "null" : typeof config === "number" ? "number" : typeof config === "boolean" ? "bool" : "string";
      throw badRequest(`error decoding YAML: error unmarshaling JSON: while decoding JSON: json: cannot unmarshal ${what} into Go value of type map[string]interface {}`);
    }
    const cfg = config as KObject;
    const meta = (cfg.metadata ?? {}) as KObject["metadata"];
    if (typeof cfg.metadata !== "object" || cfg.metadata === null) cfg.metadata = meta;
    if (meta.managedFields !== undefined && meta.managedFields !== null) throw badRequest("metadata.managedFields must be nil");
    if (cfg.apiVersion !== apiVersionOf(info)) {
      throw badRequest(`Incorrect version specified in apply patch. Specified patch version: ${String(cfg.apiVersion ?? "")}, expected: ${apiVersionOf(info)}`);
    }
    if (cfg.kind !== info.kind) throw badRequest(`the object provided is unrecognized (must be of type ${info.kind}): couldn't get version/kind; json parse error: kind ${String(cfg.kind)} does not match ${info.kind}`);
    if (meta.name !== undefined && meta.name !== name) {
      throw badRequest(`the name of the object (${String(meta.name)}) does not match the name on the URL (${name})`);
    }
    if (info.namespaced && meta.namespace && ns && meta.namespace !== ns) {
      throw badRequest("the namespace of the provided object does not match the namespace sent on the request");
    }
    const a = this.attribution(info, opts);
    const old = this.store.get(key(info), ns, name);
    if (!old) {
      // An apply to nothing creates the object (the handler answers 201).
      const { object } = recordApply(undefined, { ...cfg, metadata: { ...meta, name } } as KObject, a, !!opts.force);
      return this.create(info, ns, object, { ...opts, appliedFields: true });
    }
    const { object } = recordApply(withTypeMeta(info, withOwnWrites(old)), cfg, a, !!opts.force);
    const { object: obj, warnings } = decodeBody(this, info, object, opts.fieldValidation ?? "Strict");
    opts.warnings?.push(...warnings);
    const rv = obj.metadata.resourceVersion;
    if (conditional(rv) && rv !== old.metadata.resourceVersion) throw conflict(info.resource, info.group, name, OPTIMISTIC_LOCK_MESSAGE);
    return this.commitUpdate(info, old, obj, { ...opts, appliedFields: true });
  }

  /** The shared tail of update and patch: prepare, default, validate, allocate, store. */
  private commitUpdate(info: ResourceInfo, old: KObject, obj: KObject, opts: WriteOptions): KObject {
    const name = old.metadata.name!;
    const meta = obj.metadata;
    // Fields the server owns are carried over.
    meta.namespace = old.metadata.namespace;
    if (!info.namespaced) delete meta.namespace;
    meta.name = name;
    meta.uid ??= old.metadata.uid;
    meta.creationTimestamp = old.metadata.creationTimestamp;
    if (old.metadata.deletionTimestamp) {
      meta.deletionTimestamp = old.metadata.deletionTimestamp;
      meta.deletionGracePeriodSeconds = old.metadata.deletionGracePeriodSeconds;
    } else {
      delete meta.deletionTimestamp;
      delete meta.deletionGracePeriodSeconds;
    }
    if (meta.generation === undefined && old.metadata.generation !== undefined) meta.generation = old.metadata.generation;

    if (opts.subresource === "status") {
      // Only status moves; everything else stays as stored (shared: stored objects are immutable).
      const next = { ...old, metadata: { ...old.metadata }, status: obj.status } as KObject;
      return this.finishUpdate(info, old, next, opts);
    }
    if (info.hasStatus) {
      if (old.status === undefined) delete obj.status;
      else obj.status = cloneJSON(old.status);
    }
    if (info === R.services) this.services.prepareUpdate(obj as Service, old as Service);
    applyDefaults(info.kind, obj, old);
    if (info.tracksGeneration && !deepEqual(obj.spec, old.spec)) meta.generation = (old.metadata.generation ?? 0) + 1;
    else meta.generation = old.metadata.generation;
    if (meta.generation === undefined) delete meta.generation;
    return this.finishUpdate(info, old, obj, opts);
  }

  private finishUpdate(info: ResourceInfo, old: KObject, obj: KObject, opts: WriteOptions): KObject {
    const name = old.metadata.name!;
    if (old.metadata.uid && obj.metadata.uid !== old.metadata.uid) {
      throw invalid(info.kind, info.group, name, [field.invalid("metadata.uid", obj.metadata.uid ?? "", "field is immutable")]);
    }
    const skip = this.trusted && (opts.subresource === "status" || !this.paranoid);
    const errs: FieldError[] = skip ? [] : validateUpdate(info.kind, obj, old);
    if (errs.length) throw invalid(info.kind, info.group, name, errs);
    obj.metadata.resourceVersion = old.metadata.resourceVersion;
    // A client's write is attributed now, against the object as it reads (the cluster's own
    // writes settled); the cluster's own writes are recorded for when it is read (own-writes.ts).
    const attributed = !this.trusted && !!opts.fieldManager;
    const live = this.trusted ? old : withOwnWrites(old);
    if (attributed && !opts.appliedFields) recordUpdate(live, obj, this.attribution(info, opts));
    // A write that does not carry managedFields keeps them (a client that does not know them).
    else if (obj.metadata.managedFields === undefined && live.metadata.managedFields !== undefined) obj.metadata.managedFields = live.metadata.managedFields;
    if (deepEqual(stripTypeMeta(obj), stripTypeMeta(live))) return withTypeMeta(info, old);

    let undo = NOOP;
    let commit = NOOP;
    // A status write leaves the spec (and so every allocation) as stored.
    if (info === R.services && opts.subresource !== "status") [undo, commit] = this.services.update(obj as Service, old as Service, name);
    if (opts.dryRun) {
      undo();
      return withTypeMeta(info, obj);
    }
    commit();
    // A terminating object whose last finalizer is gone is deleted now.
    // A pod only once its grace period is over (the kubelet's delete with grace 0), as
    // ShouldDeleteDuringUpdate has it: a Job's pod goes when the tracking finalizer does.
    if (obj.metadata.deletionTimestamp && !(obj.metadata.finalizers?.length) && (info !== R.pods || obj.metadata.deletionGracePeriodSeconds === 0)) {
      this.removeNow(info, obj);
      return withTypeMeta(info, obj);
    }
    const toStore = stripTypeMeta(obj);
    if (!attributed) deferOwnWrite(old, toStore, this.attribution(info, opts));
    return withTypeMeta(info, this.store.put(key(info), toStore));
  }

  /**
   * The pods/binding subresource: the scheduler's way of setting spec.nodeName. As BindingREST's
   * setPodHostAndAnnotations (K/pkg/registry/core/pod/storage), the same write sets the
   * PodScheduled condition to True (podutil.UpdatePodCondition: in place, keeping
   * lastTransitionTime when the status is unchanged), so a binding is one write.
   */
  bind(namespace: string, name: string, nodeName: string): KObject {
    const old = this.store.get(key(R.pods), namespace, name);
    if (!old) throw notFound("pods", "", name);
    if ((old.spec as { nodeName?: string }).nodeName) {
      throw conflict("pods", "", name, `pod ${name} is already assigned to node "${(old.spec as { nodeName?: string }).nodeName}"`);
    }
    type Cond = { type: string; status: string; lastProbeTime?: string | null; lastTransitionTime?: string | null };
    const status = (old.status ?? {}) as { conditions?: Cond[] };
    const conds = status.conditions ?? [];
    const i = conds.findIndex((c) => c.type === "PodScheduled");
    const prev = i >= 0 ? conds[i] : undefined;
    const cond: Cond = {
      type: "PodScheduled",
      status: "True",
      lastProbeTime: null,
      lastTransitionTime: prev?.status === "True" ? (prev.lastTransitionTime ?? null) : this.rfc3339(this.clock.now()),
    };
    const conditions = i >= 0 ? conds.map((c, j) => (j === i ? cond : c)) : [...conds, cond];
    // Structural sharing: only spec, status and metadata are new; the rest is the stored object's.
    // spec and status gain a field: copied field by field, not spread (see copyFields).
    const spec = copyFields(old.spec as Record<string, unknown>);
    spec.nodeName = nodeName;
    const nextStatus = copyFields(status as Record<string, unknown>);
    nextStatus.conditions = conditions;
    const next = { ...old, metadata: { ...old.metadata }, spec, status: nextStatus } as KObject;
    // BindingREST writes storage directly: no manager is recorded for the binding.
    deferKnownWrite(old, next, BINDING_FIELDS, { apiVersion: "v1", kind: "Pod", hasStatus: true, now: this.rfc3339(this.clock.now()) });
    return this.store.put(key(R.pods), next);
  }

  // ---------------------------------------------------------------------------------------------
  // Delete

  delete(info: ResourceInfo, namespace: string | undefined, name: string, opts: DeleteOptions = {}): KObject {
    this.checkServed(info);
    const ns = this.checkNamespace(info, namespace);
    const old = this.store.get(key(info), ns, name);
    if (!old) throw notFound(info.resource, info.group, name);
    const pre = opts.preconditions;
    if (pre?.uid && pre.uid !== old.metadata.uid) {
      throw conflict(
        info.resource,
        info.group,
        name,
        `Precondition failed: UID in precondition: ${pre.uid}, UID in object meta: ${old.metadata.uid}`,
      );
    }
    if (pre?.resourceVersion && pre.resourceVersion !== old.metadata.resourceVersion) {
      throw conflict(info.resource, info.group, name, OPTIMISTIC_LOCK_MESSAGE);
    }
    if (info === R.namespaces) return this.deleteNamespace(old, opts);

    // Structural sharing, as status writes do: a delete moves only metadata fields
    // (deletionTimestamp, grace period, finalizers), so spec and status stay the stored ones.
    const next = { ...old, metadata: copyFields(old.metadata) } as KObject;
    const meta = next.metadata;
    const finalizers = new Set(meta.finalizers ?? []);
    if (opts.propagationPolicy === "Foreground") finalizers.add("foregroundDeletion");
    if (opts.propagationPolicy === "Orphan") finalizers.add("orphan");

    if (info === R.pods && this.podNeedsGracefulDeletion(next, opts)) {
      const grace = opts.gracePeriodSeconds ?? (next.spec as { terminationGracePeriodSeconds?: number }).terminationGracePeriodSeconds ?? 30;
      const deadline = this.clock.now() + grace * 1000;
      const current = meta.deletionTimestamp ? Date.parse(meta.deletionTimestamp) : Infinity;
      // A second delete may shorten the grace period, never lengthen it.
      if (deadline < current || !meta.deletionTimestamp) {
        meta.deletionTimestamp = this.rfc3339(Math.min(deadline, current));
        meta.deletionGracePeriodSeconds = grace;
      }
      if (finalizers.size) meta.finalizers = [...finalizers];
      if (opts.dryRun) return withTypeMeta(info, next);
      return withTypeMeta(info, this.storeUnattributed(info, old, next));
    }

    if (finalizers.size) {
      if (!meta.deletionTimestamp) {
        meta.deletionTimestamp = this.rfc3339(this.clock.now());
        meta.deletionGracePeriodSeconds = 0;
      } else if (info === R.pods && opts.gracePeriodSeconds === 0 && meta.deletionGracePeriodSeconds !== 0) {
        // The kubelet's final delete of a pod a finalizer holds: the grace period is over.
        meta.deletionTimestamp = this.rfc3339(Math.min(Date.parse(meta.deletionTimestamp), this.clock.now()));
        meta.deletionGracePeriodSeconds = 0;
      }
      meta.finalizers = [...finalizers];
      if (opts.dryRun) return withTypeMeta(info, next);
      if (deepEqual(next, old)) return withTypeMeta(info, old);
      return withTypeMeta(info, this.storeUnattributed(info, old, next));
    }
    if (opts.dryRun) return withTypeMeta(info, old);
    return withTypeMeta(info, this.removeNow(info, old));
  }

  private podNeedsGracefulDeletion(pod: KObject, opts: DeleteOptions): boolean {
    const spec = pod.spec as { nodeName?: string };
    const phase = (pod.status as { phase?: string } | undefined)?.phase;
    if (opts.gracePeriodSeconds === 0) return false;
    if (!spec.nodeName) return false;
    if (phase === "Succeeded" || phase === "Failed") return false;
    return true;
  }

  private deleteNamespace(old: KObject, opts: DeleteOptions): KObject {
    const name = old.metadata.name!;
    if (IMMORTAL_NAMESPACES.has(name)) throw forbidden("namespaces", "", name, "this namespace may not be deleted");
    if (old.metadata.deletionTimestamp) return withTypeMeta(R.namespaces, old);
    const next = cloneJSON(old) as KObject;
    next.metadata.deletionTimestamp = this.rfc3339(this.clock.now());
    next.metadata.deletionGracePeriodSeconds = 0;
    next.status = { phase: "Terminating" };
    if (opts.dryRun) return withTypeMeta(R.namespaces, next);
    return withTypeMeta(R.namespaces, this.storeUnattributed(R.namespaces, old, next));
  }

  /** A write the apiserver makes itself (a delete's metadata): recorded for no one. */
  private storeUnattributed(info: ResourceInfo, old: KObject, next: KObject): KObject {
    deferOwnWrite(old, next, { kind: info.kind, apiVersion: apiVersionOf(info), manager: "", hasStatus: info.hasStatus, now: this.rfc3339(this.clock.now()) });
    return this.store.put(key(info), next);
  }

  /** Removes an object from storage for good (no graceful step, no finalizers). */
  removeNow(info: ResourceInfo, obj: KObject): KObject {
    const gone = this.store.remove(key(info), obj.metadata.namespace, obj.metadata.name!);
    if (gone && info === R.services) this.services.release(gone as Service);
    if (gone && info === R.customresourcedefinitions) this.crds.delete(crdName(gone));
    return gone ?? obj;
  }

  deleteCollection(info: ResourceInfo, namespace: string | undefined, list: ListOptions, opts: DeleteOptions = {}): KObject[] {
    const out: KObject[] = [];
    for (const o of this.list(info, namespace, list).items) {
      out.push(this.delete(info, o.metadata.namespace, o.metadata.name!, opts));
    }
    return out;
  }

  // ---------------------------------------------------------------------------------------------
  // Events (core/v1), as client-go's event recorder writes them.

  /** Records an Event about `ev.involved`, counted on a similar one as the recorder's correlator does. */
  recordEvent(ev: EventRecord): void {
    this.events.record(ev);
  }

}

// ---------------------------------------------------------------------------------------------


/**
 * A shallow copy of `obj` that is about to gain a field, made field by field. Not a spread: V8
 * gives a spread copy that then gains a field (a deleting pod's deletionTimestamp, a bound pod's
 * conditions) a hidden class of its own in each scale round, and every function optimized for
 * such pods (Endpoints and EndpointSlice helpers, the kubelet's terminate/forget) was
 * deoptimized by it in each round. Copied field by field, the copy's hidden class comes from the
 * one transition tree, the same every time. Same fields, same order.
 */
function copyFields<T extends object>(obj: T): T {
  const out: Record<string, unknown> = {};
  for (const k in obj) out[k] = obj[k];
  return out as T;
}

/**
 * Whether a write's resourceVersion makes it conditional: "" and "0" both parse to 0, which the
 * registry's Update takes as unconditional (AllowUnconditionalUpdate).
 */
function conditional(rv: string | undefined): rv is string {
  return !!rv && rv !== "0";
}

/** A do-nothing undo/commit (one function, not a new closure per write). */
function NOOP(): void {}

function isObjectWithMeta(body: unknown): body is KObject {
  return !!body && typeof body === "object" && !!(body as KObject).metadata;
}

/** A copy of `body` with `spec` in place of its own (which is not copied). */
function copyWithSpec(body: KObject, spec: object): KObject {
  const out: Record<string, unknown> = {};
  for (const k in body) {
    const v = (body as Record<string, unknown>)[k];
    if (v !== undefined) out[k] = k === "spec" ? spec : cloneJSON(v);
  }
  return out as KObject;
}

function decodeBody(api: ApiServer, info: ResourceInfo, body: unknown, validation: FieldValidation): { object: KObject; warnings: string[] } {
  if (api.trusted && body && typeof body === "object" && (body as KObject).metadata) {
    return { object: cloneJSON(body) as KObject, warnings: [] };
  }
  return decode(info, body, validation);
}

/** spec.replicas of a scalable kind, as int32(int64) keeps it (see patch). */
function wrapInt32Replicas(obj: KObject): void {
  const spec = obj.spec as { replicas?: unknown } | undefined;
  const r = spec?.replicas;
  if (typeof r === "number" && Number.isSafeInteger(r) && (r > 2147483647 || r < -2147483648)) spec!.replicas = r | 0;
}

/** The patched document as json-patch encodes it: the top level from a map (keys sorted). */
function goDocument(obj: KObject): string {
  const doc: Record<string, unknown> = {};
  for (const k of Object.keys(obj).sort()) doc[k] = (obj as Record<string, unknown>)[k];
  return JSON.stringify(doc);
}

/** "<plural>.<group>": the name a CRD must have, and what makes its kind served. */
function crdName(crd: KObject): string {
  const spec = crd.spec as { names?: { plural?: string }; group?: string } | undefined;
  return `${spec?.names?.plural ?? ""}.${spec?.group ?? ""}`;
}

/** Store keys by resource, made once: "<resource>.<group>" was a new string (hashed anew) per call. */
const storeKeys = new WeakMap<ResourceInfo, string>();

export function key(info: ResourceInfo): string {
  if (!info.group) return info.resource;
  let k = storeKeys.get(info);
  if (k === undefined) storeKeys.set(info, (k = resourceKey(info.group, info.resource)));
  return k;
}

function checkTypeMeta(info: ResourceInfo, obj: KObject): void {
  if (obj.kind !== undefined && obj.kind !== "" && obj.kind !== info.kind) {
    throw badRequest(`the object provided is unrecognized (must be of type ${info.kind}): couldn't get version/kind; json parse error: kind ${obj.kind} does not match ${info.kind}`);
  }
  if (obj.apiVersion !== undefined && obj.apiVersion !== "" && obj.apiVersion !== apiVersionOf(info)) {
    throw badRequest(`the API version in the data (${obj.apiVersion}) does not match the expected API version (${apiVersionOf(info)})`);
  }
}

/** The object as served: apiVersion and kind first, as the apiserver's JSON has them. */
export function withTypeMeta(info: ResourceInfo, obj: KObject): KObject {
  // Stored objects carry neither (one spread, not a rest copy and a spread, on every call).
  if (!("apiVersion" in obj) && !("kind" in obj)) return { apiVersion: apiVersionOf(info), kind: info.kind, ...obj } as KObject;
  const { apiVersion: _a, kind: _k, ...rest } = obj;
  return { apiVersion: apiVersionOf(info), kind: info.kind, ...rest } as KObject;
}

/** Stored objects carry no apiVersion/kind (the resource says what they are). */
function stripTypeMeta(obj: KObject): KObject {
  if (!("apiVersion" in obj) && !("kind" in obj)) return obj;
  const { apiVersion: _a, kind: _k, ...rest } = obj;
  return rest as KObject;
}

function qosClass(pod: KObject): string {
  const containers = ((pod.spec as { containers?: { resources?: { requests?: object; limits?: object } }[] }).containers ?? []);
  const any = containers.some((c) => c.resources && (Object.keys(c.resources.requests ?? {}).length || Object.keys(c.resources.limits ?? {}).length));
  return any ? "Burstable" : "BestEffort";
}

export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!deepEqual(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  // Keys whose value is undefined do not count (JSON drops them). Counted in place rather than
  // with Object.keys().filter(): this runs on every write (twice per status write), and the
  // arrays per level were a good part of the garbage a pod's status write made.
  const ao = a as Record<string, unknown>;
  const bo = b as Record<string, unknown>;
  let na = 0;
  for (const k in ao) {
    const v = ao[k];
    if (v === undefined) continue;
    na++;
    if (!deepEqual(v, bo[k])) return false;
  }
  let nb = 0;
  for (const k in bo) if (bo[k] !== undefined) nb++;
  return na === nb;
}
