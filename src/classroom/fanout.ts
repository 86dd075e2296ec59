// The teacher dashboards' live channel on one host: each classroom's open dashboards, told when
// the class changed (a student's command, a join, a reset), at most once per interval, so a class
// of hundreds typing at once costs each dashboard a few refreshes a second, not one per command.
export class ClassroomFanout {
  private readonly rooms = new Map<string, Set<(m: string) => void>>();
  private readonly pending = new Map<string, ReturnType<typeof setTimeout>>();

  constructor(private readonly intervalMs = 500) {}

  join(classroomId: string, send: (m: string) => void): () => void {
    let set = this.rooms.get(classroomId);
    if (!set) this.rooms.set(classroomId, (set = new Set()));
    set.add(send);
    send(JSON.stringify({ type: "hello", classroom: classroomId }));
    return () => {
      set.delete(send);
      if (!set.size) this.rooms.delete(classroomId);
    };
  }

  notify(classroomId: string): void {
    if (!this.rooms.has(classroomId) || this.pending.has(classroomId)) return;
    const timer = setTimeout(() => {
      this.pending.delete(classroomId);
      for (const send of this.rooms.get(classroomId) ?? []) {
        try {
          send(JSON.stringify({ type: "changed" }));
        } catch {
          // a closing socket
        }
      }
    }, this.intervalMs);
    timer.unref?.();
    this.pending.set(classroomId, timer);
  }
}
