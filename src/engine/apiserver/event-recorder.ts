// The apiserver's Events as client-go's recorder and the apiserver make them: an Event per
// occurrence, repeats counted on the existing one (the correlator's similar-event index), named
// `<object>.<hex of time and sequence>`, and at most MAX_EVENTS kept, the oldest trimmed.

import { apiVersionOf, type ResourceInfo } from "../api/resources.js";
import type { KObject } from "../api/types.js";
import type { Clock } from "../clock.js";
import type { RandomStreams } from "../rng.js";
import type { Store } from "../store/store.js";
import { cloneJSON } from "../util/clone.js";

/** How many Event objects a cluster keeps. */
export const MAX_EVENTS = 5000;

const EVENTS = "events";

/** An occurrence to record: what it is about, who reports it, and what happened. */
export interface EventRecord {
  involved: KObject;
  involvedInfo: ResourceInfo;
  type: "Normal" | "Warning";
  reason: string;
  message: string;
  component: string;
  host?: string;
  fieldPath?: string;
}

export class EventRecorder {
  /** Disambiguates event names created within the same instant (persisted with the cluster). */
  seq = 0;
  /**
   * Stored events in resourceVersion order, kept from store events. Undefined only after a
   * restore (the store loads without events): the first trim then sorts what the store holds.
   */
  private eventOrder: Set<KObject> | undefined;
  /**
   * The correlator's index: by involved object's uid, the events it knows in the order they were
   * made; an object with many (a ReplicaSet's "Created pod: ..." for each of 1000 pods) has them
   * by message instead, where a scan of the whole list per event was quadratic.
   */
  private readonly similarEvents = new Map<string, SimilarList>();
  private similarCount = 0;
  /** The store was loaded with events the index does not hold yet (see loaded). */
  private similarStale = false;
  private readonly eventSources = new Map<string, Map<string, { component: string; host?: string }>>();

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly random: RandomStreams,
    /** The apiserver's timestamp texts (one string per second). */
    private readonly rfc3339: (ms: number) => string,
  ) {
    // Kept from the start when the store holds no events yet (a new cluster): sorting the 5000
    // events a busy cluster holds at its first trim cost more than keeping the order all along.
    if (store.count(EVENTS) === 0) this.eventOrder = new Set();
    store.subscribe((ev) => {
      if (ev.resource !== EVENTS) return;
      if (ev.type === "DELETED" && !this.similarStale) this.forgetSimilar(ev.object);
      if (!this.eventOrder) return;
      if (ev.old) this.eventOrder.delete(ev.old);
      if (ev.type !== "DELETED") this.eventOrder.add(ev.object);
    });
  }

  /**
   * The store was loaded from a snapshot (which makes no store events): the events' write order
   * and the correlator's index are made again from the stored events when first needed, so that
   * a restored cluster trims and counts its events as the cluster it was saved from would have.
   */
  loaded(): void {
    const any = this.store.count(EVENTS) > 0;
    this.eventOrder = any ? undefined : new Set();
    this.similarEvents.clear();
    this.similarCount = 0;
    this.similarStale = any;
  }

  /** The write order is sorted again from the store at the next trim. */
  forgetOrder(): void {
    this.eventOrder = undefined;
  }

  record(ev: EventRecord): void {
    const o = ev.involved;
    const namespace = o.metadata.namespace || "default";
    const ns = this.store.get("namespaces", undefined, namespace);
    if (!ns) return;
    const now = this.clock.now();
    const ts = this.rfc3339(now);
    // Repeated events are counted on the existing one, as the recorder's correlator does. Its
    // index is by involved object, then a scan of that object's (few) events in the order they
    // were made: one long joined key per event cost a string flatten and hash per lookup, and a
    // Map by message per object cost a table per pod.
    const uid = o.metadata.uid ?? "";
    const fieldPath = ev.fieldPath ?? "";
    if (this.similarStale) this.rebuildSimilar();
    const similar = this.similarEvents.get(uid);
    let match: SimilarEvent | undefined;
    const candidates = similar === undefined || Array.isArray(similar) ? similar : similar.get(ev.message);
    if (candidates) {
      for (const e of candidates) {
        if (e.message === ev.message && e.reason === ev.reason && e.type === ev.type && e.fieldPath === fieldPath && e.component === ev.component && e.namespace === namespace) {
          match = e;
          break;
        }
      }
    }
    const existing = match ? this.store.get(EVENTS, namespace, match.name) : undefined;
    if (existing) {
      const next = cloneJSON(existing) as KObject & { count?: number; lastTimestamp?: string };
      next.count = (next.count ?? 1) + 1;
      next.lastTimestamp = ts;
      this.store.put(EVENTS, next);
      return;
    }
    this.seq++;
    const suffix = eventNameSuffix(now, this.seq);
    // In the order the apiserver serves the fields, each shape one literal (no object spreads,
    // and no fields added one by one, which outgrew the literal's room into a second store):
    // this runs for every event, several per pod.
    const kind = ev.involvedInfo.kind;
    const apiVersion = apiVersionOf(ev.involvedInfo);
    const { namespace: ins, name: iname, uid: iuid, resourceVersion } = o.metadata;
    const involvedObject = ins
      ? ev.fieldPath
        ? { kind, namespace: ins, name: iname, uid: iuid, apiVersion, resourceVersion, fieldPath: ev.fieldPath }
        : { kind, namespace: ins, name: iname, uid: iuid, apiVersion, resourceVersion }
      : ev.fieldPath
        ? { kind, name: iname, uid: iuid, apiVersion, resourceVersion, fieldPath: ev.fieldPath }
        : { kind, name: iname, uid: iuid, apiVersion, resourceVersion };
    const source = this.eventSource(ev.component, ev.host);
    const name = `${o.metadata.name}.${suffix}`;
    const event: KObject = {
      metadata: {
        name,
        namespace,
        uid: this.random.get("event").uuid(),
        creationTimestamp: ts,
      },
      involvedObject,
      reason: ev.reason,
      message: ev.message,
      source,
      firstTimestamp: ts,
      lastTimestamp: ts,
      count: 1,
      type: ev.type,
      eventTime: null,
      reportingComponent: ev.component,
      reportingInstance: ev.host ?? "",
    };
    this.store.put(EVENTS, event);
    if (match) {
      // The event it matched is gone (trimmed): the new one takes its place.
      match.name = name;
    } else {
      this.addSimilar(uid, { message: ev.message, namespace, fieldPath, type: ev.type, reason: ev.reason, component: ev.component, name });
      if (this.similarCount > 4 * MAX_EVENTS) {
        this.similarEvents.clear();
        this.similarCount = 0;
      }
    }
    this.trimEvents();
  }

  /** Adds an event to the correlator's index, after the involved object's others. */
  private addSimilar(uid: string, entry: SimilarEvent): void {
    const similar = this.similarEvents.get(uid);
    if (!similar) this.similarEvents.set(uid, [entry]);
    else if (!Array.isArray(similar)) {
      const same = similar.get(entry.message);
      if (same) same.push(entry);
      else similar.set(entry.message, [entry]);
    } else if (similar.length < SIMILAR_LIST_MAX) similar.push(entry);
    else {
      // Same order within a message as in the list: the first match stays the first.
      const byMessage = new Map<string, SimilarEvent[]>();
      for (const e of [...similar, entry]) {
        const same = byMessage.get(e.message);
        if (same) same.push(e);
        else byMessage.set(e.message, [e]);
      }
      this.similarEvents.set(uid, byMessage);
    }
    this.similarCount++;
  }

  /**
   * The correlator's index made again from the stored events (after a restore), each involved
   * object's in the order they were made: their names end in the hex of their creation time and
   * sequence number, one width for any time after 2006, so they sort in that order.
   */
  private rebuildSimilar(): void {
    this.similarStale = false;
    type Stored = KObject & { involvedObject?: { uid?: string; fieldPath?: string }; message?: string; type?: string; reason?: string; source?: { component?: string } };
    const all: Stored[] = [];
    for (const e of this.store.iterate(EVENTS)) all.push(e as Stored);
    all.sort((a, b) => (a.metadata.name! < b.metadata.name! ? -1 : a.metadata.name! > b.metadata.name! ? 1 : 0));
    for (const e of all) {
      this.addSimilar(e.involvedObject?.uid ?? "", {
        message: e.message ?? "",
        namespace: e.metadata.namespace ?? "",
        fieldPath: e.involvedObject?.fieldPath ?? "",
        type: e.type ?? "",
        reason: e.reason ?? "",
        component: e.source?.component ?? "",
        name: e.metadata.name!,
      });
    }
  }

  /** An event's `source`, one frozen object per (component, host): thousands of events share a few. */
  private eventSource(component: string, host: string | undefined): { component: string; host?: string } {
    let byHost = this.eventSources.get(component);
    if (!byHost) this.eventSources.set(component, (byHost = new Map()));
    const h = host || "";
    let s = byHost.get(h);
    if (!s) {
      const made: { component: string; host?: string } = { component };
      if (host) made.host = host;
      if (byHost.size >= 1024) byHost.clear();
      byHost.set(h, (s = Object.freeze(made)));
    }
    return s;
  }

  /**
   * A deleted event (trimmed, or deleted by a client) leaves the correlator: a repeat makes a new
   * event either way, and the index then holds no more entries than the store holds events.
   */
  private forgetSimilar(event: KObject): void {
    const e = event as KObject & { involvedObject?: { uid?: string }; message?: string };
    const uid = e.involvedObject?.uid ?? "";
    const similar = this.similarEvents.get(uid);
    if (!similar) return;
    const message = e.message ?? "";
    const list = Array.isArray(similar) ? similar : similar.get(message);
    if (!list) return;
    let i = 0;
    while (i < list.length && !(list[i].name === e.metadata.name && list[i].namespace === e.metadata.namespace && list[i].message === message)) i++;
    if (i === list.length) return;
    list.splice(i, 1);
    this.similarCount--;
    if (list.length === 0) {
      if (Array.isArray(similar)) this.similarEvents.delete(uid);
      else {
        similar.delete(message);
        if (similar.size === 0) this.similarEvents.delete(uid);
      }
    }
  }

  /**
   * Events are kept for a bounded count, oldest first out: the apiserver's event TTL (1 h) in a
   * form that holds a cluster's memory steady however many pods come and go.
   */
  private trimEvents(): void {
    const ev = EVENTS;
    const count = this.store.count(ev);
    if (count <= MAX_EVENTS) return;
    // Oldest write first. The order is kept from store events (every write has a higher
    // revision than all before it, so moving a written event to the end keeps the set sorted by
    // resourceVersion); after a restore, the first trim sorts what the store holds.
    if (!this.eventOrder) {
      const all: { rv: number; e: KObject }[] = [];
      for (const e of this.store.iterate(ev)) all.push({ rv: Number(e.metadata.resourceVersion), e });
      all.sort(byRevision);
      this.eventOrder = new Set(all.map((x) => x.e));
    }
    const oldest: KObject[] = [];
    let n = count - Math.floor(MAX_EVENTS * 0.9);
    for (const e of this.eventOrder) {
      if (n-- <= 0) break;
      oldest.push(e);
    }
    for (const e of oldest) this.store.remove(ev, e.metadata.namespace, e.metadata.name!);
  }
}

