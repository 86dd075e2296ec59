// ClusterIP and NodePort allocation as kube-apiserver does it (K/pkg/registry/core/service/
// ipallocator and portallocator): a static band at the bottom of each range for addresses and
// ports that users ask for, and random dynamic allocation that prefers the upper band.

import { field, goSlice, internalError, type FieldError } from "../api/status.js";
import { formatIPv4, parseCIDR, parseIPv4, type CIDR } from "../util/ip.js";
import type { Rng } from "../rng.js";

export class AllocationError extends Error {
  constructor(readonly fieldError: FieldError) {
    super(fieldError.detail);
  }
}

/** A bitmap-like allocator over [0, size) with a static band [0, offset). */
class Range {
  private readonly used = new Set<number>();
  constructor(
    readonly size: number,
    readonly offset: number,
  ) {}
  has(i: number): boolean {
    return this.used.has(i);
  }
  take(i: number): void {
    this.used.add(i);
  }
  release(i: number): void {
    this.used.delete(i);
  }
  get free(): number {
    return this.size - this.used.size;
  }
  /** A random free slot, upper (dynamic) band first, then the static band; -1 when full. */
  next(rng: Rng): number {
    const scan = (lo: number, hi: number): number => {
      const n = hi - lo;
      if (n <= 0) return -1;
      const start = rng.int(n);
      for (let k = 0; k < n; k++) {
        const i = lo + ((start + k) % n);
        if (!this.used.has(i)) return i;
      }
      return -1;
    };
    const i = scan(this.offset, this.size);
    return i >= 0 ? i : scan(0, this.offset);
  }
}

/** min(max(min, size/div), max): the size of the static band (calculateRangeOffset). */
function bandOffset(size: number, div: number, min: number, max: number): number {
  if (size < min) return 0;
  return Math.min(Math.max(min, Math.floor(size / div)), max);
}

export class ClusterIPAllocator {
  readonly cidr: CIDR;
  private readonly range: Range;
  constructor(cidrText: string) {
    const c = parseCIDR(cidrText);
    if (!c) throw new Error(`invalid service CIDR ${cidrText}`);
    this.cidr = c;
    // The network address and the broadcast address are never handed out.
    const size = Math.max(0, c.size - 2);
    this.range = new Range(size, bandOffset(size, 16, 16, 256));
  }
  private index(ip: string): number | undefined {
    const n = parseIPv4(ip);
    if (n === undefined) return undefined;
    const i = n - this.cidr.base - 1;
    return i >= 0 && i < this.range.size ? i : undefined;
  }
  /** Allocates a requested address; throws AllocationError worded as the apiserver. */
  allocate(ip: string, path = "spec.clusterIPs"): void {
    const i = this.index(ip);
    if (i === undefined) {
      throw new AllocationError(
        field.invalid(
          path,
          goSlice([ip]),
          `failed to allocate IP ${ip}: the provided IP (${ip}) is not in the valid range. The range of valid IPs is ${this.cidr.text}`,
        ),
      );
    }
    if (this.range.has(i)) {
      throw new AllocationError(field.invalid(path, goSlice([ip]), `failed to allocate IP ${ip}: provided IP is already allocated`));
    }
    this.range.take(i);
  }
  allocateNext(rng: Rng): string {
    const i = this.range.next(rng);
    if (i < 0) throw internalError("failed to allocate a serviceIP: range is full");
    this.range.take(i);
    return formatIPv4(this.cidr.base + 1 + i);
  }
  release(ip: string): void {
    const i = this.index(ip);
    if (i !== undefined) this.range.release(i);
  }
  /** Marks an address used without checks (rebuilding state from stored Services). */
  restore(ip: string): void {
    const i = this.index(ip);
    if (i !== undefined) this.range.take(i);
  }
  isAllocated(ip: string): boolean {
    const i = this.index(ip);
    return i !== undefined && this.range.has(i);
  }
  get free(): number {
    return this.range.free;
  }
}

export class NodePortAllocator {
  private readonly range: Range;
  constructor(
    readonly base: number,
    readonly last: number,
  ) {
    const size = last - base + 1;
    this.range = new Range(size, bandOffset(size, 32, 16, 128));
  }
  get text(): string {
    return `${this.base}-${this.last}`;
  }
  allocate(port: number, path: string): void {
    if (port < this.base || port > this.last) {
      throw new AllocationError(
        field.invalid(path, port, `provided port is not in the valid range. The range of valid ports is ${this.text}`),
      );
    }
    const i = port - this.base;
    if (this.range.has(i)) throw new AllocationError(field.invalid(path, port, "provided port is already allocated"));
    this.range.take(i);
  }
  allocateNext(rng: Rng): number {
    const i = this.range.next(rng);
    if (i < 0) throw internalError("failed to allocate a nodePort: range is full");
    this.range.take(i);
    return this.base + i;
  }
  release(port: number): void {
    if (port >= this.base && port <= this.last) this.range.release(port - this.base);
  }
  restore(port: number): void {
    if (port >= this.base && port <= this.last) this.range.take(port - this.base);
  }
  isAllocated(port: number): boolean {
    return port >= this.base && port <= this.last && this.range.has(port - this.base);
  }
}
