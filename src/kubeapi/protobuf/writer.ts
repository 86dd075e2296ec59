// The protobuf wire format, written: varints and length-delimited fields, nested messages built
// by callbacks (their length is known once written). Enough for the documents we serve
// (/openapi/v2 as gnostic's openapi_v2.Document).

const enc = new TextEncoder();

export class Writer {
  private chunks: Uint8Array[] = [];
  private size = 0;

  private push(b: Uint8Array): void {
    this.chunks.push(b);
    this.size += b.length;
  }

  private varint(v: number): void {
    const out: number[] = [];
    let n = v;
    while (n > 0x7f) {
      out.push((n & 0x7f) | 0x80);
      n = Math.floor(n / 128);
    }
    out.push(n);
    this.push(Uint8Array.from(out));
  }

  private tag(field: number, wire: number): void {
    this.varint(field * 8 + wire);
  }

  bytes(field: number, b: Uint8Array): void {
    this.tag(field, 2);
    this.varint(b.length);
    this.push(b);
  }

  string(field: number, s: string): void {
    this.bytes(field, enc.encode(s));
  }

  bool(field: number, v: boolean): void {
    this.tag(field, 0);
    this.varint(v ? 1 : 0);
  }

  message(field: number, build: (w: Writer) => void): void {
    const w = new Writer();
    build(w);
    this.bytes(field, w.finish());
  }

  finish(): Uint8Array {
    const out = new Uint8Array(this.size);
    let at = 0;
    for (const c of this.chunks) {
      out.set(c, at);
      at += c.length;
    }
    return out;
  }
}
