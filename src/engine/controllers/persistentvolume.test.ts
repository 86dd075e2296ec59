import { describe, expect, it } from "vitest";
import { R } from "../api/resources.js";
import type { KObject } from "../api/types.js";
import type { PersistentVolume, PersistentVolumeClaim } from "../api/types-storage.js";
import { findBestMatch, PersistentVolumeController } from "./persistentvolume.js";
import { eventsOf, type Harness, newHarness } from "./testdata/harness.js";

const setup = (): Harness => newHarness((ctx) => [new PersistentVolumeController(ctx)]);

function pv(name: string, size: string, modes: string[], extra: Record<string, unknown> = {}, labels?: Record<string, string>): KObject {
  return { metadata: { name, ...(labels ? { labels } : {}) }, spec: { capacity: { storage: size }, accessModes: modes, hostPath: { path: `/mnt/${name}` }, ...extra } };
}
function pvc(name: string, size: string, modes: string[], extra: Record<string, unknown> = {}): KObject {
  return { metadata: { name }, spec: { accessModes: modes, resources: { requests: { storage: size } }, ...extra } };
}
const getPV = (h: Harness, n: string) => h.api.get(R.persistentvolumes, undefined, n) as PersistentVolume;
const getPVC = (h: Harness, n: string) => h.api.get(R.persistentvolumeclaims, "default", n) as PersistentVolumeClaim;

describe("PersistentVolume controller (static binding)", () => {
  it("defaults a volume (Retain, Filesystem, protection finalizer) and makes it Available", () => {
    const h = setup();
    h.api.create(R.persistentvolumes, undefined, pv("a", "1024Mi", ["ReadWriteOnce"]));
    h.settle();
    const a = getPV(h, "a");
    expect(a.spec?.persistentVolumeReclaimPolicy).toBe("Retain");
    expect(a.spec?.volumeMode).toBe("Filesystem");
    expect(a.spec?.capacity).toEqual({ storage: "1Gi" });
    expect(a.metadata.finalizers).toEqual(["kubernetes.io/pv-protection"]);
    expect(a.status?.phase).toBe("Available");
  });

  it("binds the smallest Available volume with the claim's modes, class and selector", () => {
    const h = setup();
    h.api.create(R.persistentvolumes, undefined, pv("big", "10Gi", ["ReadWriteOnce"]));
    h.api.create(R.persistentvolumes, undefined, pv("small", "2Gi", ["ReadWriteOnce"]));
    h.api.create(R.persistentvolumes, undefined, pv("tiny", "500Mi", ["ReadWriteOnce"]));
    h.api.create(R.persistentvolumes, undefined, pv("rwx", "1Gi", ["ReadWriteOnce", "ReadWriteMany"]));
    h.api.create(R.persistentvolumes, undefined, pv("classy", "1Gi", ["ReadWriteOnce"], { storageClassName: "manual" }));
    h.settle();
    const volumes = h.api.list(R.persistentvolumes, undefined).items as PersistentVolume[];
    const claim = (spec: Record<string, unknown>) => ({ metadata: { name: "c", namespace: "default" }, spec }) as PersistentVolumeClaim;
    expect(findBestMatch(claim({ accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "1Gi" } } }), volumes)?.metadata.name).toBe("small");
    expect(findBestMatch(claim({ accessModes: ["ReadWriteMany"], resources: { requests: { storage: "1Gi" } } }), volumes)?.metadata.name).toBe("rwx");
    expect(findBestMatch(claim({ accessModes: ["ReadWriteOnce"], storageClassName: "manual", resources: { requests: { storage: "1Gi" } } }), volumes)?.metadata.name).toBe("classy");
    expect(findBestMatch(claim({ accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "20Gi" } } }), volumes)).toBeUndefined();

    h.api.create(R.persistentvolumeclaims, "default", pvc("data", "1Gi", ["ReadWriteOnce"]));
    h.settle();
    const c = getPVC(h, "data");
    const v = getPV(h, "small");
    expect(c.spec?.volumeName).toBe("small");
    expect(c.metadata.annotations).toEqual({ "pv.kubernetes.io/bind-completed": "yes", "pv.kubernetes.io/bound-by-controller": "yes" });
    expect(c.status).toEqual({ phase: "Bound", accessModes: ["ReadWriteOnce"], capacity: { storage: "2Gi" } });
    expect(v.spec?.claimRef).toMatchObject({ kind: "PersistentVolumeClaim", namespace: "default", name: "data", uid: c.metadata.uid, apiVersion: "v1" });
    expect(v.metadata.annotations).toEqual({ "pv.kubernetes.io/bound-by-controller": "yes" });
    expect(v.status?.phase).toBe("Bound");
  });

  it("leaves an unmatched claim Pending with the controller's events, repeated each resync", () => {
    const h = setup();
    h.api.create(R.persistentvolumeclaims, "default", pvc("none", "1Gi", ["ReadWriteOnce"]));
    h.api.create(R.persistentvolumeclaims, "default", pvc("fast", "1Gi", ["ReadWriteOnce"], { storageClassName: "fast" }));
    h.settle();
    h.advance(30_000);
    expect(getPVC(h, "none").status?.phase).toBe("Pending");
    const evs = eventsOf(h, "default");
    expect(evs.find((e) => e.object === "PersistentVolumeClaim/none")).toMatchObject({ type: "Normal", reason: "FailedBinding", message: "no persistent volumes available for this claim and no storage class is set", count: 3 });
    expect(evs.find((e) => e.object === "PersistentVolumeClaim/fast")).toMatchObject({ type: "Warning", reason: "ProvisioningFailed", message: 'storageclass.storage.k8s.io "fast" not found' });
  });

  it("releases a Retain volume when its claim goes; a Delete one fails for a hostPath outside /tmp", () => {
    const h = setup();
    h.api.create(R.persistentvolumes, undefined, pv("keep", "1Gi", ["ReadWriteOnce"]));
    h.api.create(R.persistentvolumes, undefined, pv("gone", "1Gi", ["ReadWriteMany"], { persistentVolumeReclaimPolicy: "Delete" }));
    h.api.create(R.persistentvolumeclaims, "default", pvc("a", "1Gi", ["ReadWriteOnce"]));
    h.api.create(R.persistentvolumeclaims, "default", pvc("b", "1Gi", ["ReadWriteMany"]));
    h.settle();
    h.api.delete(R.persistentvolumeclaims, "default", "a");
    h.api.delete(R.persistentvolumeclaims, "default", "b");
    h.settle();
    expect(() => getPVC(h, "a")).toThrow();
    expect(getPV(h, "keep").status?.phase).toBe("Released");
    expect(getPV(h, "gone").status).toMatchObject({ phase: "Failed", message: "host_path deleter only supports /tmp/.+ but received provided /mnt/gone" });
  });

  it("validates with the apiserver's messages", () => {
    const h = setup();
    const refusal = (f: () => unknown) => {
      try {
        f();
        return "";
      } catch (e) {
        return (e as Error).message;
      }
    };
    expect(refusal(() => h.api.create(R.persistentvolumeclaims, "default", { metadata: { name: "x" }, spec: { accessModes: ["ReadWriteOnce"] } }))).toBe(
      'PersistentVolumeClaim "x" is invalid: spec.resources[storage]: Required value',
    );
    expect(refusal(() => h.api.create(R.persistentvolumes, undefined, { metadata: { name: "x" }, spec: { capacity: { storage: "1Gi" }, hostPath: { path: "/x" } } }))).toBe(
      'PersistentVolume "x" is invalid: spec.accessModes: Required value',
    );
  });
});
