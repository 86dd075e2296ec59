// The protobuf wire format, read only: varints, fixed 32/64-bit words and length-delimited
// fields. Enough for the k8s.io messages kubectl sends (proto2, gogo-generated).

export const WIRE = { varint: 0, fixed64: 1, bytes: 2, startGroup: 3, endGroup: 4, fixed32: 5 } as const;

export class WireError extends Error {}

export interface WireField {
  num: number;
  wire: number;
  /** varint and fixed values (as bigint: int64 must not lose bits). */
  int?: bigint;
  /** length-delimited payload. */
  bytes?: Uint8Array;
}

export class Reader {
  pos = 0;
  constructor(readonly buf: Uint8Array) {}

  done(): boolean {
    return this.pos >= this.buf.length;
  }

  varint(): bigint {
    let result = 0n;
    let shift = 0n;
    for (;;) {
      if (this.pos >= this.buf.length) throw new WireError("unexpected end of data in varint");
      const b = this.buf[this.pos++];
      result |= BigInt(b & 0x7f) << shift;
      if (!(b & 0x80)) return result;
      shift += 7n;
      if (shift > 63n) throw new WireError("varint longer than 10 bytes");
    }
  }

  fixed(n: 4 | 8): bigint {
    if (this.pos + n > this.buf.length) throw new WireError("unexpected end of data in fixed field");
    let v = 0n;
    for (let i = n - 1; i >= 0; i--) v = (v << 8n) | BigInt(this.buf[this.pos + i]);
    this.pos += n;
    return v;
  }

  bytes(): Uint8Array {
    const len = Number(this.varint());
    if (len < 0 || this.pos + len > this.buf.length) throw new WireError("length-delimited field runs past the end of the data");
    const out = this.buf.subarray(this.pos, this.pos + len);
    this.pos += len;
    return out;
  }

  field(): WireField {
    const key = this.varint();
    const num = Number(key >> 3n);
    const wire = Number(key & 7n);
    if (num === 0) throw new WireError("field number 0");
    switch (wire) {
      case WIRE.varint:
        return { num, wire, int: this.varint() };
      case WIRE.fixed64:
        return { num, wire, int: this.fixed(8) };
      case WIRE.fixed32:
        return { num, wire, int: this.fixed(4) };
      case WIRE.bytes:
        return { num, wire, bytes: this.bytes() };
      default:
        throw new WireError(`unsupported wire type ${wire} for field ${num}`);
    }
  }

  /** Every field of the message, in order. */
  static fields(buf: Uint8Array): WireField[] {
    const r = new Reader(buf);
    const out: WireField[] = [];
    while (!r.done()) out.push(r.field());
    return out;
  }
}

/** Two's complement: a varint int32/int64 holds negative values in 64 bits. */
export function toSigned64(v: bigint): bigint {
  return BigInt.asIntN(64, v);
}
