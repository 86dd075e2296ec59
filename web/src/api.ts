// The HTTP API as the UI uses it (docs/platform.md). Every failure is the server's v1 Status,
// thrown as ApiError so a view can say what happened ("cluster not found" means deleted or expired).
import type { Text } from "./i18n";

export class ApiError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly reason = "",
  ) {
    super(message);
  }
}

/** The network itself failed (server down, connection lost): the request may or may not have run. */
export class NetworkError extends Error {}

async function request<T>(method: string, path: string, token?: string, body?: unknown): Promise<T> {
  let res: Response;
  try {
    res = await fetch(path, {
      method,
      headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(body !== undefined ? { "content-type": "application/json" } : {}), accept: "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch (e) {
    throw new NetworkError((e as Error).message);
  }
  const text = await res.text();
  let data: unknown;
  try {
    data = text ? JSON.parse(text) : {};
  } catch {
    data = { message: text };
  }
  if (!res.ok) {
    const st = data as { message?: string; reason?: string };
    throw new ApiError(res.status, st.message ?? `HTTP ${res.status}`, st.reason ?? "");
  }
  return data as T;
}

export interface LabSummary {
  id: string;
  title: Text;
  summary: Text;
  level: "beginner" | "intermediate" | "advanced";
  minutes: number;
  source?: string;
  steps: number;
}

interface CheckDef {
  id: string;
  kind: string;
  title: Text;
  hint?: Text;
}
interface StepDef {
  id: string;
  title: Text;
  body: Text;
  checks: CheckDef[];
}
export interface LabDef extends Omit<LabSummary, "steps"> {
  steps: StepDef[];
}

// The server's own types for what it answers (one definition: the web build strips type imports).
import type { CheckResult, StepResult } from "../../src/labs/checks";
import type { Graph, GraphService } from "../../src/workspace/graph";
import type { RulesView } from "../../src/workspace/rules";
import type { TrafficView } from "../../src/workspace/traffic";
import type { WorkspaceView } from "../../src/workspace/inspect";
import type { JournalEntry } from "../../src/runtime/journal";
import type { ConnectResult } from "../../src/engine/net/packet";
export type { CheckResult, StepResult, Graph, GraphService, RulesView, TrafficView, JournalEntry };

/** The workspace view, and a classroom student's time (the app adds it to the core's view). */
export interface Workspace extends WorkspaceView {
  classroom?: { title: string; deadline: string; readOnly: boolean; nextLab?: { id: string; title?: Text } };
}

export interface Trace {
  seq: number;
  key: string;
  result: ConnectResult;
}

export interface PastView {
  seq: number;
  entry?: { seq: number; command: string; exitCode: number };
  clock: string;
  graph: Graph;
  rules: RulesView;
}

interface ExecAnswer {
  stdout: string;
  stderr: string;
  exitCode: number;
  prompt?: string;
  seq?: number;
  /** kubectl edit waits for this file in the hosted editor. */
  edit?: { id: string; file: string; text: string };
  /** What stopped the line (Ctrl-C: "interrupt"). */
  stopped?: string;
  /** Streamed answers: how many characters of stdout came before the result (its stdout is the rest). */
  streamed?: number;
}

/**
 * Runs a command line with its output streamed (the exec API's `stream: true`): `onOut` gets what
 * a streaming command (kubectl get -w, watch) writes as it writes it; the answer's stdout is the rest.
 */
export async function execStreamed(id: string, token: string, command: string, columns: number, onOut: (chunk: string, screen: boolean) => void): Promise<ExecAnswer> {
  let res: Response;
  try {
    res = await fetch(`/v1/clusters/${encodeURIComponent(id)}/exec`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json", accept: "application/x-ndjson" },
      body: JSON.stringify({ command, editor: "hosted", stream: true, columns }),
    });
  } catch (e) {
    throw new NetworkError((e as Error).message);
  }
  if (!res.ok || !res.body) {
    const text = await res.text();
    let st: { message?: string; reason?: string } = {};
    try {
      st = JSON.parse(text) as typeof st;
    } catch {
      st = { message: text };
    }
    throw new ApiError(res.status, st.message ?? `HTTP ${res.status}`, st.reason ?? "");
  }
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  let buf = "";
  for (;;) {
    let chunk: ReadableStreamReadResult<string>;
    try {
      chunk = await reader.read();
    } catch (e) {
      throw new NetworkError((e as Error).message);
    }
    if (chunk.done) break;
    buf += chunk.value;
    let nl: number;
    while ((nl = buf.indexOf("\n")) >= 0) {
      const line = buf.slice(0, nl);
      buf = buf.slice(nl + 1);
      if (!line) continue;
      const m = JSON.parse(line) as { out?: string; screen?: boolean; result?: ExecAnswer; error?: { code: number; message: string; reason?: string } };
      if (m.out !== undefined) onOut(m.out, m.screen === true);
      else if (m.result) return m.result;
      else if (m.error) throw new ApiError(m.error.code, m.error.message, m.error.reason ?? "");
    }
  }
  throw new NetworkError("the answer ended before the command did");
}

interface Created {
  id: string;
  token: string;
  lab: string;
}

interface ClassroomInfo {
  id: string;
  title: string;
  lab: string;
  labTitle?: Text;
  labs: Array<{ id: string; title?: Text }>;
  minutes: number;
  capacity: number;
  startsAt: string | null;
  endsAt: string | null;
  closedAt: string | null;
  extraMinutes: number;
}

export interface Dashboard {
  classroom: ClassroomInfo;
  now: string;
  steps: Array<{ id: string; lab: string; labIndex: number; title: Text; passed: number }>;
  students: Array<{
    id: string;
    name: string;
    clusterId: string | null;
    joinedAt: string;
    deadline: string;
    timeLeftSeconds: number;
    state: "working" | "done" | "time-up" | "gone";
    resets: number;
    steps: Array<{ id: string; state: "passed" | "in-progress" | "not-started"; passedAt: string | null }>;
    commands: number;
    last: { command: string; at: string; exitCode: number } | null;
  }>;
  stuck: Array<{ command: string; students: number; times: number; names: string[] }>;
  links: { teacher: { token: string; url: string }; join: { token: string; url: string } };
}

interface Joined {
  student: { id: string; name: string; code: string };
  cluster: { id: string; token: string; lab: string };
  deadline: string;
  classroom: ClassroomInfo;
}

const enc = encodeURIComponent;
export const api = {
  labs: () => request<{ items: LabSummary[] }>("GET", "/v1/labs"),
  lab: (id: string) => request<LabDef>("GET", `/v1/labs/${enc(id)}`),
  create: (lab: string) => request<Created>("POST", "/v1/clusters", undefined, { lab }),
  exec: (id: string, token: string, command: string) => request<ExecAnswer>("POST", `/v1/clusters/${enc(id)}/exec`, token, { command, editor: "hosted" }),
  /** Ctrl-C: stops the command line running in the cluster's terminal. */
  interrupt: (id: string, token: string) => request<{ interrupted: boolean }>("POST", `/v1/clusters/${enc(id)}/interrupt`, token),
  /** The hosted editor's answer: the saved text, or null to quit without saving. */
  saveEdit: (id: string, token: string, edit: string, text: string | null) => request<ExecAnswer>("POST", `/v1/clusters/${enc(id)}/exec`, token, { edit: { id: edit, text } }),
  workspace: (id: string, token: string) => request<Workspace>("GET", `/v1/clusters/${enc(id)}/workspace`, token),
  journal: (id: string, token: string, since: number) => request<{ entries: JournalEntry[]; more: boolean }>("GET", `/v1/clusters/${enc(id)}/journal?since=${since}`, token),
  rules: (id: string, token: string, node: string) => request<RulesView | null>("GET", `/v1/clusters/${enc(id)}/rules?node=${enc(node)}`, token),
  trace: (id: string, token: string, key: string) => request<Trace | null>("GET", `/v1/clusters/${enc(id)}/trace?key=${enc(key)}`, token),
  past: (id: string, token: string, seq: number, node: string) => request<PastView>("GET", `/v1/clusters/${enc(id)}/past?seq=${seq}&node=${enc(node)}`, token),
  forkAt: (id: string, token: string, seq: number) => request<Created>("POST", `/v1/clusters/${enc(id)}/fork`, token, { seq }),
  nextLab: (token: string, name: string, code: string) => request<Joined>("POST", `/v1/join/${enc(token)}/next`, undefined, { name, code }),
  createClassroom: (body: { labs: string[]; title?: string; minutes: number; capacity: number }) => request<ClassroomInfo & Dashboard["links"]>("POST", "/v1/classrooms", undefined, body),
  joinInfo: (token: string) => request<ClassroomInfo & { state: "open" | "not-started" | "closed" | "ended" | "full"; students: number }>("GET", `/v1/join/${enc(token)}`),
  join: (token: string, name: string, code?: string) => request<Joined>("POST", `/v1/join/${enc(token)}`, undefined, code ? { name, code } : { name }),
  dashboard: (token: string) => request<Dashboard>("GET", `/v1/teach/${enc(token)}`),
  extend: (token: string, minutes: number, student?: string) => request<unknown>("POST", `/v1/teach/${enc(token)}/extend`, undefined, student ? { minutes, student } : { minutes }),
  closeClassroom: (token: string) => request<unknown>("POST", `/v1/teach/${enc(token)}/close`),
  resetStudent: (token: string, student: string) => request<{ cluster: string }>("POST", `/v1/teach/${enc(token)}/students/${enc(student)}/reset`),
  watchStudent: (token: string, student: string) => request<{ token: string; url: string }>("POST", `/v1/teach/${enc(token)}/students/${enc(student)}/watch`),
  share: (id: string, token: string) => request<{ token: string; url: string }>("POST", `/v1/clusters/${enc(id)}/share`, token),
  shared: (token: string) => request<{ cluster: { id: string }; lab: string }>("GET", `/s/${enc(token)}`),
  fork: (token: string) => request<Created>("POST", `/s/${enc(token)}/fork`),
};
