// A node's rules in its mode, printed by the same code as iptables-save / ipvsadm -Ln / nft
// list, optionally folded to one Service's chains, with one connection's path highlighted rule
// by rule: the lines it matched, numbered in the order it met them, the random draw against the
// probability, the DNAT, the hop to the pod's node, and how many rules it passed.
import type { Graph, RulesView as Rules, Trace } from "../api";
import { t } from "../i18n";
import { ruleHits } from "./rule-hits";

/**
 * Lines of one Service ("ns/name"), or undefined to show everything. iptables-save: the lines
 * naming it, the chains they jump to, and those chains' rules. nft: the chains named after it,
 * whole, and the map elements that lead to them. ipvsadm names no Service: it is shown whole.
 */
function foldToService(command: string, lines: string[], svc: string): Set<number> | undefined {
  const keep = new Set<number>();
  if (command.startsWith("ipvsadm")) return undefined;
  if (command.startsWith("nft")) {
    const tag = `-${svc}/`;
    let open = -1;
    lines.forEach((l, i) => {
      const header = /^\s*(chain|map|set) \S+ \{/.exec(l);
      if (header) open = l.includes(tag) ? i : -1;
      if (open >= 0 || l.includes(tag) || /^\s*table /.test(l)) keep.add(i);
      if (/^\s*\}\s*$/.test(l) && open >= 0) open = -1;
    });
    return keep;
  }
  const chains = new Set<string>();
  lines.forEach((l, i) => {
    if (l.includes(`"${svc}`) || l.includes(` ${svc}`) || l.includes(`${svc}:`)) {
      keep.add(i);
      for (const m of l.matchAll(/-j (KUBE-[A-Z]+-[A-Z0-9]+)/g)) chains.add(m[1]);
    }
  });
  lines.forEach((l, i) => {
    for (const c of chains) if (l.startsWith(`-A ${c} `) || l.startsWith(`:${c} `)) keep.add(i);
  });
  return keep;
}

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
        const keep = props.service ? foldToService(sec.command, sec.lines, props.service) : undefined;
        const hits = steps.length ? ruleHits(sec.command, sec.lines, steps, props.node) : undefined;
        return (
          <section key={sec.command}>
            <h3>
              <code>
                [root@{rules.node}]# {sec.command}
              </code>
            </h3>
            <pre class="ruleset">
              {sec.lines.map((l, i) => {
                const hit = hits?.get(i);
                if (keep && !keep.has(i) && !hit && !l.startsWith("*") && l !== "COMMIT") return null;
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
