import type { ComponentChildren } from "preact";
import { lang, setLang } from "../i18n";
import { useSignal } from "../signal";
import { navigate } from "../main";

export function Header(props: { children?: ComponentChildren }) {
  const l = useSignal(lang);
  return (
    <header class="top">
      <a class="skip" href="#main">Skip to content</a>
      <a class="brand" href="/" onClick={(e) => (e.preventDefault(), navigate("/"))}>
        ServiceLab
      </a>
      <div class="top-middle">{props.children}</div>
      <div class="langs" role="group" aria-label="Language">
        <button type="button" aria-pressed={l === "en"} onClick={() => setLang("en")}>
          EN
        </button>
        <button type="button" aria-pressed={l === "zh"} onClick={() => setLang("zh")}>
          中文
        </button>
      </div>
    </header>
  );
}
