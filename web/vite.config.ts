// The web UI's build: TypeScript + Preact (TSX) into web/dist, which the Node server serves and
// wrangler uploads as static assets. `npm run build:web` builds; `npm run dev:web` rebuilds on change.
import { defineConfig } from "vite";
import { fileURLToPath } from "node:url";

export default defineConfig({
  root: fileURLToPath(new URL(".", import.meta.url)),
  base: "/",
  build: { outDir: "dist", emptyOutDir: true, target: "es2022", chunkSizeWarningLimit: 600 },
  oxc: { jsx: { runtime: "automatic", importSource: "preact" } },
});
