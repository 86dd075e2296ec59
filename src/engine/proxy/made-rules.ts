// What compact rules make when first read (an nft endpoint chain's rules, an iptables endpoint
// rule's matches and target) is kept while it is among the last `size` made: a packet to an
// endpoint then allocates nothing for its rules, and a render of a whole large ruleset (nft list,
// iptables-save: ~100k endpoints at 10k Services) does not keep them all (measured: +34 MB of
// nft rules after one `nft list` at 10k Services when every chain kept its own). One per
// proxier, never shared between clusters.

/** Something that made rules on read and can drop them (they are made again on the next read). */
export interface MadeOnRead {
  forget(): void;
}

export class MadeRules {
  private readonly ring: (MadeOnRead | undefined)[];
  private next = 0;

  constructor(readonly size = 8192) {
    this.ring = new Array<MadeOnRead | undefined>(size).fill(undefined);
  }

  /** `o` has just made its rules: they stay until `size` others have made theirs, then `o.forget()`. */
  made(o: MadeOnRead): void {
    const i = this.next;
    this.ring[i]?.forget();
    this.ring[i] = o;
    this.next = i + 1 === this.size ? 0 : i + 1;
  }
}
