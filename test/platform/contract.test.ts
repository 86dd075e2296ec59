import { afterAll, beforeAll, describe } from "vitest";
import { contractCases } from "./contract.js";
import { harness, type Harness } from "./harness.js";

let h: Harness;
beforeAll(async () => {
  h = await harness();
});
afterAll(async () => {
  await h.s.close();
});

describe("contract: Node host", () => {
  contractCases((m, p, o) => h.req(m, p, o), () => h.url);
});
