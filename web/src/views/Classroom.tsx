// Classrooms in the browser: a teacher makes one from the catalog (/teach/{lab}), students join
// from its link (/j/{token}) with a name, and the teacher follows the class live (/t/{token}).
import { useEffect, useState } from "preact/hooks";
import { api, ApiError, type Dashboard, type LabSummary } from "../api";
import { t, tx } from "../i18n";
import { navigate } from "../main";
import { clusters, taught } from "../store";
import { Header } from "./Header";

/** /teach/{lab}: the teacher's form. */
export function NewClassroom(props: { lab: string }) {
  const [lab, setLab] = useState<LabSummary | undefined>();
  const [all, setAll] = useState<LabSummary[]>([]);
  const [then, setThen] = useState<string[]>([]);
  const [title, setTitle] = useState("");
  const [minutes, setMinutes] = useState(60);
  const [capacity, setCapacity] = useState(40);
  const [error, setError] = useState("");
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    api.labs().then((r) => {
      setAll(r.items.filter((x) => x.steps > 0 && x.id !== props.lab));
      const l = r.items.find((x) => x.id === props.lab);
      setLab(l);
      if (l) setTitle(tx(l.title));
    });
  }, [props.lab]);
  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError("");
    try {
      const c = await api.createClassroom({ labs: [props.lab, ...all.filter((l) => then.includes(l.id)).map((l) => l.id)], title: title.trim() || undefined, minutes, capacity });
      taught.add({ token: c.teacher.token, title: c.title, lab: c.lab });
      navigate(`/t/${c.teacher.token}`);
    } catch (err) {
      setError((err as Error).message);
      setBusy(false);
    }
  };
  return (
    <div class="page">
      <Header />
      <main class="form-page" id="main">
        <h1>{t("newClassroom")}</h1>
        {lab && <p class="muted">{tx(lab.summary)}</p>}
        <form onSubmit={submit} class="form">
          <label>
            {t("classTitle")}
            <input value={title} onInput={(e) => setTitle((e.target as HTMLInputElement).value)} maxLength={200} required />
          </label>
          <label>
            {t("minutesEach")}
            <input type="number" min={1} max={10080} value={minutes} onInput={(e) => setMinutes(Number((e.target as HTMLInputElement).value))} required />
          </label>
          <label>
            {t("capacity")}
            <input type="number" min={1} max={1000} value={capacity} onInput={(e) => setCapacity(Number((e.target as HTMLInputElement).value))} required />
          </label>
          <fieldset class="then">
            <legend>{t("thenLabs")}</legend>
            {all.map((l) => (
              <label class="inline" key={l.id}>
                <input type="checkbox" checked={then.includes(l.id)} onChange={(e) => setThen((x) => ((e.target as HTMLInputElement).checked ? [...x, l.id] : x.filter((y) => y !== l.id)))} /> {tx(l.title)}
              </label>
            ))}
          </fieldset>
          {error && (
            <p class="error" role="alert">
              {error}
            </p>
          )}
          <button type="submit" class="button primary" disabled={busy} aria-busy={busy}>
            {t("createClassroom")}
          </button>
        </form>
      </main>
    </div>
  );
}

