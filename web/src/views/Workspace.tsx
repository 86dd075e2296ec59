// The lab workspace: the steps beside the terminal, and the views that show what the terminal
// cannot (the cluster, the traffic split, the rules a packet went through, what a command
// changed, the commands so far). Everything updates from the live channel.
import { useCallback, useEffect, useRef, useState } from "preact/hooks";
import { api, ApiError, execStreamed, NetworkError, type Graph, type JournalEntry, type LabDef, type RulesView as Rules, type Trace, type Workspace as WorkspaceData } from "../api";
import { complete } from "../completion";
import { t } from "../i18n";
import { LiveChannel, type LiveMessage } from "../live";
import { navigate } from "../main";
import { clusters, type KnownCluster } from "../store";
import { LabTerminal } from "../terminal";
import { ChangesView, diffLines, type Changes } from "./ChangesView";
import { ClusterView } from "./ClusterView";
import { Header } from "./Header";
import { RulesView } from "./RulesView";
import { Steps } from "./Steps";
import { TrafficView } from "./TrafficView";
import { EditorDialog } from "./EditorDialog";
import { HistoryView } from "./HistoryView";

type Tab = "cluster" | "traffic" | "rules" | "changes" | "history";
const TABS: Tab[] = ["cluster", "traffic", "rules", "changes", "history"];

/** /labs/{id}: makes a cluster of the lab and opens it. */
export function StartLab(props: { lab: string }) {
  const [error, setError] = useState("");
  useEffect(() => {
    api.create(props.lab).then(
      (c) => {
        clusters.add({ id: c.id, token: c.token, lab: c.lab, createdAt: Date.now() });
        navigate(`/c/${c.id}`, true);
      },
      (e: Error) => setError(e.message),
    );
  }, [props.lab]);
  return (
    <div class="page">
      <Header />
      <main class="center" id="main">
        {error ? <p class="error" role="alert">{error}</p> : <p class="loading" aria-busy="true">{t("creating")}</p>}
      </main>
    </div>
  );
}

export function Workspace(props: { clusterId: string }) {
  const known = clusters.get(props.clusterId);
  if (!known) {
    return (
      <div class="page">
        <Header />
        <main class="center" id="main">
          <p>{t("unknownCluster")}</p>
          <a class="button" href="/" onClick={(e) => (e.preventDefault(), navigate("/"))}>
            {t("backToLabs")}
          </a>
        </main>
      </div>
    );
  }
  return <WorkspaceView id={known.id} token={known.token} labId={known.lab} readOnly={false} seat={known.classroom} />;
}

