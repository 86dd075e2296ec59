// The lab's steps: Markdown with run buttons, each step's checks turning green by themselves as
// the cluster reaches them (the workspace re-reads them on every change), and a Check button
// that says in words what is still missing.
import { useState } from "preact/hooks";
import type { LabDef, StepResult } from "../api";
import type { Text } from "../i18n";
import { t, tx } from "../i18n";
import { Markdown } from "../markdown";

export function Steps(props: { lab: LabDef; results?: StepResult[]; onRun?: (code: string) => void; onCheck: () => Promise<void>; nextLab?: { title?: Text; go: () => void } }) {
  const { lab, results } = props;
  const firstOpen = results?.findIndex((s) => !s.passed) ?? 0;
  const [open, setOpen] = useState<string | undefined>(undefined);
  const [explain, setExplain] = useState<string | undefined>();
  const [checking, setChecking] = useState(false);
  const passedCount = results?.filter((s) => s.passed).length ?? 0;
  if (!lab.steps.length) return <section class="steps" aria-label="Steps"><h1>{tx(lab.title)}</h1><p>{tx(lab.summary)}</p><p class="muted">{t("playground")}</p></section>;
  const current = open ?? lab.steps[firstOpen < 0 ? lab.steps.length - 1 : firstOpen]?.id;
  return (
    <section class="steps" aria-label="Steps">
      <h1>{tx(lab.title)}</h1>
      <div class="progress" role="progressbar" aria-valuemin={0} aria-valuemax={lab.steps.length} aria-valuenow={passedCount} aria-label={t("progress")}>
        <div style={{ width: `${(100 * passedCount) / lab.steps.length}%` }} />
      </div>
      {firstOpen < 0 && results && <p class="done" role="status">✓ {t("labDone")}</p>}
      {firstOpen < 0 && results && props.nextLab && (
        <button type="button" class="button primary next" onClick={props.nextLab.go}>
          {t("nextLab")}: {tx(props.nextLab.title)} →
        </button>
      )}
      <ol class="step-list">
        {lab.steps.map((step, i) => {
          const r = results?.find((s) => s.id === step.id);
          const isOpen = step.id === current;
          return (
            <li key={step.id} class={`step ${r?.passed ? "passed" : ""} ${isOpen ? "open" : ""}`} data-step={step.id}>
              <button type="button" class="step-title" aria-expanded={isOpen} onClick={() => setOpen(isOpen ? "" : step.id)}>
                <span class="badge" aria-hidden="true">{r?.passed ? "✓" : i + 1}</span>
                <span>{tx(step.title)}</span>
                <span class="sr-only">{r?.passed ? t("passed") : t("notYet")}</span>
              </button>
              {isOpen && (
                <div class="step-body">
                  <Markdown
                    source={tx(step.body)}
                    onRun={
                      props.onRun &&
                      ((code: string) => {
                        // The step being worked on stays open when it passes halfway through its blocks.
                        setOpen(step.id);
                        props.onRun!(code);
                      })
                    }
                  />
                  <ul class="checks" aria-live="polite">
                    {step.checks.map((c) => {
                      const cr = r?.checks.find((x) => x.id === c.id);
                      return (
                        <li key={c.id} class={cr?.passed ? "ok" : "todo"} data-check={c.id}>
                          <span aria-hidden="true">{cr?.passed ? "●" : "○"}</span> {tx(c.title)}
                          <span class="sr-only"> {cr?.passed ? t("passed") : t("notYet")}</span>
                          {explain === step.id && !cr?.passed && (
                            <div class="why">
                              {cr?.message ? tx(cr.message) : ""}
                              {c.hint && (
                                <div class="hint">
                                  <strong>{t("hint")}:</strong> {tx(c.hint)}
                                </div>
                              )}
                            </div>
                          )}
                        </li>
                      );
                    })}
                  </ul>
                  {r?.passed && i + 1 < lab.steps.length && (
                    <button type="button" class="button primary next" onClick={() => setOpen(lab.steps[i + 1].id)}>
                      {t("nextStep")} →
                    </button>
                  )}
                  {!r?.passed && props.onRun && (
                    <button
                      type="button"
                      class="button check"
                      aria-busy={checking}
                      onClick={async () => {
                        setChecking(true);
                        try {
                          await props.onCheck();
                        } finally {
                          setChecking(false);
                          setExplain(step.id);
                        }
                      }}
                    >
                      {t("check")}
                    </button>
                  )}
                </div>
              )}
            </li>
          );
        })}
      </ol>
    </section>
  );
}
