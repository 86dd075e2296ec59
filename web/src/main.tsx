// The single-page app: the catalog at /, a lab link /labs/{id} that makes a cluster and opens it
// at /c/{cluster}, and a share link /s/{token} that opens a cluster read-only.
import { render } from "preact";
import { useLayoutEffect, useState } from "preact/hooks";
import "./style.css";
import { Catalog } from "./views/Catalog";
import { StartLab, Workspace } from "./views/Workspace";
import { Shared } from "./views/Shared";
import { Join, NewClassroom, TeacherDashboard } from "./views/Classroom";
import { lang } from "./i18n";
import { useSignal } from "./signal";

export function navigate(path: string, replace = false): void {
  if (replace) history.replaceState(null, "", path);
  else history.pushState(null, "", path);
  dispatchEvent(new PopStateEvent("popstate"));
}

function App() {
  const [path, setPath] = useState(location.pathname);
  useSignal(lang);
  // A layout effect: it runs before the children's effects, one of which may navigate at once.
  useLayoutEffect(() => {
    const on = () => setPath(location.pathname);
    addEventListener("popstate", on);
    return () => removeEventListener("popstate", on);
  }, []);
  let m: RegExpExecArray | null;
  if ((m = /^\/labs\/([a-z0-9-]+)\/?$/.exec(path))) return <StartLab lab={m[1]} key={path} />;
  if ((m = /^\/c\/([A-Za-z0-9_-]+)\/?$/.exec(path))) return <Workspace clusterId={m[1]} key={path} />;
  if ((m = /^\/s\/([A-Za-z0-9_.-]+)\/?$/.exec(path))) return <Shared token={m[1]} key={path} />;
  if ((m = /^\/teach\/([a-z0-9-]+)\/?$/.exec(path))) return <NewClassroom lab={m[1]} key={path} />;
  if ((m = /^\/j\/([A-Za-z0-9_.-]+)\/?$/.exec(path))) return <Join token={m[1]} key={path} />;
  if ((m = /^\/t\/([A-Za-z0-9_.-]+)\/?$/.exec(path))) return <TeacherDashboard token={m[1]} key={path} />;
  return <Catalog />;
}

render(<App />, document.getElementById("app")!);