/** /j/{token}: a student joins with a name, or comes back with the name and the code. */
export function Join(props: { token: string }) {
  const [info, setInfo] = useState<Awaited<ReturnType<typeof api.joinInfo>> | undefined>();
  const [name, setName] = useState("");
  const [code, setCode] = useState("");
  const [back, setBack] = useState(false);
  const [error, setError] = useState("");
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    // This browser already has a seat here: back to it.
    const mine = clusters.forClassroom(props.token);
    if (mine) {
      navigate(`/c/${mine.id}`, true);
      return;
    }
    api.joinInfo(props.token).then(setInfo, (e: Error) => setError(e.message));
  }, [props.token]);
  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError("");
    try {
      const j = await api.join(props.token, name.trim(), back ? code.trim() : undefined);
      clusters.add({ id: j.cluster.id, token: j.cluster.token, lab: j.cluster.lab, createdAt: Date.now(), classroom: { join: props.token, name: j.student.name, code: j.student.code, title: j.classroom.title } });
      navigate(`/c/${j.cluster.id}`, true);
    } catch (err) {
      setError(err instanceof ApiError ? err.message : String(err));
      setBusy(false);
    }
  };
  const closedWhy = info && info.state !== "open" ? t(`join_${info.state.replace("-", "_")}` as "join_closed") : "";
  return (
    <div class="page">
      <Header />
      <main class="form-page" id="main">
        {info ? (
          <>
            <h1>{info.title}</h1>
            <p class="muted">
              {tx(info.labTitle)} · {info.minutes} {t("minutes")}
            </p>
            {closedWhy ? (
              <p class="error" role="alert">
                {closedWhy}
              </p>
            ) : null}
            <form onSubmit={submit} class="form">
              <label>
                {t("yourName")}
                <input value={name} onInput={(e) => setName((e.target as HTMLInputElement).value)} maxLength={80} required autoFocus />
              </label>
              <label class="inline">
                <input type="checkbox" checked={back} onChange={(e) => setBack((e.target as HTMLInputElement).checked)} /> {t("joinedBefore")}
              </label>
              {back && (
                <label>
                  {t("yourCode")}
                  <input value={code} onInput={(e) => setCode((e.target as HTMLInputElement).value)} maxLength={20} required autoCapitalize="characters" />
                </label>
              )}
              {error && (
                <p class="error" role="alert">
                  {error}
                </p>
              )}
              <button type="submit" class="button primary" disabled={busy || (!!closedWhy && !back)} aria-busy={busy}>
                {back ? t("rejoin") : t("joinClass")}
              </button>
            </form>
          </>
        ) : error ? (
          <p class="error" role="alert">
            {error}
          </p>
        ) : (
          <p class="loading">…</p>
        )}
      </main>
    </div>
  );
}

