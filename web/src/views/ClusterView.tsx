// The cluster: Services along the top with lines to the pods their EndpointSlices list (solid:
// ready; dashed: not ready; grey: terminating), nodes as columns with their pods coloured by
// Deployment and pod-template-hash. A Service with no endpoints says why (the failing check's
// selector difference) and has no lines.
import { useLayoutEffect, useRef, useState } from "preact/hooks";
import type { CheckResult, Graph, GraphService } from "../api";
import { t } from "../i18n";
import { colorOf } from "./colors";

interface Line {
  x1: number;
  y1: number;
  x2: number;
  y2: number;
  cls: string;
}

const key = (ns: string, name: string) => `${ns}/${name}`;

export function ClusterView(props: { graph: Graph; diffs: CheckResult["diff"][] }) {
  const { graph } = props;
  const [system, setSystem] = useState(false);
  const visible = (ns: string) => system || (ns !== "kube-system" && ns !== "metallb-system");
  const services = graph.services.filter((s) => visible(s.namespace) && !(s.namespace === "default" && s.name === "kubernetes" && !system));
  const pods = graph.pods.filter((p) => visible(p.namespace));
  const box = useRef<HTMLDivElement>(null);
  const [lines, setLines] = useState<Line[]>([]);
  useLayoutEffect(() => {
    const root = box.current;
    if (!root) return;
    const base = root.getBoundingClientRect();
    const out: Line[] = [];
    for (const s of services) {
      const se = root.querySelector<HTMLElement>(`[data-svc="${CSS.escape(key(s.namespace, s.name))}"]`);
      if (!se) continue;
      const a = se.getBoundingClientRect();
      for (const e of s.endpoints) {
        if (!e.pod) continue;
        const pe = root.querySelector<HTMLElement>(`[data-pod="${CSS.escape(key(s.namespace, e.pod))}"]`);
        if (!pe) continue;
        const b = pe.getBoundingClientRect();
        out.push({ x1: a.left + a.width / 2 - base.left, y1: a.bottom - base.top, x2: b.left + b.width / 2 - base.left, y2: b.top - base.top, cls: e.terminating ? "ep terminating" : e.ready ? "ep ready" : "ep notready" });
      }
    }
    setLines(out);
  }, [graph, system]);
  const diffFor = (s: GraphService) => props.diffs.find((d) => d && d.service === s.name && d.namespace === s.namespace);
  return (
    <div class="cluster-view" ref={box}>
      <svg class="edges" aria-hidden="true">
        {lines.map((l, i) => (
          <line key={i} x1={l.x1} y1={l.y1} x2={l.x2} y2={l.y2} class={l.cls} />
        ))}
      </svg>
      <label class="toggle">
        <input type="checkbox" checked={system} onChange={(e) => setSystem((e.target as HTMLInputElement).checked)} /> {t("systemPods")}
      </label>
      <div class="services">
        {services.length === 0 && <p class="muted">{t("noServices")}</p>}
        {services.map((s) => {
          const d = diffFor(s);
          const ready = s.endpoints.filter((e) => e.ready).length;
          return (
            <div class={`svc ${s.endpoints.length ? "" : "empty"}`} data-svc={key(s.namespace, s.name)} key={key(s.namespace, s.name)} tabIndex={0}>
              <div class="svc-name">
                <strong>{s.name}</strong> <span class="muted">{s.namespace}</span>
              </div>
              <div class="svc-meta">
                {s.type} {s.clusterIP}
                {s.ports.map((p) => ` :${p.port}${p.nodePort ? `→${p.nodePort}` : ""}/${p.protocol}`).join("")}
                {s.externalIPs.length ? ` ⇢ ${s.externalIPs.join(", ")}` : ""}
              </div>
              <div class="svc-meta">
                {s.selector ? Object.entries(s.selector).map(([k, v]) => `${k}=${v}`).join(",") : "no selector"} · {s.endpoints.length ? `${ready}/${s.endpoints.length} ready` : t("endpointsNone")}
                {s.sessionAffinity === "ClientIP" ? " · affinity ClientIP" : ""}
                {s.externalTrafficPolicy === "Local" ? " · eTP Local" : ""}
              </div>
              {d && (
                <div class="svc-why" role="note">
                  selects {Object.entries(d.selector ?? {}).map(([k, v]) => `${k}=${v}`).join(",")}; {d.matching} pod(s) match
                  {d.near.length ? `; pods are labelled ${[...new Set(d.near.map((p) => Object.entries(p.labels).filter(([k]) => k !== "pod-template-hash").map(([k, v]) => `${k}=${v}`).join(",")))].slice(0, 2).join("; ")}` : ""}
                </div>
              )}
            </div>
          );
        })}
      </div>
      <div class="nodes">
        {graph.nodes.map((n) => (
          <div class="node" key={n.name}>
            <div class="node-name">
              <strong>{n.name}</strong> <span class="muted">{n.mode || "iptables"}</span>
              {!n.ready && <span class="warn"> NotReady</span>}
              {n.unschedulable && <span class="warn"> SchedulingDisabled</span>}
            </div>
            <div class="pods">
              {pods
                .filter((p) => p.node === n.name)
                .map((p) => (
                  <div
                    class={`pod ${p.ready ? "ready" : "notready"} ${p.terminating ? "terminating" : ""}`}
                    data-pod={key(p.namespace, p.name)}
                    key={key(p.namespace, p.name)}
                    style={{ borderColor: colorOf(`${p.namespace}/${p.owner}/${p.hash}`) }}
                    title={`${p.namespace}/${p.name}\n${p.ip}\n${p.phase}${p.ready ? " Ready" : ""}\nrestarts: ${p.restarts}\n${Object.entries(p.labels).map(([k, v]) => `${k}=${v}`).join("\n")}`}
                    tabIndex={0}
                  >
                    <span class="dot" style={{ background: colorOf(`${p.namespace}/${p.owner}/${p.hash}`) }} />
                    <span class="pod-name">{p.name}</span>
                    <span class="pod-meta">
                      {p.terminating ? "Terminating" : p.phase}
                      {p.ready ? "" : " · not ready"}
                      {p.restarts ? ` · ${p.restarts}↻` : ""} · {p.ip}
                    </span>
                  </div>
                ))}
            </div>
          </div>
        ))}
      </div>
    </div>
  );
}
