// Tests that run inside workerd (@cloudflare/vitest-pool-workers): the Worker entry, its
// Durable Objects, alarms and the live channel. A second vitest project next to the node one.
import { cloudflareTest } from "@cloudflare/vitest-pool-workers";
import { defineConfig } from "vitest/config";

export default defineConfig({
  plugins: [
    cloudflareTest({
      main: "./src/runtime/worker.ts",
      wrangler: { configPath: "./wrangler.toml" },
      miniflare: {
        bindings: { ALLOW_ANONYMOUS: "1", ADMIN_KEY: "admin-test-key", IDLE_MINUTES: "60" },
      },
    }),
  ],
  test: {
    name: "workers",
    // Named *.workers-test.ts so the node project (test/**/*.test.ts) does not pick them up.
    include: ["test/workers/**/*.workers-test.ts"],
    testTimeout: 60_000,
  },
});
