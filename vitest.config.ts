import { defineConfig } from "vitest/config";

// Two projects: the node one (engine, terminal, printers, platform on Node) and the workers one,
// which runs the Worker entry and its Durable Objects inside workerd (vitest.workers.config.ts).
export default defineConfig({
  test: {
    testTimeout: 30_000,
    reporters: ["default"],
    projects: [
      {
        extends: true,
        test: { name: "node", include: ["src/**/*.test.ts", "test/**/*.test.ts"], environment: "node" },
      },
      "./vitest.workers.config.ts",
    ],
  },
});
