// The live channel (docs/platform.md): a WebSocket that delivers the cluster's changes and its
// terminal's commands as they are persisted. It reconnects with ?since=<last revision seen>, so
// nothing is missed or seen twice; while it is down the workspace says "reconnecting".
export type LiveMessage =
  | { type: "hello"; cluster: string; rv: number }
  | { type: "change"; rv: number; verb: string; resource: string; object: { metadata: { name?: string; namespace?: string } } }
  | { type: "reset"; rv: number }
  | { type: "exec"; command: string; exitCode: number; stdout: string; stderr: string; entry?: { seq: number; prompt: string; command: string; stdout: string; stderr: string; cut?: boolean } }
  | { type: "gone"; reason: string };

interface LiveHandlers {
  message(m: LiveMessage): void;
  state(s: "connecting" | "open" | "reconnecting" | "gone"): void;
}

export class LiveChannel {
  private ws?: WebSocket;
  private rv?: number;
  private closed = false;
  private retry = 0;
  private timer?: ReturnType<typeof setTimeout>;

  constructor(
    private readonly id: string,
    private readonly token: string,
    private readonly on: LiveHandlers,
  ) {
    this.connect();
  }

  private connect(): void {
    if (this.closed) return;
    const proto = location.protocol === "https:" ? "wss:" : "ws:";
    const since = this.rv !== undefined ? `&since=${this.rv}` : "";
    const ws = new WebSocket(`${proto}//${location.host}/v1/clusters/${encodeURIComponent(this.id)}/live?token=${encodeURIComponent(this.token)}${since}`);
    this.ws = ws;
    this.on.state(this.retry ? "reconnecting" : "connecting");
    ws.onopen = () => {
      this.retry = 0;
      this.on.state("open");
    };
    ws.onmessage = (ev) => {
      let m: LiveMessage;
      try {
        m = JSON.parse(String(ev.data)) as LiveMessage;
      } catch {
        return;
      }
      if (m.type === "change" || m.type === "reset" || m.type === "hello") this.rv = m.rv;
      if (m.type === "gone") {
        this.closed = true;
        this.on.state("gone");
      }
      this.on.message(m);
    };
    ws.onclose = () => {
      if (this.closed) return;
      this.retry++;
      this.on.state("reconnecting");
      // 0.5 s, 1 s, 2 s ... at most 10 s between tries.
      this.timer = setTimeout(() => this.connect(), Math.min(10_000, 250 * 2 ** Math.min(this.retry, 6)));
    };
  }

  /** Drops the connection as a network failure would (tests) or to retry now. */
  drop(): void {
    this.ws?.close();
  }

  close(): void {
    this.closed = true;
    clearTimeout(this.timer);
    this.ws?.close();
  }
}
