/// <reference types="@cloudflare/workers-types" />
import { exports } from "cloudflare:workers";
import { describe } from "vitest";
import { useShell } from "../../src/runtime/terminal.js";
import { contractCases } from "../platform/contract.js";
import { testShell } from "../platform/runner.js";

useShell(testShell);
const SELF = (exports as unknown as { default: { fetch(r: Request): Promise<Response> } }).default;

describe("contract: Workers host", () => {
  contractCases(
    async (method, path, o = {}) => {
      const headers: Record<string, string> = {};
      if (o.token) headers.authorization = `Bearer ${o.token}`;
      const r = await SELF.fetch(new Request(`https://lab.test${path}`, { method, headers, body: o.raw ?? (o.body === undefined ? undefined : JSON.stringify(o.body)) }));
      const text = await r.text();
      let body: any;
      try {
        body = JSON.parse(text);
      } catch {
        body = text;
      }
      return { status: r.status, body };
    },
    () => "https://lab.test",
  );
});
