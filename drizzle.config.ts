// `npx drizzle-kit generate`: writes migrations/*.sql and, for the Durable Object,
// migrations/migrations.js (driver durable-sqlite). libSQL reads the same folder.
import { defineConfig } from "drizzle-kit";

export default defineConfig({
  dialect: "sqlite",
  driver: "durable-sqlite",
  schema: "./src/db/schema.ts",
  out: "./migrations",
});
