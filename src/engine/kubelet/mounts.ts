// A container's volume mounts as its filesystem (fs.ts) asks for them: the configMap volumes'
// mount points, and the files the kubelet's mountsFor puts there, rebuilt only when the store
// has changed.

import type { Container, Pod } from "../api/types.js";
import type { FsHost } from "./fs.js";
import type { Kubelet, PodRuntime } from "./kubelet.js";

/** Where a container's configMap volumes are mounted (directories, or subPath files). */
function configMapMountPoints(spec: Pod["spec"], c: Container): string[] {
  const out: string[] = [];
  for (const vm of c.volumeMounts ?? []) {
    if ((spec.volumes ?? []).find((v) => v.name === vm.name)?.configMap) out.push(vm.mountPath.replace(/\/+$/, "") || "/");
  }
  return out;
}

/**
 * A container's mounts as its filesystem asks for them: built again only when the store has
 * changed since (a configMap edit shows at once), not on every file lookup of every request.
 */
export class ContainerMounts implements FsHost {
  private rev = -1;
  private m: ReadonlyMap<string, string> | undefined;

  // The pod's name, namespace and spec, not an object holding them: a small pod object per
  // container (and its metadata) cost ~80 bytes per container for a rare rebuild of the mounts.
  constructor(
    private readonly kubelet: Kubelet,
    private readonly name: string,
    private readonly namespace: string,
    private readonly spec: Pod["spec"],
    private readonly c: Container,
    private readonly rt: PodRuntime,
  ) {}

  private pod(): Pod {
    return { metadata: { name: this.name, namespace: this.namespace }, spec: this.spec } as Pod;
  }

  mounts(): ReadonlyMap<string, string> {
    const now = this.kubelet.storeRevision();
    if (this.m === undefined || now !== this.rev) {
      this.m = this.kubelet.mountsFor(this.pod(), this.c, this.rt);
      this.rev = now;
    }
    return this.m;
  }

  changed(): void {
    this.kubelet.filesChanged(this.pod(), this.c.name);
  }

  private vols?: readonly string[];
  volumes(): readonly string[] {
    return (this.vols ??= configMapMountPoints(this.spec, this.c));
  }

  /**
   * The kubelet's files and what the container's volume mounts can put under their paths (see
   * mountsFor): a readiness probe reading the document root does not build resolv.conf and hosts.
   */
  mayMount(path: string): boolean {
    if (path === "/etc/resolv.conf" || path === "/etc/hostname" || path === "/etc/hosts") return true;
    const vms = this.c.volumeMounts;
    if (!vms) return false;
    for (const vm of vms) {
      const base = vm.mountPath.replace(/\/$/, "");
      if (path === base || path.startsWith(`${base}/`)) return true;
    }
    return false;
  }
}
