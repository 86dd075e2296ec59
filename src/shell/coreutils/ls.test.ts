// ls against GNU ls itself: a directory of files (names, sizes, modes, times, symlinks) listed
// by coreutils 9.1's ls in en_US.UTF-8 (testdata/ls-gnu.json, how it was captured is in the
// file), and the same files in a terminal's file system listed by ours. Directories are left
// out there: their sizes are the file system's (ext4 where it was captured, XFS on the node).
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { ShellFs } from "../fs.js";
import { ls } from "./ls.js";

const here = dirname(fileURLToPath(import.meta.url));
const gnu = JSON.parse(readFileSync(join(here, "testdata", "ls-gnu.json"), "utf8")) as {
  now: string;
  files: { name: string; size?: number; mode?: number; link?: string; mtime: number }[];
  cases: [string, string, string, number][];
};

async function directory(): Promise<ShellFs> {
  const fs = new ShellFs({}, { random: () => 0, installedAt: 0 });
  fs.mkdirSync("/d");
  for (const f of gnu.files) {
    const path = `/d/${f.name}`;
    if (f.link !== undefined) await fs.symlink(f.link, path);
    else {
      fs.writeFileSync(path, "x".repeat(f.size!));
      await fs.chmod(path, f.mode!);
    }
    const e = (fs as unknown as { data: Map<string, { mtime: Date }> }).data.get(path)!;
    e.mtime = new Date(f.mtime);
  }
  return fs;
}

const env = new Map([["LANG", "en_US.UTF-8"]]);
const place = { version: "9.1" as const, selinux: false, installedAt: 0, now: () => Date.parse(gnu.now) };

describe("ls prints what GNU ls prints", () => {
  for (const [args, stdout, stderr, exitCode] of gnu.cases) {
    it(`ls ${args}`, async () => {
      const fs = await directory();
      const r = await ls(args.split(" ").filter(Boolean), { fs, cwd: "/d", env }, place);
      expect(r).toEqual({ stdout, stderr, exitCode });
    });
  }
});

describe("ls on a terminal", () => {
  it("lays names out in columns the terminal's width, quoted for a shell", async () => {
    const fs = await directory();
    const r = await ls([], { fs, cwd: "/d", env }, { ...place, tty: () => 80 });
    // GNU ls -C --quoting-style=shell-escape -w 80 on the same directory.
    expect(r.stdout).toBe(
      "'a b'\t\t   é-accent   link-to-svc       Svc.yml     zz_last-one.conf\n" +
        " anaconda-ks.cfg   exe.sh     Mixed_Case.Name   tilde~\n" +
        " big.bin\t   future     README\t        x10.txt\n" +
        " dangling\t  '#hash'     suid\t        x1.10.txt\n" +
        " deploy.yaml\t  \"it's\"      svc-web.yml       x9.txt\n",
    );
  });
});
