// The catalog: every lab with what it teaches, its level and duration; "continue" for a cluster
// this browser already has; the language switch.
import { useEffect, useState } from "preact/hooks";
import { api, type LabSummary } from "../api";
import { t, tx } from "../i18n";
import { clusters } from "../store";
import { navigate } from "../main";
import { Header } from "./Header";

/** `code` spans of a lab summary as <code>, the rest as text (no markup from data). */
function inlineCode(text: string) {
  return text.split("`").map((part, i) => (i % 2 ? <code key={i}>{part}</code> : part));
}

export function Catalog() {
  const [labs, setLabs] = useState<LabSummary[] | undefined>();
  const [error, setError] = useState("");
  useEffect(() => {
    document.title = "ServiceLab";
    api.labs().then((r) => setLabs(r.items), (e: Error) => setError(e.message));
  }, []);
  return (
    <div class="page">
      <Header />
      <main class="catalog" id="main">
        <p class="tagline">{t("tagline")}</p>
        <h1>{t("labs")}</h1>
        {error && <p class="error" role="alert">{error}</p>}
        {!labs && !error && <p class="loading" aria-busy="true">…</p>}
        <ul class="cards">
          {labs?.map((l) => {
            const mine = clusters.forLab(l.id);
            return (
              <li class="card" key={l.id} data-lab={l.id}>
                <h2>{tx(l.title)}</h2>
                <p class="meta">
                  <span class={`level ${l.level}`}>{t(l.level)}</span> · {l.minutes} {t("minutes")}
                  {l.steps ? ` · ${l.steps} ${t("steps")}` : ""}
                  {l.source ? ` · ${l.source}` : ""}
                </p>
                <p>{inlineCode(tx(l.summary))}</p>
                <div class="actions">
                  <a class="button primary" href={`/labs/${l.id}`} onClick={(e) => (e.preventDefault(), navigate(`/labs/${l.id}`))}>
                    {t("start")}
                  </a>
                  {l.steps > 0 && (
                    <a class="button subtle" href={`/teach/${l.id}`} onClick={(e) => (e.preventDefault(), navigate(`/teach/${l.id}`))}>
                      {t("teach")}
                    </a>
                  )}
                  {mine && (
                    <a class="button" href={`/c/${mine.id}`} onClick={(e) => (e.preventDefault(), navigate(`/c/${mine.id}`))}>
                      {t("continue")}
                    </a>
                  )}
                </div>
              </li>
            );
          })}
        </ul>
      </main>
    </div>
  );
}