const clock = (iso: string | null) => (iso ? new Date(iso).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" }) : "");
const left = (s: number) => (s <= 0 ? "0:00" : `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`);

/** /t/{token}: the teacher's live view of the class. */
export function TeacherDashboard(props: { token: string }) {
  const [d, setD] = useState<Dashboard | undefined>();
  const [error, setError] = useState("");
  const [notice, setNotice] = useState("");
  const load = async () => {
    try {
      setD(await api.dashboard(props.token));
      setError("");
    } catch (e) {
      setError((e as Error).message);
    }
  };
  const [live, setLive] = useState(false);
  useEffect(() => {
    void load();
    // Live: the classroom's channel says when a student did something; the dashboard reads the
    // class again then. A slow poll catches what no command caused (pods becoming Ready).
    let ws: WebSocket | undefined;
    let closed = false;
    let retry: ReturnType<typeof setTimeout> | undefined;
    const connect = () => {
      const proto = location.protocol === "https:" ? "wss:" : "ws:";
      ws = new WebSocket(`${proto}//${location.host}/v1/teach/${encodeURIComponent(props.token)}/live`);
      ws.onopen = () => setLive(true);
      ws.onmessage = (ev) => {
        if (String(ev.data).includes('"changed"')) void load();
      };
      ws.onclose = () => {
        setLive(false);
        if (!closed) retry = setTimeout(connect, 2000);
      };
    };
    connect();
    const timer = setInterval(() => void load(), 10_000);
    return () => {
      closed = true;
      clearTimeout(retry);
      clearInterval(timer);
      ws?.close();
    };
  }, [props.token]);
  const act = async (f: () => Promise<unknown>, done?: string) => {
    try {
      await f();
      if (done) setNotice(done);
      await load();
    } catch (e) {
      setError((e as Error).message);
    }
  };
  if (!d)
    return (
      <div class="page">
        <Header />
        <main class="center" id="main">
          {error ? <p class="error">{error}</p> : <p class="loading">…</p>}
        </main>
      </div>
    );
  const closed = d.classroom.closedAt !== null;
  return (
    <div class="page">
      <Header>
        <span class={`live-state ${live ? "open" : "reconnecting"}`} role="status">
          {live ? `● ${t("live")}` : t("reconnecting")}
        </span>
      </Header>
      <main class="dashboard" id="main">
        <div class="dash-head">
          <div>
            <h1>{d.classroom.title}</h1>
            <p class="muted">
              {d.classroom.labs.map((l) => tx(l.title)).join(" → ")} · {d.classroom.minutes} {t("minutes")} {d.classroom.extraMinutes ? `(+${d.classroom.extraMinutes})` : ""} · {d.students.length}/{d.classroom.capacity} {t("students")}
              {closed ? ` · ${t("closed")}` : ""}
            </p>
          </div>
          <div class="join-link">
            <span>{t("joinLink")}</span>
            <code data-join>{d.links.join.url}</code>
            <button type="button" class="button" onClick={() => (void navigator.clipboard?.writeText(d.links.join.url), setNotice(t("copied")))}>
              {t("copy")}
            </button>
          </div>
          <div class="dash-actions">
            <button type="button" class="button" disabled={closed} onClick={() => act(() => api.extend(props.token, 10), "+10 min")}>
              {t("extendAll")}
            </button>
            <a class="button" href={`/v1/teach/${props.token}/export.csv`} download>
              CSV
            </a>
            <button type="button" class="button danger" disabled={closed} onClick={() => confirm(t("closeConfirm")) && act(() => api.closeClassroom(props.token))}>
              {t("closeClassroom")}
            </button>
          </div>
        </div>
        {(error || notice) && (
          <p class={error ? "error" : "notice-inline"} role="status">
            {error || notice}
          </p>
        )}
        <div class="grid-wrap">
          <table class="grid">
            <thead>
              <tr>
                <th scope="col">{t("student")}</th>
                <th scope="col">{t("timeLeft")}</th>
                {d.steps.map((s, i) => (
                  <th scope="col" key={`${s.lab}/${s.id}`} title={tx(s.title)}>
                    {d.classroom.labs.length > 1 ? `L${s.labIndex + 1}·` : ""}
                    {d.steps.filter((x, j) => j <= i && x.lab === s.lab).length}. {tx(s.title)}
                  </th>
                ))}
                <th scope="col">{t("lastCommand")}</th>
                <th scope="col">
                  <span class="sr-only">actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {d.students.length === 0 && (
                <tr>
                  <td colSpan={d.steps.length + 4} class="muted">
                    {t("noStudents")}
                  </td>
                </tr>
              )}
              {d.students.map((s) => (
                <tr key={s.id} data-student={s.name} class={s.state}>
                  <th scope="row">
                    {s.name}
                    {s.resets ? <span class="muted"> ↺{s.resets}</span> : null}
                  </th>
                  <td class="num">{s.state === "gone" ? "—" : s.state === "time-up" ? t("timeUp") : left(s.timeLeftSeconds)}</td>
                  {s.steps.map((c, j) => (
                    <td key={j} class={`cell ${c.state}`} data-step={c.id} title={c.passedAt ?? ""}>
                      {c.state === "passed" ? `✓ ${clock(c.passedAt)}` : c.state === "in-progress" ? "…" : "·"}
                    </td>
                  ))}
                  <td class="last">{s.last ? <code class={s.last.exitCode ? "failed" : ""}>{s.last.command.split("\n")[0]}</code> : ""}</td>
                  <td class="row-actions">
                    <button type="button" class="link" onClick={() => act(async () => window.open((await api.watchStudent(props.token, s.id)).url, "_blank"))}>
                      {t("watch")}
                    </button>
                    <button type="button" class="link" onClick={() => act(() => api.extend(props.token, 10, s.id))}>
                      +10
                    </button>
                    <button type="button" class="link" onClick={() => confirm(t("resetConfirm").replace("{name}", s.name)) && act(() => api.resetStudent(props.token, s.id))}>
                      {t("reset")}
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
            <tfoot>
              <tr>
                <th scope="row">{t("passedCount")}</th>
                <td />
                {d.steps.map((s, j) => (
                  <td key={j} class="num" data-count={s.id}>
                    {s.passed}/{d.students.length}
                  </td>
                ))}
                <td colSpan={2} />
              </tr>
            </tfoot>
          </table>
        </div>
        <section class="stuck">
          <h2>{t("stuckOn")}</h2>
          {d.stuck.length === 0 ? (
            <p class="muted">{t("nothingFailed")}</p>
          ) : (
            <ol>
              {d.stuck.map((s) => (
                <li key={s.command}>
                  <code>{s.command.split("\n")[0]}</code> — {s.students} {s.students === 1 ? t("studentOne") : t("students")} ({s.names.join(", ")})
                </li>
              ))}
            </ol>
          )}
        </section>
      </main>
    </div>
  );
}
