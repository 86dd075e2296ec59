// The hosted editor of kubectl edit: the file kubectl wrote, in a textarea. Save (Ctrl-S) hands
// the text back to kubectl, which applies it, or reopens the file with its reasons at the top;
// Quit (Esc) closes it unchanged ("Edit cancelled, no changes made.").
import { useEffect, useRef } from "preact/hooks";
import { t } from "../i18n";

export function EditorDialog(props: { file: string; text: string; onClose: (text: string | null) => void }) {
  const area = useRef<HTMLTextAreaElement>(null);
  useEffect(() => {
    const el = area.current;
    if (!el) return;
    el.value = props.text;
    el.focus();
    // The cursor goes below kubectl's comment header, where the object starts.
    const start = props.text.search(/^[^#]/m);
    el.setSelectionRange(Math.max(0, start), Math.max(0, start));
    el.scrollTop = 0;
  }, [props.text]);
  const save = () => props.onClose(area.current?.value ?? props.text);
  return (
    <div class="editor-backdrop">
      <div class="editor" role="dialog" aria-modal="true" aria-label={`kubectl edit: ${props.file}`}>
        <div class="editor-head">
          <code>{props.file}</code>
          <span class="muted"> · kubectl edit</span>
        </div>
        <textarea
          ref={area}
          defaultValue={props.text}
          spellcheck={false}
          aria-label={props.file}
          onKeyDown={(e) => {
            if ((e.ctrlKey || e.metaKey) && e.key === "s") {
              e.preventDefault();
              save();
            } else if (e.key === "Escape") {
              e.preventDefault();
              props.onClose(null);
            } else if (e.key === "Tab") {
              // Two spaces, as YAML wants; Tab must not leave the file.
              e.preventDefault();
              const el = e.currentTarget as HTMLTextAreaElement;
              el.setRangeText("  ", el.selectionStart, el.selectionEnd, "end");
            }
          }}
        />
        <div class="editor-actions">
          <button type="button" class="button primary" onClick={save}>
            {t("editSave")} <kbd>Ctrl-S</kbd>
          </button>
          <button type="button" class="button" onClick={() => props.onClose(null)}>
            {t("editQuit")} <kbd>Esc</kbd>
          </button>
        </div>
      </div>
    </div>
  );
}