export function WorkspaceView(props: { id: string; token: string; labId: string; readOnly: boolean; shareToken?: string; seat?: KnownCluster["classroom"] }) {
  const { id, token, readOnly } = props;
  const [lab, setLab] = useState<LabDef | undefined>();
  const [ws, setWs] = useState<WorkspaceData | undefined>();
  const [tab, setTab] = useState<Tab>("cluster");
  const [live, setLive] = useState<"connecting" | "open" | "reconnecting" | "gone">("connecting");
  const [gone, setGone] = useState(false);
  const [busy, setBusy] = useState(false);
  const [slow, setSlow] = useState(false);
  const [node, setNode] = useState("master");
  const [service, setService] = useState("");
  const [rules, setRules] = useState<Rules | null | undefined>();
  const [trace, setTrace] = useState<Trace | undefined>();
  const [changes, setChanges] = useState<Changes[]>([]);
  const [journal, setJournal] = useState<JournalEntry[]>([]);
  const [notice, setNotice] = useState("");
  const [timeUp, setTimeUp] = useState(false);
  const rejoin = async (seat: NonNullable<KnownCluster["classroom"]>) => {
    try {
      const j = await api.join(seat.join, seat.name, seat.code);
      clusters.forget(id);
      clusters.add({ id: j.cluster.id, token: j.cluster.token, lab: j.cluster.lab, createdAt: Date.now(), classroom: seat });
      navigate(`/c/${j.cluster.id}`, true);
    } catch (e) {
      setNotice((e as Error).message);
    }
  };
  const [editing, setEditing] = useState<{ file: string; text: string } | undefined>();
  const editDone = useRef<((text: string | null) => void) | undefined>(undefined);
  const openEditor = (e: { file: string; text: string }) =>
    new Promise<string | null>((resolve) => {
      editDone.current = resolve;
      setEditing({ file: e.file, text: e.text });
    });
  const closeEditor = (text: string | null) => {
    setEditing(undefined);
    editDone.current?.(text);
    editDone.current = undefined;
    term.current?.focus();
  };
  const termEl = useRef<HTMLDivElement>(null);
  const term = useRef<LabTerminal | undefined>(undefined);
  const graph = useRef<Graph | undefined>(undefined);
  const lastSeq = useRef(0);
  const objectChanges = useRef<string[]>([]);
  const rulesBefore = useRef<Map<string, string[]>>(new Map());
  const refreshTimer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  /** The prompt before the next line, and the node the rules view shows (read inside the terminal's callbacks). */
  const wsPrompt = useRef("[root@master ~]# ");
  const nodeRef = useRef(node);
  nodeRef.current = node;

  const fail = useCallback((e: unknown) => {
    if (e instanceof ApiError && e.code === 404) setGone(true);
    else setNotice((e as Error).message);
  }, []);

  const refresh = useCallback(async () => {
    try {
      const w = await api.workspace(id, token);
      graph.current = w.graph;
      setWs(w);
      return w;
    } catch (e) {
      fail(e);
      return undefined;
    }
  }, [id, token]);

  const loadRules = useCallback(
    async (n: string) => {
      try {
        const r = await api.rules(id, token, n);
        setRules(r);
        return r;
      } catch (e) {
        fail(e);
        return undefined;
      }
    },
    [id, token],
  );

  /** Journal entries after the last one shown: a reload, a reconnect, a share link's catch-up. */
  const catchUp = useCallback(async () => {
    const got: JournalEntry[] = [];
    for (;;) {
      const page = await api.journal(id, token, lastSeq.current);
      for (const e of page.entries) {
        if (e.seq <= lastSeq.current) continue;
        term.current?.writeEntry(e.prompt, e.command, e.stdout, e.stderr, e.cut);
        lastSeq.current = e.seq;
        got.push(e);
      }
      if (!page.more || !page.entries.length) break;
    }
    if (got.length) setJournal((j) => [...j, ...got].slice(-200));
    return got;
  }, [id, token]);

  // The terminal, the lab, the first views, and the live channel.
  useEffect(() => {
    const el = termEl.current!;
    const lt = new LabTerminal(el, {
      readOnly,
      cutNotice: t("cut"),
      onEscape: () => document.querySelector<HTMLElement>(".tabs button[aria-selected=true]")?.focus(),
      complete: (line) => complete(line, graph.current),
      interrupt: () => void api.interrupt(id, token).catch(() => undefined),
      submit: async (command) => {
        setBusy(true);
        const slowTimer = setTimeout(() => setSlow(true), 300);
        objectChanges.current = [];
        const promptNode = /@([^\s:\]]+)/.exec(wsPrompt.current)?.[1] ?? "master";
        try {
          if (!rulesBefore.current.has(promptNode)) {
            const r = await api.rules(id, token, promptNode).catch(() => null);
            if (r) rulesBefore.current.set(promptNode, r.sections.flatMap((s) => s.lines));
          }
          let ans;
          let streamed = "";
          try {
            ans = await execStreamed(id, token, command, lt.term.cols, (chunk, screen) => {
              if (!screen) streamed += chunk;
              lt.writeStream(chunk);
            });
            // kubectl edit: the file opens in the hosted editor until it is saved or quit.
            while (ans.edit) {
              const text = await openEditor(ans.edit);
              ans = await api.saveEdit(id, token, ans.edit.id, text);
            }
          } catch (e) {
            if (e instanceof NetworkError) {
              // The command may have run: never send it again; show what the journal says once back.
              lt.writeNotice(t("lostCommand"));
              await waitOnline();
              await catchUp().catch(() => []);
              lt.showPrompt(wsPrompt.current);
              return;
            }
            throw e;
          }
          lt.writeOutput(ans.stdout, ans.stderr);
          if (ans.seq) lastSeq.current = Math.max(lastSeq.current, ans.seq);
          if (ans.prompt) wsPrompt.current = ans.prompt;
          lt.showPrompt(wsPrompt.current);
          setJournal((j) => [...j, { seq: ans.seq ?? 0, ts: Date.now(), prompt: "", command, exitCode: ans.exitCode, stdout: streamed + ans.stdout, stderr: ans.stderr }].slice(-200));
          const w = await refresh();
          // A command that sent traffic shows its bars at once; the rules' diff follows.
          if (w?.traffic && w.traffic.seq === ans.seq) setTab("traffic");
          const after = await api.rules(id, token, promptNode).catch(() => null);
          if (after) {
            const lines = after.sections.flatMap((s) => s.lines);
            const d = diffLines(rulesBefore.current.get(promptNode) ?? lines, lines);
            rulesBefore.current.set(promptNode, lines);
            const change = { command, node: promptNode, ...d, objects: [...new Set(objectChanges.current)] };
            setChanges((all) => [change, ...all].slice(0, 12));
            if (promptNode === nodeRef.current) setRules(after);
          }
        } catch (e) {
          if (e instanceof ApiError) {
            if (e.code === 404) setGone(true);
            lt.writeError(`servicelab: ${e.message}`);
          } else lt.writeError(`servicelab: ${(e as Error).message}`);
          lt.showPrompt(wsPrompt.current);
        } finally {
          clearTimeout(slowTimer);
          setSlow(false);
          setBusy(false);
        }
      },
    });
    term.current = lt;
    (window as unknown as { servicelab: unknown }).servicelab = { term: lt.term, live: () => channel };
    let channel: LiveChannel | undefined;
    let disposed = false;
    (async () => {
      try {
        const [l, w] = await Promise.all([api.lab(props.labId).catch(() => undefined), api.workspace(id, token)]);
        if (disposed) return;
        setLab(l);
        graph.current = w.graph;
        setWs(w);
        wsPrompt.current = w.prompt;
        const got = await catchUp();
        lt.setHistory(got.map((e) => e.command));
        if (!readOnly) lt.showPrompt(w.prompt);
        lt.focus();
        channel = new LiveChannel(id, token, {
          state: (s) => {
            setLive(s);
            if (s === "gone") setGone(true);
            // Back after a drop: anything run meanwhile (another tab, a share's owner) is shown once.
            if (s === "open" && readOnly) void catchUp();
          },
          message: (m: LiveMessage) => {
            if (m.type === "change") {
              const o = m.object.metadata;
              if (m.resource !== "events" && m.resource !== "leases.coordination.k8s.io") objectChanges.current.push(`${m.verb.toLowerCase()} ${m.resource.split(".")[0]} ${o.namespace ? o.namespace + "/" : ""}${o.name}`);
              clearTimeout(refreshTimer.current);
              refreshTimer.current = setTimeout(() => void refresh(), 150);
            } else if (m.type === "exec" && m.entry && m.entry.seq > lastSeq.current && readOnly) {
              lt.writeEntry(m.entry.prompt, m.entry.command, m.entry.stdout, m.entry.stderr, m.entry.cut);
              lastSeq.current = m.entry.seq;
              setJournal((j) => [...j, { ...m.entry!, ts: Date.now(), exitCode: m.exitCode }].slice(-200));
              void refresh();
            }
          },
        });
      } catch (e) {
        fail(e);
      }
    })();
    return () => {
      disposed = true;
      channel?.close();
      lt.dispose();
    };
  }, [id, token]);


  useEffect(() => {
    if (tab === "rules") void loadRules(node);
  }, [tab, node, ws?.revision]);

  // A classroom's time can change without a change in the cluster (the teacher extends or closes).
  const inClass = !!ws?.classroom;
  useEffect(() => {
    if (!inClass) return;
    const timer = setInterval(() => void refresh(), 15_000);
    return () => clearInterval(timer);
  }, [inClass]);

  const run = useCallback((code: string) => {
    void term.current?.run(code);
    term.current?.focus();
  }, []);

  const openBar = useCallback(
    async (pod: string) => {
      try {
        const tr = await api.trace(id, token, pod);
        if (!tr) return;
        setTrace(tr);
        const first = tr.result.trace?.[0]?.node ?? "master";
        setNode(first);
        const svc = ws?.traffic?.service;
        if (svc) setService(`${svc.namespace}/${svc.name}`);
        setTab("rules");
      } catch (e) {
        fail(e);
      }
    },
    [id, token, ws],
  );

  const share = async () => {
    try {
      const s = await api.share(id, token);
      await navigator.clipboard?.writeText(s.url).catch(() => undefined);
      setNotice(`${t("shareCopied")}: ${s.url}`);
    } catch (e) {
      fail(e);
    }
  };

  const fork = async () => {
    if (!props.shareToken) return;
    try {
      const c = await api.fork(props.shareToken);
      clusters.add({ id: c.id, token: c.token, lab: c.lab, createdAt: Date.now() });
      navigate(`/c/${c.id}`);
    } catch (e) {
      fail(e);
    }
  };

  // The selector differences of the step the student is on (a later step's wants are not news).
  const current = ws?.steps?.find((s) => !s.passed);
  const diffs = current?.checks.map((c) => c.diff).filter(Boolean) ?? [];
  return (
    <div class={`page workspace ${readOnly ? "read-only" : ""}`}>
      <Header>
        {ws?.classroom && (
          <ClassTimer
            deadline={ws.classroom.deadline}
            closed={ws.classroom.readOnly}
            code={props.seat?.code}
            onWarn={(k) => setNotice(t(k))}
            onEnd={() => {
              term.current?.setReadOnly();
              setTimeUp(true);
            }}
          />
        )}
        <span class={`live-state ${live}`} role="status" aria-live="polite">
          {live === "open" ? `● ${t("live")}` : live === "gone" ? "" : t("reconnecting")}
        </span>
        {(busy && slow) && <span class="spinner" role="status" aria-label="running" />}
        <TerminalView term={term} />
        {readOnly ? (
          <>
            <span class="ro">{t("readOnly")}</span>
            <button type="button" class="button primary" onClick={fork}>
              {t("fork")}
            </button>
          </>
        ) : (
          <button type="button" class="button" onClick={share}>
            {t("share")}
          </button>
        )}
      </Header>
      {gone && (
        <div class="gone" role="alert">
          {t("gone")}{" "}
          {props.seat ? (
            // A classroom student whose cluster the teacher reset: their seat leads to the new one.
            <button type="button" class="button primary" onClick={() => void rejoin(props.seat!)}>
              {t("backToClass")}
            </button>
          ) : (
            <a class="button primary" href={`/labs/${props.labId}`} onClick={(e) => (e.preventDefault(), clusters.forget(id), navigate(`/labs/${props.labId}`))}>
              {t("newCluster")}
            </a>
          )}
        </div>
      )}
      {timeUp && (
        <div class="gone" role="status">
          {t("timeIsUp")}
        </div>
      )}
      {notice && (
        <div class="notice" role="status">
          {notice}{" "}
          <button type="button" class="link" onClick={() => setNotice("")} aria-label="dismiss">
            ✕
          </button>
        </div>
      )}
      {editing && <EditorDialog file={editing.file} text={editing.text} onClose={closeEditor} />}
      <main class="ws-main" id="main">
        <aside class="ws-steps">{lab ? <Steps
              lab={lab}
              results={ws?.steps}
              onRun={readOnly ? undefined : run}
              onCheck={async () => void (await refresh())}
              nextLab={
                ws?.classroom?.nextLab && props.seat && !readOnly
                  ? {
                      title: ws.classroom.nextLab.title,
                      go: async () => {
                        try {
                          const seat = props.seat!;
                          const j = await api.nextLab(seat.join, seat.name, seat.code);
                          clusters.add({ id: j.cluster.id, token: j.cluster.token, lab: j.cluster.lab, createdAt: Date.now(), classroom: seat });
                          navigate(`/c/${j.cluster.id}`);
                        } catch (e) {
                          setNotice((e as Error).message);
                        }
                      },
                    }
                  : undefined
              }
            /> : <p class="loading">…</p>}</aside>
        <section class="ws-right">
          <div class="term-wrap" aria-label="Terminal" title="Esc leaves the terminal; Tab completes inside it">
            <div class="term" ref={termEl} />
          </div>
          <Splitter />
          <div class="views">
            <div
              class="tabs"
              role="tablist"
              onKeyDown={(e) => {
                // Arrow keys move between the tabs, as the ARIA tabs pattern has it.
                if (e.key !== "ArrowRight" && e.key !== "ArrowLeft") return;
                const next = TABS[(TABS.indexOf(tab) + (e.key === "ArrowRight" ? 1 : TABS.length - 1)) % TABS.length];
                setTab(next);
                document.querySelector<HTMLElement>(`.tabs [data-tab="${next}"]`)?.focus();
              }}
            >
              {TABS.map((k) => (
                <button type="button" role="tab" key={k} aria-selected={tab === k} tabIndex={tab === k ? 0 : -1} class={tab === k ? "active" : ""} onClick={() => setTab(k)} data-tab={k}>
                  {t(k)}
                  {k === "traffic" && ws?.traffic ? ` (${ws.traffic.answered})` : ""}
                </button>
              ))}
            </div>
            <div class="tab-body" role="tabpanel">
              {tab === "cluster" && ws && <ClusterView graph={ws.graph} diffs={diffs} />}
              {tab === "traffic" && <TrafficView traffic={ws?.traffic} samples={ws?.samples ?? []} onBar={openBar} />}
              {tab === "rules" && (
                <RulesView rules={rules} graph={ws?.graph} node={node} onNode={(n) => (setNode(n), setRules(undefined))} service={service} onService={setService} trace={trace} onClearTrace={() => setTrace(undefined)} />
              )}
              {tab === "changes" && <ChangesView changes={changes} />}
              {tab === "history" && (
                <HistoryView
                  id={id}
                  token={token}
                  entries={journal}
                  readOnly={readOnly}
                  onFork={(cid, ctoken, clab) => {
                    clusters.add({ id: cid, token: ctoken, lab: clab, createdAt: Date.now() });
                    navigate(`/c/${cid}`);
                  }}
                />
              )}
            </div>
          </div>
        </section>
      </main>
    </div>
  );
}

