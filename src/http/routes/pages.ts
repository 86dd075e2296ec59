// The web UI's pages (the single-page app's routes), the health check and the lab catalogue.
import type { Context, Hono } from "hono";
import { LABS, lab as findLab, labSummary } from "../../labs/index.js";
import type { Env } from "../auth.js";
import type { AppContext } from "../context.js";
import { notFoundMsg } from "../errors.js";
import { json } from "../json.js";

export function pageRoutes(app: Hono<Env>, x: AppContext): void {
  const page = (c: Context) => (x.deps.page ? x.deps.page(c) : c.redirect("/v1/labs"));
  app.get("/", page);
  app.get("/labs/:id", page);
  app.get("/c/:id", page);
  app.get("/teach/:lab", page);
  app.get("/healthz", () => json({ ok: true }));
  app.get("/v1/labs", () => json({ items: Object.values(LABS).map(labSummary) }));
  app.get("/v1/labs/:id", (c) => {
    const l = findLab(c.req.param("id"));
    if (!l) throw notFoundMsg(`lab "${c.req.param("id")}" not found`);
    const { objects: _objects, ...rest } = l;
    return json(rest);
  });
}
