// The data sources of kubectl create configmap and secret (--from-literal, --from-file): one
// reader, as kubectl's configmap and secret generators share theirs. `add` decides what a key
// becomes (secret base64-encodes and refuses a key given twice).

import type { KubectlContext } from "../context.js";
import { KubectlError } from "../errors.js";
import { arr, type Parsed } from "../flags.js";

export async function readDataSources(p: Parsed, ctx: KubectlContext, add: (key: string, value: string) => void): Promise<void> {
  for (const lit of arr(p, "from-literal")) {
    const i = lit.indexOf("=");
    if (i <= 0) throw new KubectlError(`invalid literal source ${lit}, expected key=value`);
    add(lit.slice(0, i), lit.slice(i + 1));
  }
  for (const spec of arr(p, "from-file")) {
    const eq = spec.indexOf("=");
    const key = eq > 0 ? spec.slice(0, eq) : undefined;
    const path = eq > 0 ? spec.slice(eq + 1) : spec;
    const files = await ctx.listDir(path);
    if (files) {
      if (key) throw new KubectlError(`cannot give a key name for a directory path`);
      for (const file of files) add(file, await ctx.readFile(`${path.replace(/\/$/, "")}/${file}`));
      continue;
    }
    let content: string;
    try {
      content = await ctx.readFile(path);
    } catch {
      throw new KubectlError(`error reading ${path}: no such file or directory`);
    }
    add(key ?? path.split("/").pop()!, content);
  }
}
