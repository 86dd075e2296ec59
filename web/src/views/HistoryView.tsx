// Time travel: the commands run so far; choosing one shows the cluster and a node's rules as they
// were right after it (the server replays the journal: the engine is deterministic), and "fork
// from here" makes a new cluster in that state.
import { useEffect, useState } from "preact/hooks";
import { api, ApiError, type JournalEntry, type PastView } from "../api";
import { t } from "../i18n";
import { ClusterView } from "./ClusterView";
import { RulesView } from "./RulesView";

export function HistoryView(props: { id: string; token: string; entries: JournalEntry[]; readOnly: boolean; onFork: (id: string, token: string, lab: string) => void }) {
  const [seq, setSeq] = useState<number | undefined>();
  const [node, setNode] = useState("master");
  const [view, setView] = useState<"cluster" | "rules">("cluster");
  const [past, setPast] = useState<PastView | undefined>();
  const [error, setError] = useState("");
  const [loading, setLoading] = useState(false);
  const [service, setService] = useState("");
  useEffect(() => {
    if (seq === undefined) return;
    let live = true;
    setLoading(true);
    setError("");
    api.past(props.id, props.token, seq, node).then(
      (p) => live && (setPast(p), setLoading(false)),
      (e: Error) => live && (setError(e instanceof ApiError ? e.message : String(e)), setPast(undefined), setLoading(false)),
    );
    return () => {
      live = false;
    };
  }, [seq, node]);
  const fork = async () => {
    if (seq === undefined) return;
    try {
      const c = await api.forkAt(props.id, props.token, seq);
      props.onFork(c.id, c.token, c.lab);
    } catch (e) {
      setError((e as Error).message);
    }
  };
  return (
    <div class="history-view">
      <ol class="history" aria-label={t("history")}>
        <li class={seq === 0 ? "selected" : ""} value={0}>
          <button type="button" class="link" onClick={() => setSeq(0)}>
            {t("atStart")}
          </button>
        </li>
        {props.entries.map((e) => (
          <li key={e.seq} class={`${e.exitCode ? "failed" : ""} ${seq === e.seq ? "selected" : ""}`} value={e.seq}>
            <button type="button" class="link cmd" onClick={() => setSeq(e.seq)} title={e.command}>
              <code>{e.command.split("\n")[0]}</code>
            </button>
            {e.exitCode ? <span class="muted"> exit {e.exitCode}</span> : null}
          </li>
        ))}
      </ol>
      <div class="past">
        {seq === undefined && <p class="muted pad">{t("timeTravelHelp")}</p>}
        {loading && <p class="loading" aria-busy="true">{t("replaying")}</p>}
        {error && <p class="error pad" role="alert">{error}</p>}
        {past && !loading && (
          <>
            <div class="past-bar">
              <strong>{past.seq === 0 ? t("atStart") : `${t("after")} #${past.seq}`}</strong>
              <span class="muted"> {past.clock.replace("T", " ").replace(/\.\d+Z$/, "Z")}</span>
              <button type="button" class={`link ${view === "cluster" ? "active" : ""}`} onClick={() => setView("cluster")}>
                {t("cluster")}
              </button>
              <button type="button" class={`link ${view === "rules" ? "active" : ""}`} onClick={() => setView("rules")}>
                {t("rules")}
              </button>
              {!props.readOnly && (
                <button type="button" class="button" onClick={fork}>
                  {t("forkHere")}
                </button>
              )}
            </div>
            {view === "cluster" ? (
              <ClusterView graph={past.graph} diffs={[]} />
            ) : (
              <RulesView rules={past.rules} graph={past.graph} node={node} onNode={setNode} service={service} onService={setService} onClearTrace={() => undefined} />
            )}
          </>
        )}
      </div>
    </div>
  );
}
