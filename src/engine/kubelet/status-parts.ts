// Parts of pod statuses that many pods hold alike (a condition that turned True in the same
// second, a node's host IPs, an image's names), made once per kubelet and shared by its pods'
// statuses: stored objects are never changed, and a 10k-pod cluster would otherwise hold 50k
// copies of a handful of conditions. Each cluster's kubelet has its own (no tenant shares them).
import type { ContainerStatus } from "../api/types.js";
import { rfc3339 } from "../clock.js";
import { sha256 } from "../util/hash.js";
import { memoize } from "../util/memo.js";
import { imageDigestInput, parseImage } from "./images.js";

interface PodConditionMade {
  type: string;
  status: string;
  lastProbeTime: null;
  lastTransitionTime: string;
  reason?: string;
  message?: string;
}

const CONDITION_KEYS = ["type", "status", "lastProbeTime", "lastTransitionTime"];
const CONDITION_KEYS_REASON = ["type", "status", "lastProbeTime", "lastTransitionTime", "reason", "message"];

export class StatusParts {
  /** An image's status.image and status.imageID (the digest is a hash: computed once per image). */
  readonly imageNames = memoize(imageNames, 1024);
  /** `{ running: { startedAt } }` by second, shared by the containers started in it (frozen). */
  private readonly running = memoize((sec: number): ContainerStatus["state"] => Object.freeze({ running: Object.freeze({ startedAt: rfc3339(sec * 1000) }) }), 4096);
  /** `{ waiting: { reason } }`, one per reason (frozen). */
  readonly waitingState = memoize((reason: string): ContainerStatus["state"] => Object.freeze({ waiting: Object.freeze({ reason }) }), 64);
  /** A node's status.hostIPs, shared by its pods (by the node's IP: a flat, hashed string). */
  readonly hostIPsOf = memoize((hostIP: string): { ip: string }[] => [{ ip: hostIP }], 4096);
  /** Conditions by their joined fields. */
  private readonly conditions = new Map<string, PodConditionMade>();
  /** The last condition podCondition returned, by type. */
  private readonly lastMade = new Map<string, PodConditionMade>();

  runningState(startedAt: number): ContainerStatus["state"] {
    return this.running(Math.floor(startedAt / 1000));
  }

  /**
   * `prev` (a condition of the stored status) when it is exactly the condition these arguments
   * make, else the shared one: most status writes move one condition of five, and the shared
   * table's key is a joined string per lookup.
   */
  condition(prev: unknown, type: string, status: string, lastTransitionTime: string, reason?: string, message?: string): PodConditionMade {
    if (prev && typeof prev === "object") {
      // Exactly the keys podCondition makes, in its order, with the same values.
      const p = prev as Record<string, unknown>;
      const keys = reason ? CONDITION_KEYS_REASON : CONDITION_KEYS;
      let i = 0;
      for (const k in p) if (k !== keys[i++]) return this.podCondition(type, status, lastTransitionTime, reason, message);
      if (
        i === keys.length &&
        p.type === type &&
        p.status === status &&
        p.lastProbeTime === null &&
        p.lastTransitionTime === lastTransitionTime &&
        (!reason || (p.reason === reason && p.message === message))
      ) {
        return prev as PodConditionMade;
      }
    }
    return this.podCondition(type, status, lastTransitionTime, reason, message);
  }

  private podCondition(type: string, status: string, lastTransitionTime: string, reason?: string, message?: string): PodConditionMade {
    // The last condition made or found of this type first: pods that the kubelet handles one after
    // another in one instant mostly have the same ones, and the shared table's key is a joined
    // string per lookup.
    const last = this.lastMade.get(type);
    if (last && last.status === status && last.lastTransitionTime === lastTransitionTime && last.reason === reason && last.message === (reason ? message : undefined)) {
      return last;
    }
    const key = `${type}|${status}|${lastTransitionTime}|${reason ?? ""}|${message ?? ""}`;
    let v = this.conditions.get(key);
    if (v === undefined) {
      v = reason ? { type, status, lastProbeTime: null, lastTransitionTime, reason, message } : { type, status, lastProbeTime: null, lastTransitionTime };
      if (this.conditions.size >= 4096) this.conditions.clear();
      this.conditions.set(key, v);
    }
    this.lastMade.set(type, v);
    return v;
  }

  /** How many parts are held (for the test that two clusters share none). */
  get size(): number {
    return this.conditions.size;
  }
}

function imageNames(image: string): { image: string; imageID: string } {
  const ref = parseImage(image);
  const digest = Array.from(sha256(imageDigestInput(ref)), (b) => b.toString(16).padStart(2, "0")).join("");
  return {
    image: ref.registry === "docker.io" ? `docker.io/${ref.repository}:${ref.tag}` : `${ref.registry}/${ref.repository}:${ref.tag}`,
    imageID: `${ref.registry}/${ref.repository}@sha256:${digest}`,
  };
}
