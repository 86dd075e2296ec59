// --overrides and --override-type (kubectl's cmdutil.OverrideOptions): the object a generator
// built, patched by the inline JSON before it is printed or sent: a JSON merge patch by default,
// a strategic merge patch or a JSON patch when asked.

import { jsonPatch } from "../../../engine/api/patch/jsonpatch.js";
import { isStatusError } from "../../../engine/api/status.js";
import { PatchApplyError } from "../../../engine/api/patch/errors.js";
import { parseGoJson } from "../../../engine/api/patch/json.js";
import { mergePatch } from "../../../engine/api/patch/merge.js";
import { patchMetaFor } from "../../../engine/api/patch/meta.js";
import { strategicMergePatch } from "../../../engine/api/patch/strategic.js";
import type { KObject } from "../../../engine/api/types.js";
import { KubectlError } from "../errors.js";

/**
 * The patched pod read back into kubectl's typed Pod, as the Overrider decodes it: the struct
 * fields that are never omitted come back (each container's resources, status, the creation time).
 */
export function asTypedPod(pod: KObject): KObject {
  const spec = (pod.spec ?? {}) as { containers?: unknown[]; initContainers?: unknown[] };
  for (const list of [spec.containers, spec.initContainers]) {
    for (const c of list ?? []) if (c && typeof c === "object" && !("resources" in c)) (c as Record<string, unknown>).resources = {};
  }
  pod.metadata = { creationTimestamp: null, ...pod.metadata };
  pod.status ??= {};
  return pod;
}

export function applyOverrides(obj: KObject, overrides: string, type: string): KObject {
  let patch: unknown;
  // merge: jsonpatch.MergePatch's ErrBadJSONPatch; strategic: mergepatch's ErrBadJSONDoc; json: json.Unmarshal's own words.
  const parse = (bad?: string) => {
    const r = parseGoJson(overrides);
    if (!r.ok) throw new KubectlError(bad ?? r.message);
    patch = r.value;
  };
  try {
    switch (type) {
      case "merge":
        // jsonpatch.MergePatch: anything but a JSON object or array is ErrBadJSONPatch.
        parse("Invalid JSON Patch");
        if (patch === null || typeof patch !== "object") throw new KubectlError("Invalid JSON Patch");
        return mergePatch(obj, patch) as unknown as KObject;
      case "strategic":
        parse("invalid JSON document");
        return strategicMergePatch(obj, patch, patchMetaFor(obj.kind!)!) as unknown as KObject;
      case "json":
        parse();
        if (!Array.isArray(patch)) throw new KubectlError("json: cannot unmarshal object into Go value of type jsonpatch.Patch");
        return jsonPatch(obj, patch) as unknown as KObject;
      default:
        throw new KubectlError(`invalid override type: ${type}`);
    }
  } catch (e) {
    if (e instanceof KubectlError) throw e;
    // The patch functions answer as the apiserver would; kubectl prints the bare message.
    throw new KubectlError(e instanceof PatchApplyError ? e.detail : isStatusError(e) ? e.status.message : (e as Error).message);
  }
}
