// An object's persisted row. A role that still holds the default RBAC policy's shared rules is
// written with the rules' name instead of them ("=<name>\n" before the JSON, which a JSON row
// never starts with): the ~70 default roles would otherwise double every cluster's rows, and
// a restored cluster shares the rules again instead of holding its own copy.

import type { KObject } from "../engine/api/types.js";
import { sharedRules, sharedRulesKey } from "../engine/rbac/policy-objects.js";

export function encodeObjectRow(o: KObject): string {
  const k = sharedRulesKey(o as { rules?: unknown });
  // `rules: 0` keeps the field's place, so the restored object lists its fields in the same order.
  return k === undefined ? JSON.stringify(o) : `=${k}\n${JSON.stringify({ ...o, rules: 0 })}`;
}

export function decodeObjectRow(body: string): KObject {
  if (body.charCodeAt(0) !== 61 /* = */) return JSON.parse(body) as KObject;
  const nl = body.indexOf("\n");
  const o = JSON.parse(body.slice(nl + 1)) as KObject & { rules?: unknown };
  // A name this version's policy no longer has: the role is left with no rules rather than
  // someone else's (the apiserver reconciles its autoupdate roles at start the same way).
  o.rules = sharedRules(body.slice(1, nl)) ?? [];
  return o;
}
