// What one watcher is told about a change, as the apiserver's watch cache decides it: the
// watcher's namespace, label selector and field selector pick the objects, an object that starts
// matching arrives as ADDED and one that stops matching leaves as DELETED. Shared by the REST
// watch that the real kubectl reads and by the terminal's `kubectl get -w`.

import { type FieldSelector, matchesFields, parseFieldSelector } from "./fields.js";
import { parseSelector, type Selector } from "./labels.js";
import type { WatchEventType } from "../store/store.js";
import type { KObject } from "./types.js";

interface WatchScope {
  /** The kind (field selectors are per kind). */
  kind: string;
  namespace?: string;
  labelSelector?: string;
  fieldSelector?: string;
}

export class WatchFilter {
  private readonly labels: Selector | undefined;
  private readonly fields: FieldSelector | undefined;
  /** Objects this watcher has been told about as matching. */
  private readonly seen = new Set<string>();

  constructor(private readonly scope: WatchScope) {
    this.labels = scope.labelSelector ? parseSelector(scope.labelSelector) : undefined;
    this.fields = scope.fieldSelector ? parseFieldSelector(scope.kind, scope.fieldSelector) : undefined;
  }

  matches(o: KObject): boolean {
    if (this.scope.namespace && o.metadata.namespace !== this.scope.namespace) return false;
    if (this.labels && !this.labels.matches(o.metadata.labels ?? {})) return false;
    if (this.fields && !matchesFields(this.scope.kind, o, this.fields)) return false;
    return true;
  }

  /**
   * Whether `o` may have matched before a change this watcher saw no "before" of (a watch resumed
   * from a resourceVersion): its namespace and name never change, so an object outside the
   * watched namespace or name never matched, and its change is no event of this watcher's.
   */
  mayHaveMatched(o: KObject): boolean {
    if (this.scope.namespace && o.metadata.namespace !== this.scope.namespace) return false;
    const name = this.fields?.requiresExactMatch("metadata.name");
    const ns = this.fields?.requiresExactMatch("metadata.namespace");
    return (name === undefined || name === o.metadata.name) && (ns === undefined || ns === o.metadata.namespace);
  }

  /** An object the watcher starts out knowing (the list before the watch, or its initial ADDED events). */
  know(o: KObject): boolean {
    if (!this.matches(o)) return false;
    this.seen.add(key(o));
    return true;
  }

  /**
   * The event this watcher gets for a change of `o` (its state after the change), if any.
   * `wasMatching`: whether the object as it was before matched, when the caller knows (a store
   * event carries the old object); otherwise, whether this watcher has been told about it.
   */
  event(type: WatchEventType, o: KObject, wasMatching?: boolean): WatchEventType | undefined {
    const k = key(o);
    const was = wasMatching ?? this.seen.has(k);
    const now = type !== "DELETED" && this.matches(o);
    if (type === "DELETED") {
      if (!was && !this.matches(o)) return undefined;
      this.seen.delete(k);
      return "DELETED";
    }
    if (now) {
      this.seen.add(k);
      return was ? "MODIFIED" : "ADDED";
    }
    if (was) {
      this.seen.delete(k);
      return "DELETED";
    }
    return undefined;
  }
}

function key(o: KObject): string {
  return `${o.metadata.namespace ?? ""}/${o.metadata.name ?? ""}`;
}
