// The repository's root, from the sources (bench/) and from their bundle (dist/bench/) alike.
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

let dir = dirname(fileURLToPath(import.meta.url));
while (!existsSync(join(dir, "package.json")) && dirname(dir) !== dir) dir = dirname(dir);

export const ROOT = dir;
