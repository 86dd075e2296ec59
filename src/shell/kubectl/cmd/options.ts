// kubectl options: the flags every command takes.

import { type KubectlCommand, noValidation } from "../command.js";
import { wantsHelp } from "../cmdline.js";
import { OPTIONS_TEXT } from "../help-texts.js";

/** Its words are not parsed: `kubectl options --help` prints nothing, as kubectl's does. */
export const optionsCommand: KubectlCommand<{ help: boolean }> = {
  name: "options",
  complete: (p) => ({ help: wantsHelp(p.args) }),
  validate: noValidation,
  run(o, _ctx, out) {
    if (!o.help) out.out(OPTIONS_TEXT);
  },
};
