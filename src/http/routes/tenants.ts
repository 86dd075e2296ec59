// Tenants: the admin creates one (its API key shown once); a tenant reads its account and usage.
import type { Hono } from "hono";
import { day } from "../../db/platform.js";
import { DEFAULT_LIMITS, type Limits } from "../../runtime/limits.js";
import type { Env } from "../auth.js";
import type { AppContext } from "../context.js";
import { bad, forbiddenMsg, unauthorized } from "../errors.js";
import { json, readJson } from "../json.js";

export function tenantRoutes(app: Hono<Env>, x: AppContext): void {
  const { deps, now } = x;
  app.post("/v1/tenants", async (c) => {
    const p = await x.principal(c);
    if (p.kind !== "admin") throw p.kind === "anonymous" ? unauthorized("creating a tenant needs the admin key") : forbiddenMsg("creating a tenant needs the admin key");
    const body = await readJson(c, DEFAULT_LIMITS.requestBytes);
    const name = body.name;
    if (typeof name !== "string" || !name.trim() || name.length > 200) throw bad('"name" must be a non-empty string of at most 200 characters');
    const limits = body.limits && typeof body.limits === "object" ? (body.limits as Partial<Limits>) : {};
    const t = await deps.platform.createTenant(name.trim(), limits, now());
    c.set("tenantId", t.id);
    return json({ ...t, note: "the apiKey is shown only now: it is stored hashed" }, 201);
  });

  app.get("/v1/tenant", async (c) => {
    const t = await x.tenantOnly(c);
    return json({ id: t.id, name: t.name, limits: t.limits, createdAt: new Date(t.createdAt).toISOString() });
  });

  app.get("/v1/tenant/usage", async (c) => {
    const t = await x.tenantOnly(c);
    const days = Math.min(366, Math.max(1, Number(c.req.query("days") ?? 30) || 30));
    return json(await deps.platform.usage(t.id, day(now() - (days - 1) * 86_400_000), now()));
  });
}
