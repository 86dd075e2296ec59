// What the last command changed: the rule lines kube-proxy added and removed on the node (a
// sync made visible), and the objects that were created, changed or deleted.
import { t } from "../i18n";

export interface Changes {
  command: string;
  node: string;
  added: string[];
  removed: string[];
  objects: string[];
}

export function ChangesView(props: { changes?: Changes }) {
  const c = props.changes;
  if (!c) return <p class="muted pad">{t("noChanges")}</p>;
  return (
    <div class="changes">
      <p>
        <code>{c.command.length > 100 ? c.command.slice(0, 100) + "…" : c.command}</code> · {c.node}
      </p>
      <h3>
        {t("rulesAdded")} ({c.added.length})
      </h3>
      <pre class="diff">
        {c.added.map((l, i) => (
          <div class="add" key={i}>
            + {l}
          </div>
        ))}
      </pre>
      <h3>
        {t("rulesRemoved")} ({c.removed.length})
      </h3>
      <pre class="diff">
        {c.removed.map((l, i) => (
          <div class="del" key={i}>
            - {l}
          </div>
        ))}
      </pre>
      <h3>
        {t("objectsChanged")} ({c.objects.length})
      </h3>
      <ul class="objs">
        {c.objects.map((o, i) => (
          <li key={i}>{o}</li>
        ))}
      </ul>
    </div>
  );
}

/** Lines of `after` not in `before` and the reverse, as multisets (a rule can appear twice). */
export function diffLines(before: string[], after: string[]): { added: string[]; removed: string[] } {
  const ignore = (l: string) => l.startsWith("# ") || l.trim() === "";
  const count = new Map<string, number>();
  for (const l of before) if (!ignore(l)) count.set(l, (count.get(l) ?? 0) + 1);
  const added: string[] = [];
  for (const l of after) {
    if (ignore(l)) continue;
    const n = count.get(l) ?? 0;
    if (n > 0) count.set(l, n - 1);
    else added.push(l);
  }
  const removed: string[] = [];
  for (const [l, n] of count) for (let i = 0; i < n; i++) removed.push(l);
  return { added, removed };
}