function waitOnline(): Promise<void> {
  return new Promise((resolve) => {
    const tryOnce = () =>
      fetch("/healthz").then(
        () => resolve(),
        () => setTimeout(tryOnce, 1000),
      );
    tryOnce();
  });
}

/**
 * The bar between the terminal and the views: drag it, or focus it and use the arrow keys, to
 * give one more room (the split is remembered).
 */
function Splitter() {
  const apply = (pct: number) => {
    const v = Math.min(85, Math.max(20, pct));
    document.documentElement.style.setProperty("--term-rows", `${v}%`);
    localStorage.setItem("servicelab.split", String(v));
  };
  useEffect(() => {
    const saved = Number(localStorage.getItem("servicelab.split"));
    if (saved) apply(saved);
  }, []);
  const current = () => Number(getComputedStyle(document.documentElement).getPropertyValue("--term-rows").replace("%", "")) || 50;
  return (
    <div
      class="splitter"
      role="separator"
      aria-orientation="horizontal"
      aria-label="Resize the terminal and the views"
      aria-valuenow={current()}
      tabIndex={0}
      onKeyDown={(e) => {
        if (e.key === "ArrowUp") apply(current() - 5);
        else if (e.key === "ArrowDown") apply(current() + 5);
      }}
      onPointerDown={(e) => {
        const area = (e.currentTarget as HTMLElement).parentElement!;
        const box = area.getBoundingClientRect();
        const move = (ev: PointerEvent) => apply((100 * (ev.clientY - box.top)) / box.height);
        const up = () => {
          removeEventListener("pointermove", move);
          removeEventListener("pointerup", up);
        };
        addEventListener("pointermove", move);
        addEventListener("pointerup", up);
      }}
    />
  );
}

