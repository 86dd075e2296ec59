// The clusterrole-aggregation controller (K/pkg/controller/clusterroleaggregation): a ClusterRole
// with an aggregationRule holds the rules of every ClusterRole its selectors pick, in name order,
// each rule once. Creating a role labelled rbac.authorization.k8s.io/aggregate-to-view: "true"
// widens view (and edit and admin, which take view's), as on a kubeadm cluster.

import { lookupResource } from "../api/resources.js";
import { labelSelectorMatches } from "../api/labels.js";
import type { KObject } from "../api/types.js";
import { deepEqual, key as rkey } from "../apiserver/apiserver.js";
import type { StoreEvent } from "../store/store.js";
import type { Controller, ControllerContext } from "./manager.js";

const CLUSTERROLES = lookupResource("rbac.authorization.k8s.io", "clusterroles")!;
const KEY = rkey(CLUSTERROLES);

type Selector = Parameters<typeof labelSelectorMatches>[0];
interface ClusterRole extends KObject {
  rules?: unknown[];
  aggregationRule?: { clusterRoleSelectors?: Selector[] };
}

export class ClusterRoleAggregationController implements Controller {
  readonly name = "clusterrole-aggregation";
  constructor(private readonly ctx: ControllerContext) {}

  watches(resource: string): boolean {
    return resource === KEY;
  }

  /** Any ClusterRole's change may change what an aggregated one picks: every aggregated role is looked at. */
  watch(_ev: StoreEvent, enqueue: (key: string) => void): void {
    for (const r of this.ctx.store.iterate(KEY) as Iterable<ClusterRole>) if (r.aggregationRule) enqueue(r.metadata.name!);
  }

  initialKeys(): Iterable<string> {
    return [...(this.ctx.store.iterate(KEY) as Iterable<ClusterRole>)].filter((r) => r.aggregationRule).map((r) => r.metadata.name!);
  }

  reconcile(name: string): void {
    const role = this.ctx.store.get(KEY, undefined, name) as ClusterRole | undefined;
    const selectors = role?.aggregationRule?.clusterRoleSelectors;
    if (!role || !selectors || role.metadata.deletionTimestamp) return;
    const picked = (this.ctx.store.list(KEY) as ClusterRole[]).filter((r) => r.metadata.name !== name && selectors.some((s) => labelSelectorMatches(s, r.metadata.labels ?? {})));
    // store.list is in name order already, as the controller sorts them.
    const rules: unknown[] = [];
    for (const r of picked) for (const rule of r.rules ?? []) if (!rules.some((x) => deepEqual(x, rule))) rules.push(rule);
    if (deepEqual(rules, role.rules ?? [])) return;
    this.ctx.api.update(CLUSTERROLES, undefined, name, { ...role, rules });
  }
}
