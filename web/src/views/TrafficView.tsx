// The last command that sent traffic: requests per pod as bars next to the share the rules
// predict, with totals and the connections no pod answered. A bar opens one of its requests'
// path in the rules view.
import type { TrafficView as Traffic } from "../api";
import { t } from "../i18n";

export function TrafficView(props: { traffic?: Traffic; samples: string[]; onBar: (pod: string) => void }) {
  const tr = props.traffic;
  if (!tr) {
    return (
      <div class="traffic empty">
        <p>{t("noTraffic")}</p>
        <pre>for i in {"{1..100}"}; do curl -s $IP; done | sort | uniq -c</pre>
      </div>
    );
  }
  const other = Object.entries(tr.other);
  const max = Math.max(0.01, ...tr.bars.map((b) => Math.max(b.share, b.predicted ?? 0)));
  return (
    <div class="traffic">
      <p class="traffic-head">
        <code>{tr.command.length > 90 ? tr.command.slice(0, 90) + "…" : tr.command}</code>
        <br />
        <strong>{tr.answered}</strong> / {tr.connections} {t("requests")}
        {tr.service ? ` → ${tr.service.namespace}/${tr.service.name} (${tr.service.mode})` : ""}
      </p>
      <div class="legend">
        <span class="sw observed" /> {t("observed")} <span class="sw predicted" /> {t("predicted")}
        {tr.service?.how ? <span class="muted"> · {tr.service.how}</span> : null}
      </div>
      {tr.groups.length > 1 && (
        <ul class="groups" aria-label="per Deployment">
          {tr.groups.map((g) => (
            <li key={g.owner} data-owner={g.owner}>
              <span class="bar-label">
                <strong>{g.owner.split("/")[1]}</strong> ({g.pods})
              </span>
              <span class="bar-track">
                <span class="bar observed" style={{ width: `${100 * g.share}%` }} />
                {g.predicted !== undefined && <span class="bar predicted" style={{ width: `${100 * g.predicted}%` }} />}
              </span>
              <span class="bar-num">
                <strong>{Math.round(g.share * 100)}%</strong>
                {g.predicted !== undefined ? ` / ${Math.round(g.predicted * 100)}%` : ""}
              </span>
            </li>
          ))}
        </ul>
      )}
      <ul class="bars">
        {tr.bars.map((b) => {
          const has = props.samples.some((k) => k.startsWith(`${b.pod}|`));
          return (
            <li key={b.pod}>
              <button type="button" class="bar-row" disabled={!has} onClick={() => props.onBar(b.pod)} title={has ? t("clickBar") : ""} data-pod={b.pod}>
                <span class="bar-label">{b.pod.split("/")[1]}</span>
                <span class="bar-track">
                  <span class="bar observed" style={{ width: `${(100 * b.share) / max}%` }} />
                  {b.predicted !== undefined && <span class="bar predicted" style={{ width: `${(100 * b.predicted) / max}%` }} />}
                </span>
                <span class="bar-num">
                  {b.connections} · {Math.round(b.share * 100)}%{b.predicted !== undefined ? ` / ${Math.round(b.predicted * 1000) / 10}%` : ""}
                </span>
              </button>
            </li>
          );
        })}
      </ul>
      {other.length > 0 && (
        <p class="other">
          {t("noPod")}: {other.map(([k, n]) => `${k} ${n}`).join(", ")}
        </p>
      )}
      {props.samples.length > 0 && <p class="muted">{t("clickBar")}</p>}
    </div>
  );
}
