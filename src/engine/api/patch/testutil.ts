// Test helpers (imported only by *.test.ts).

import { isStatusError, type Status } from "../status.js";

/** Freezes a value and everything in it, so any write by the code under test throws. */
export function deepFreeze<T>(v: T): T {
  if (typeof v === "object" && v !== null) {
    for (const k of Object.keys(v)) deepFreeze((v as Record<string, unknown>)[k]);
    Object.freeze(v);
  }
  return v;
}

/** Runs `f`, expects a StatusError, and returns its Status (plus `detail` when present). */
export function statusOf(f: () => unknown): Status & { detail?: string } {
  try {
    f();
  } catch (e) {
    if (isStatusError(e)) {
      const detail = (e as { detail?: unknown }).detail;
      return typeof detail === "string" ? { ...e.status, detail } : e.status;
    }
    throw e;
  }
  throw new Error("expected a StatusError, got success");
}
