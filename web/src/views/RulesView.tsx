// A node's rules in its mode, printed by the same code as iptables-save / ipvsadm -Ln / nft
// list, optionally folded to one Service's chains, with one connection's path highlighted rule
// by rule: the lines it matched, numbered in the order it met them, the random draw against the
// probability, the DNAT, the hop to the pod's node, and how many rules it passed.
import { useMemo } from "preact/hooks";
import type { Graph, RulesView as Rules, Trace } from "../api";
import { t } from "../i18n";

/** Lines of one Service: those naming it, the chains they jump to, and those chains' rules. */
function foldToService(lines: string[], svc: string): Set<number> {
  const keep = new Set<number>();
  const chains = new Set<string>();
  lines.forEach((l, i) => {
    if (l.includes(`"${svc}`) || l.includes(` ${svc}`) || l.includes(`${svc}:`) || l.includes(`/${svc.split("/")[1]}/`)) {
      keep.add(i);
      for (const m of l.matchAll(/(?:-j|goto|jump) (KUBE-[A-Z]+-[A-Z0-9]+|[a-z]+-[A-Z0-9]{8}-[^\s,]+)/g)) chains.add(m[1]);
    }
  });
  lines.forEach((l, i) => {
    for (const c of chains) if (l.startsWith(`-A ${c} `) || l.startsWith(`:${c} `) || l.includes(`chain ${c} `)) keep.add(i);
  });
  return keep;
}

const stripNumber = (s: string) => s.replace(/^\d+: /, "").trim();

export function RulesView(props: {
  rules?: Rules | null;
  graph?: Graph;
  node: string;
  onNode: (n: string) => void;
  service: string;
  onService: (s: string) => void;
  trace?: Trace;
  onClearTrace: () => void;
}) {
  const { rules, trace } = props;
  const steps = trace?.result.trace ?? [];
  // The trace's rule steps on this node, in order: text -> the step numbers that matched it.
  // (iptables-save: keyed by table too, as a chain name like OUTPUT is in several tables.)
  const matched = useMemo(() => {
    const m = new Map<string, number[]>();
    steps.forEach((s, i) => {
      if (s.node !== props.node || (s.kind !== "rule" && s.kind !== "lookup" && s.kind !== "scheduler")) return;
      const k = `${s.table ?? ""}|${stripNumber(s.text)}`;
      m.set(k, [...(m.get(k) ?? []), i + 1]);
      m.set(`|${stripNumber(s.text)}`, [...(m.get(`|${stripNumber(s.text)}`) ?? []), i + 1]);
    });
    return m;
  }, [trace, props.node]);
  const services = props.graph?.services.filter((s) => s.namespace !== "kube-system" || s.name === "kube-dns") ?? [];
  return (
    <div class="rules">
      <div class="rules-bar">
        <label>
          {t("node")}{" "}
          <select value={props.node} onChange={(e) => props.onNode((e.target as HTMLSelectElement).value)}>
            {(props.graph?.nodes ?? [{ name: "master" }]).map((n) => (
              <option key={n.name} value={n.name}>
                {n.name}
              </option>
            ))}
          </select>
        </label>
        <label>
          {t("service")}{" "}
          <select value={props.service} onChange={(e) => props.onService((e.target as HTMLSelectElement).value)}>
            <option value="">{t("allRules")}</option>
            {services.map((s) => (
              <option key={`${s.namespace}/${s.name}`} value={`${s.namespace}/${s.name}`}>
                {s.namespace}/{s.name}
              </option>
            ))}
          </select>
        </label>
        {rules && (
          <span class="muted">
            {t("mode")}: <strong>{rules.mode}</strong>
          </span>
        )}
      </div>
      {trace && (
        <div class="path" aria-label={t("path")}>
          <div class="path-head">
            <strong>{t("path")}</strong>: {trace.result.tuple.proto} {trace.result.tuple.src}:{trace.result.tuple.sport} → {trace.result.tuple.dst}:{trace.result.tuple.dport} ·{" "}
            {trace.result.verdict} {trace.result.pod ? `(${trace.result.pod})` : ""} · {trace.result.path.join(" → ")} · <strong>{trace.result.rules}</strong> {t("rulesEvaluated")}
            {trace.result.seenSrc ? ` · pod sees ${trace.result.seenSrc.ip}` : ""}
            <button type="button" class="link" onClick={props.onClearTrace}>
              {t("clearPath")}
            </button>
          </div>
          <ol class="path-steps">
            {steps.map((s, i) => (
              <li key={i} class={`ps ${s.kind} ${s.node === props.node ? "here" : ""}`} value={i + 1}>
                {s.kind === "hook" || s.kind === "hop" ? <strong>[{s.node}] </strong> : null}
                {s.text}
                {s.kind === "hop" && s.node !== props.node && (
                  <button type="button" class="link" onClick={() => props.onNode(s.node)}>
                    {s.node}
                  </button>
                )}
              </li>
            ))}
          </ol>
        </div>
      )}
      {!rules && <p class="loading">…</p>}
      {rules?.sections.map((sec) => {
        const keep = props.service ? foldToService(sec.lines, props.service) : undefined;
        let table = "";
        return (
          <section key={sec.command}>
            <h3>
              <code>
                [root@{rules.node}]# {sec.command}
              </code>
            </h3>
            <pre class="ruleset">
              {sec.lines.map((l, i) => {
                if (l.startsWith("*")) table = l.slice(1);
                if (keep && !keep.has(i) && !l.startsWith("*") && l !== "COMMIT") return null;
                const hit = sec.command.startsWith("iptables-save") ? matched.get(`${table}|${l}`) : matched.get(`|${l.trim()}`);
                return (
                  <div key={i} class={hit ? "hit" : ""} data-hit={hit ? hit.join(",") : undefined}>
                    {hit && <span class="hit-n">{hit.join(",")}</span>}
                    {l || " "}
                  </div>
                );
              })}
            </pre>
          </section>
        );
      })}
    </div>
  );
}