/** A classroom student's time left, with the warnings at 10 and 2 minutes, and the end. */
function ClassTimer(props: { deadline: string; closed: boolean; code?: string; onWarn: (k: "tenMinutes" | "twoMinutes") => void; onEnd: () => void }) {
  const end = Date.parse(props.deadline);
  const [now, setNow] = useState(Date.now());
  const warned = useRef({ ten: false, two: false, ended: false });
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, []);
  const leftMs = props.closed ? 0 : end - now;
  useEffect(() => {
    const w = warned.current;
    if (leftMs <= 0 && !w.ended) {
      w.ended = true;
      props.onEnd();
    } else if (leftMs > 0 && leftMs <= 2 * 60_000 && !w.two) {
      w.two = w.ten = true;
      props.onWarn("twoMinutes");
    } else if (leftMs > 2 * 60_000 && leftMs <= 10 * 60_000 && !w.ten) {
      w.ten = true;
      props.onWarn("tenMinutes");
    }
  }, [leftMs <= 0, leftMs <= 2 * 60_000, leftMs <= 10 * 60_000]);
  const s = Math.max(0, Math.round(leftMs / 1000));
  const text = s >= 3600 ? `${Math.floor(s / 3600)}:${String(Math.floor((s % 3600) / 60)).padStart(2, "0")}:${String(s % 60).padStart(2, "0")}` : `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
  return (
    <span class={`timer ${s === 0 ? "up" : s <= 600 ? "low" : ""}`} role="timer" aria-label={t("timeLeft")}>
      {text} {t("left")}
      {props.code ? <span class="muted"> · {t("yourCodeIs")}: <strong data-code>{props.code}</strong></span> : null}
    </span>
  );
}

/** The terminal's text size and screen-reader mode, remembered in this browser. */
function TerminalView(props: { term: { current?: LabTerminal } }) {
  const [size, setSize] = useState(Number(localStorage.getItem("servicelab.fontSize")) || 14);
  const [reader, setReader] = useState(localStorage.getItem("servicelab.screenReader") === "1");
  const apply = (fontSize: number, screenReader: boolean) => {
    setSize(fontSize);
    setReader(screenReader);
    localStorage.setItem("servicelab.fontSize", String(fontSize));
    localStorage.setItem("servicelab.screenReader", screenReader ? "1" : "0");
    props.term.current?.setView({ fontSize, screenReader });
  };
  return (
    <span class="term-view" role="group" aria-label={t("terminalView")}>
      <button type="button" class="link" aria-label={t("smaller")} onClick={() => apply(Math.max(10, size - 1), reader)}>
        A−
      </button>
      <button type="button" class="link" aria-label={t("larger")} onClick={() => apply(Math.min(24, size + 1), reader)}>
        A+
      </button>
      <button type="button" class="link" aria-pressed={reader} onClick={() => apply(size, !reader)}>
        {t("screenReader")}
      </button>
    </span>
  );
}
