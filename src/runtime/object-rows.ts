// An object's persisted row. A default RBAC object never written since bootstrap is persisted as
// the name of its shared body and its own uid, creationTimestamp and resourceVersion
// ("@<name>\n{...}", which a JSON row never starts with): the ~150 default objects would
// otherwise more than double a new cluster's rows, and a restored cluster shares the definitions
// again instead of holding its own copy. An object written since is its JSON, as any other.

import type { KObject } from "../engine/api/types.js";
import { withOwnWrites } from "../engine/apiserver/own-writes.js";
import { sharedObject, unchangedDefault } from "../engine/rbac/policy-objects.js";

export function encodeObjectRow(stored: KObject): string {
  // Persisted as clients read it: the cluster's own writes settled into managedFields.
  const o = withOwnWrites(stored);
  const key = unchangedDefault(o);
  if (key === undefined) return JSON.stringify(o);
  const m = o.metadata;
  return `@${key}\n${JSON.stringify({ uid: m.uid, creationTimestamp: m.creationTimestamp, resourceVersion: m.resourceVersion })}`;
}

export function decodeObjectRow(body: string): KObject {
  if (body.charCodeAt(0) !== 64 /* @ */) return JSON.parse(body) as KObject;
  const nl = body.indexOf("\n");
  const key = body.slice(1, nl);
  const stamped = JSON.parse(body.slice(nl + 1)) as Record<string, unknown>;
  const o = sharedObject(key, stamped);
  if (o) return o;
  // A default object this version's policy no longer has: kept with its name and stamps only
  // (the apiserver leaves a bootstrap role it stopped making as it was; its rules are not known here).
  const [, namespace, name] = key.split("/");
  return { metadata: { name, ...(namespace ? { namespace } : {}), ...stamped } } as KObject;
}
