// A step's Markdown, rendered by micromark (which escapes raw HTML: lab text cannot inject
// markup), with a Copy and a Run button on every ```bash block. Run types the block into the
// terminal as one command line, as if the student had typed it.
import { micromark } from "micromark";
import { useEffect, useMemo, useRef } from "preact/hooks";
import { t } from "./i18n";

export function Markdown(props: { source: string; onRun?: (code: string) => void }) {
  const html = useMemo(() => micromark(props.source), [props.source]);
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const root = ref.current;
    if (!root) return;
    for (const code of root.querySelectorAll<HTMLElement>("pre > code")) {
      const pre = code.parentElement!;
      if (pre.querySelector(".code-actions")) continue;
      const text = code.textContent ?? "";
      const bar = document.createElement("div");
      bar.className = "code-actions";
      const copy = document.createElement("button");
      copy.type = "button";
      copy.textContent = t("copy");
      copy.onclick = () => {
        void navigator.clipboard?.writeText(text.replace(/\n$/, ""));
        copy.textContent = t("copied");
        setTimeout(() => (copy.textContent = t("copy")), 1200);
      };
      bar.append(copy);
      if (props.onRun && (code.className.includes("language-bash") || code.className.includes("language-sh"))) {
        const run = document.createElement("button");
        run.type = "button";
        run.className = "run";
        run.textContent = `▶ ${t("run")}`;
        run.onclick = () => props.onRun!(text);
        bar.append(run);
      }
      pre.prepend(bar);
    }
  }, [html, props.onRun]);
  return <div class="markdown" ref={ref} dangerouslySetInnerHTML={{ __html: html }} />;
}
