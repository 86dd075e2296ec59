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

/** The last commands' changes, newest first: what each made kube-proxy write, and the objects it changed. */
export function ChangesView(props: { changes: Changes[] }) {
  if (!props.changes.length) return <p class="muted pad">{t("noChanges")}</p>;
  // The newest command that changed something is open.
  const first = props.changes.findIndex((c) => !isEmpty(c));
  return (
    <div class="changes">
      {props.changes.map((c, i) => (
        <Change c={c} key={props.changes.length - i} open={i === first} />
      ))}
    </div>
  );
}

const isEmpty = (c: Changes) => !c.added.length && !c.removed.length && !c.objects.length;

function Change(props: { c: Changes; open: boolean }) {
  const { c } = props;
  const head = (
    <>
      <code>{c.command.length > 100 ? c.command.slice(0, 100) + "…" : c.command}</code>
      <span class="muted">
        {" "}
        · {c.node} · {isEmpty(c) ? t("changedNothing") : `+${c.added.length} −${c.removed.length} ${t("ruleLines")}, ${c.objects.length} ${t("objectsChanged")}`}
      </span>
    </>
  );
  if (isEmpty(c)) return <p class="change-empty">{head}</p>;
  return (
    <details open={props.open} class="change">
      <summary>{head}</summary>
      <Lines title={t("rulesAdded")} lines={c.added} mark="+" cls="add" />
      <Lines title={t("rulesRemoved")} lines={c.removed} mark="-" cls="del" />
      {c.objects.length > 0 && (
        <>
          <h3>
            {t("objectsChanged")} ({c.objects.length})
          </h3>
          <ul class="objs">
            {c.objects.map((o, i) => (
              <li key={i}>{o}</li>
            ))}
          </ul>
        </>
      )}
    </details>
  );
}

function Lines(props: { title: string; lines: string[]; mark: string; cls: string }) {
  if (!props.lines.length) return null;
  return (
    <>
      <h3>
        {props.title} ({props.lines.length})
      </h3>
      <pre class="diff">
        {props.lines.map((l, i) => (
          <div class={props.cls} key={i}>
            {props.mark} {l}
          </div>
        ))}
      </pre>
    </>
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
