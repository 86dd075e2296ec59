// The kernel handles of a table's objects, as `nft -a` prints them (`# handle N`).
//
// The kernel numbers chains, sets, maps and rules from one counter per table
// (nf_tables_alloc_handle: ++table->hgenerator) and never reuses a number. Loading a listed
// table with `nft -f` creates its chains first, then its sets, then the rules chain by chain;
// each sync here allocates in that same order for what it created or rewrote, so a first sync
// numbers exactly as the kernel does after `nft -f` of our `nft list` (tested against nft), and
// later syncs give new numbers only to new chains/sets and to the rules of flushed-and-refilled
// chains (kube-proxy flushes a changed service's chains; untouched chains keep theirs).
// A restored snapshot rebuilds the proxier, so its handles start again as after a node reboot.
import { mergeIntervalsForListing } from "./ipv4.js";
import type { Chain, NftTable, Rule } from "./model.js";

/** A chain whose rule count is known without building its rules (compact endpoint chains). */
interface CountedChain extends Chain {
  readonly ruleCount: number;
}

/**
 * Handles a rule takes: its own, after one for each anonymous set or map it creates (a
 * `numgen ... vmap { ... }`, or an address set of more than one element; nft turns a
 * one-element set into a plain comparison).
 */
function ruleCost(r: Rule): number {
  let n = 1;
  for (const e of r.exprs) {
    if (e.t === "numgen-vmap") n++;
    else if (e.t === "ip-anon" && e.values.length > 1 && mergeIntervalsForListing(e.values).length > 1) n++;
  }
  return n;
}

/**
 * What a chain's current rules were written as: a compact chain is rewritten by replacing the
 * chain object; any other chain by assigning a new rules array (flush and refill).
 */
function ruleStamp(c: Chain): object {
  return "ruleCount" in c ? c : c.rules;
}

export class TableHandles {
  /** The table's own handle: the first table of the network namespace. */
  readonly table = 1;
  private last = 0;
  private readonly chains = new Map<string, number>();
  private readonly sets = new Map<string, number>();
  /**
   * chain name -> its rules' handles (a compact chain's are consecutive from `first`) and what
   * its rules were written as.
   */
  private readonly rules = new Map<string, { first: number; each?: readonly number[]; stamp: object }>();

  chain(name: string): number | undefined {
    return this.chains.get(name);
  }

  set(name: string): number | undefined {
    return this.sets.get(name);
  }

  /** The handle of rule `index` of chain `name`. */
  rule(name: string, index: number): number | undefined {
    const r = this.rules.get(name);
    if (r === undefined) return undefined;
    return r.each === undefined ? r.first + index : r.each[index];
  }

  /** Numbers what the last sync created or rewrote, and forgets what it deleted. */
  update(table: NftTable): void {
    for (const name of this.chains.keys()) {
      if (!table.chains.has(name)) {
        this.chains.delete(name);
        this.rules.delete(name);
      }
    }
    for (const name of this.sets.keys()) if (!table.sets.has(name)) this.sets.delete(name);
    // Tables list in creation order; a name met out of handle order was deleted and created
    // again during the sync (it now sits last), so it is a new object with a new handle.
    const refilled: Chain[] = [];
    let prev = 0;
    for (const c of table.chains.values()) {
      const h = this.chains.get(c.name);
      if (h === undefined || h < prev) this.chains.set(c.name, ++this.last);
      prev = this.chains.get(c.name)!;
      if (this.rules.get(c.name)?.stamp !== ruleStamp(c)) refilled.push(c);
    }
    prev = 0;
    for (const s of table.sets.keys()) {
      const h = this.sets.get(s);
      if (h === undefined || h < prev) this.sets.set(s, ++this.last);
      prev = this.sets.get(s)!;
    }
    for (const c of refilled) {
      if ("ruleCount" in c) {
        // Hairpin, [affinity update,] DNAT: no anonymous sets.
        this.rules.set(c.name, { first: this.last + 1, stamp: c });
        this.last += (c as CountedChain).ruleCount;
        continue;
      }
      const each: number[] = [];
      for (const r of c.rules) each.push((this.last += ruleCost(r)));
      this.rules.set(c.name, { first: each[0] ?? 0, each, stamp: c.rules });
    }
  }
}
