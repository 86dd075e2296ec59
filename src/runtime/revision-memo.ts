// The one "serialize again only if the owner's revision moved" of a cluster's rows (side rows,
// pod rows, log rows): serializing the kubelet's or the terminal's state costs more than a
// read-only command, and each owner counts its changes, so a memo keyed by that count skips it.

/** An owner's change counter; undefined for an owner that keeps none (then never up to date). */
export type Revision = number | string | undefined;

/** A value made from an owner at one of its revisions. */
export class RevisionMemo<T = string> {
  private rev: Revision;
  private held = false;
  private v: T | undefined;

  /** Whether the value is the owner's at `rev`. */
  isAt(rev: Revision): boolean {
    return this.held && rev !== undefined && this.rev === rev;
  }

  /** The value at `rev`: `make` runs only when the memo is not already at it. */
  at(rev: Revision, make: () => T): T {
    if (!this.isAt(rev)) this.adopt(rev, make());
    return this.v as T;
  }

  /** Takes `value` as the owner's at `rev` (a row just read, or found still equal). */
  adopt(rev: Revision, value: T): void {
    this.rev = rev;
    this.v = value;
    this.held = true;
  }

  /** Makes the next at() make the value again, whatever the revision. */
  forget(): void {
    this.held = false;
  }

  /** The value last made or adopted (undefined before either). */
  get value(): T | undefined {
    return this.v;
  }
}
