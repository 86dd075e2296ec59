// /s/{token}: a shared cluster, read-only: its terminal replayed and followed live, its views,
// and a button that forks it into a cluster of one's own.
import { useEffect, useState } from "preact/hooks";
import { api } from "../api";
import { Header } from "./Header";
import { WorkspaceView } from "./Workspace";

export function Shared(props: { token: string }) {
  const [info, setInfo] = useState<{ id: string; lab: string } | undefined>();
  const [error, setError] = useState("");
  useEffect(() => {
    api.shared(props.token).then((s) => setInfo({ id: s.cluster.id, lab: s.lab }), (e: Error) => setError(e.message));
  }, [props.token]);
  if (!info)
    return (
      <div class="page">
        <Header />
        <main class="center" id="main">
          {error ? <p class="error" role="alert">{error}</p> : <p class="loading">…</p>}
        </main>
      </div>
    );
  return <WorkspaceView id={info.id} token={props.token} labId={info.lab} readOnly shareToken={props.token} />;
}