/** An involved object's known events: a list, or by message once there are many (see similarEvents). */
type SimilarList = SimilarEvent[] | Map<string, SimilarEvent[]>;
const SIMILAR_LIST_MAX = 16;

/** An event the correlator knows: the fields that make two events "the same", and its name. */
interface SimilarEvent {
  message: string;
  namespace: string;
  fieldPath: string;
  type: string;
  reason: string;
  component: string;
  name: string;
}

/**
 * now * 10^6 + seq in hex (the event name's suffix), exact past 2^53 without BigInt: `now` is
 * split at 24 bits so that each part times 10^6 stays an exact double.
 */
function eventNameSuffix(now: number, seq: number): string {
  const lo = now % 16777216;
  const hi = (now - lo) / 16777216;
  let b = lo * 1000000 + seq;
  const a = hi * 1000000 + Math.floor(b / 16777216);
  b %= 16777216;
  if (a === 0) return b.toString(16);
  // The high part moves rarely (every ~16.8 s of clock): its text is kept. The low part is six
  // hex digits, three bytes from a table (number-to-text conversions were a sixth of an event).
  if (a !== suffixHigh) {
    suffixHigh = a;
    suffixHighText = a.toString(16);
  }
  return suffixHighText + HEX_BYTES[b >>> 16] + HEX_BYTES[(b >>> 8) & 255] + HEX_BYTES[b & 255];
}

/** The last high part eventNameSuffix formatted, and its text. */
let suffixHigh = -1;
let suffixHighText = "";
/** "00" .. "ff". */
const HEX_BYTES = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, "0"));

function byRevision(a: { rv: number }, b: { rv: number }): number {
  return a.rv - b.rv;
}
