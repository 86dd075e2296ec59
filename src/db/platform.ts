// Tenants, the cluster registry, usage and history over drizzle. The same code runs on libSQL
// (Node) and on a Durable Object's SQLite (Workers' platform object): both are drizzle SQLite
// databases, and every query here is awaited, which works for the sync and the async driver.
import { and, desc, eq, gte, isNull, sql } from "drizzle-orm";
import type { BaseSQLiteDatabase } from "drizzle-orm/sqlite-core";
import { limitsOf, type Limits } from "../runtime/limits.js";
import * as s from "./schema.js";
import { type HistoryTable, HistoryTrim, historyStatements, type SqlStatement } from "./history-sql.js";

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnySQLite = BaseSQLiteDatabase<"sync" | "async", any, typeof s>;

export interface Tenant {
  id: string;
  name: string;
  limits: Limits;
  createdAt: number;
}

export interface ClusterRow {
  id: string;
  tenantId: string | null;
  lab: string;
  forkedFrom: string | null;
  createdAt: number;
  deletedAt: number | null;
  endReason: string | null;
  /** The classroom whose student works in it (src/classroom). */
  classroomId?: string | null;
}

export interface ApiCallRow {
  ts: number;
  tenantId: string | null;
  clusterId: string | null;
  method: string;
  route: string;
  status: number;
  latencyMs: number;
}
export interface ClusterEventRow {
  ts: number;
  clusterId: string;
  tenantId: string | null;
  type: string;
  detail: unknown;
}
export interface CommandRow {
  ts: number;
  clusterId: string;
  tenantId: string | null;
  command: string;
  exitCode: number;
  stdoutBytes: number;
  stderrBytes: number;
  durationMs: number;
}
export interface SnapshotRow {
  ts: number;
  clusterId: string;
  reason: string;
  body: string;
}

/** One command's traffic (see TrafficRun in src/runtime/core.ts). */
export interface TrafficRunRow {
  ts: number;
  clusterId: string;
  tenantId: string | null;
  command: string;
  connections: number;
  pods: Array<{ pod: string; proto: string; port: number; connections: number }>;
  other: Record<string, number>;
}

export interface HistoryBatch {
  apiCalls?: ApiCallRow[];
  events?: ClusterEventRow[];
  commands?: CommandRow[];
  snapshots?: SnapshotRow[];
  traffic?: TrafficRunRow[];
}

interface Usage {
  tenant: string;
  since: string;
  /** day -> route -> calls */
  callsByDay: Record<string, Record<string, number>>;
  execs: number;
  clusterHours: number;
  liveClusters: number;
}

interface History {
  cluster: string;
  events: Array<{ ts: string; type: string; detail: unknown }>;
  commands: Array<{ ts: string; command: string; exitCode: number; durationMs: number }>;
  apiCalls: Array<{ ts: string; method: string; route: string; status: number; latencyMs: number }>;
  snapshots: Array<{ ts: string; reason: string; bytes: number }>;
  /** Traffic runs: connections per pod of each command that sent traffic. */
  traffic: Array<{ ts: string; command: string; connections: number; pods: TrafficRunRow["pods"]; other: TrafficRunRow["other"] }>;
}

/** The platform's queries; Node calls it in process, Workers through the platform object. */
export interface Platform {
  secret(): Promise<string>;
  createTenant(name: string, limits: Partial<Limits>, now: number): Promise<{ id: string; name: string; apiKey: string }>;
  tenantByKey(apiKey: string): Promise<Tenant | undefined>;
  tenant(id: string): Promise<Tenant | undefined>;
  /**
   * Registers a cluster; with `maxLive`, only while its tenant holds fewer live clusters, checked
   * and inserted in one statement (two concurrent creates cannot both pass). False: at the limit.
   */
  addCluster(row: ClusterRow, maxLive?: number): Promise<boolean>;
  cluster(id: string): Promise<ClusterRow | undefined>;
  clusters(tenantId: string): Promise<ClusterRow[]>;
  liveClusterCount(tenantId: string): Promise<number>;
  endCluster(id: string, reason: string, now: number): Promise<void>;
  record(batch: HistoryBatch): Promise<void>;
  usage(tenantId: string, sinceDay: string, now: number): Promise<Usage>;
  history(clusterId: string, limit: number): Promise<History>;
}

export function day(ts: number): string {
  return new Date(ts).toISOString().slice(0, 10);
}

async function sha256Hex(text: string): Promise<string> {
  const d = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return [...new Uint8Array(d)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** `n` random characters of base32 (5 bits each). */
export function randomId(bytes = 12): string {
  const a = crypto.getRandomValues(new Uint8Array(bytes));
  const alphabet = "abcdefghijklmnopqrstuvwxyz234567";
  let out = "";
  for (const b of a) out += alphabet[b & 31];
  return out;
}

/** Runs statements in one transaction: the host's own driver (libSQL batch, transactionSync). */
interface SqlWriter {
  /** `background`: nothing waits for it but its own caller (history); a writer may let other writes go first. */
  write(statements: SqlStatement[], opts?: { background?: boolean }): Promise<unknown> | void;
  /** Most parameters one statement may bind. */
  maxParams: number;
  /**
   * Write history in background transactions of at most this many rows (default: a batch is
   * one transaction). For a writer that other writes queue behind (the Node server's thread).
   */
  backgroundRows?: number;
}

export class SqlPlatform implements Platform {
  private secretValue?: string;
  /** The history's per-cluster bounds (history-sql.ts). */
  private readonly trim: HistoryTrim;
  constructor(
    private readonly db: AnySQLite,
    private readonly writer: SqlWriter,
    opts: { historyRows?: Partial<Record<HistoryTable, number>> } = {},
  ) {
    this.trim = new HistoryTrim(opts.historyRows);
  }

  async secret(): Promise<string> {
    return (this.secretValue ??= await this.setting("token-secret", async () => randomId(32)));
  }

  /**
   * An installation setting, made by `make` the first time it is asked for and kept from then
   * on (the token secret; on Node the Kubernetes API's CA). Two makers racing keep the first row.
   */
  async setting(key: string, make: () => Promise<string>): Promise<string> {
    const row = (await this.db.select().from(s.settings).where(eq(s.settings.key, key)))[0];
    if (row) return row.value;
    const value = await make();
    await this.db.insert(s.settings).values({ key, value }).onConflictDoNothing();
    const again = (await this.db.select().from(s.settings).where(eq(s.settings.key, key)))[0];
    return again?.value ?? value;
  }

  /** Replaces a setting (a serving certificate made again for new names or near its expiry). */
  async putSetting(key: string, value: string): Promise<void> {
    await this.db.insert(s.settings).values({ key, value }).onConflictDoUpdate({ target: s.settings.key, set: { value } });
  }

  async createTenant(name: string, limits: Partial<Limits>, now: number) {
    const id = `t_${randomId(8)}`;
    const apiKey = `slk_${randomId(24)}`;
    await this.db.insert(s.tenants).values({ id, name, keyHash: await sha256Hex(apiKey), limits: JSON.stringify(limits), createdAt: now });
    return { id, name, apiKey };
  }

  private toTenant(row: typeof s.tenants.$inferSelect | undefined): Tenant | undefined {
    if (!row) return undefined;
    return { id: row.id, name: row.name, limits: limitsOf(JSON.parse(row.limits)), createdAt: row.createdAt };
  }

  async tenantByKey(apiKey: string): Promise<Tenant | undefined> {
    const h = await sha256Hex(apiKey);
    return this.toTenant((await this.db.select().from(s.tenants).where(eq(s.tenants.keyHash, h)))[0]);
  }

  async tenant(id: string): Promise<Tenant | undefined> {
    return this.toTenant((await this.db.select().from(s.tenants).where(eq(s.tenants.id, id)))[0]);
  }

  async addCluster(row: ClusterRow, maxLive?: number): Promise<boolean> {
    if (maxLive === undefined || row.tenantId === null) {
      await this.db.insert(s.clusters).values(row);
      return true;
    }
    const c = s.clusters;
    await this.db.run(
      sql`INSERT INTO ${c} (${sql.identifier(c.id.name)}, ${sql.identifier(c.tenantId.name)}, ${sql.identifier(c.lab.name)}, ${sql.identifier(c.forkedFrom.name)}, ${sql.identifier(c.createdAt.name)}, ${sql.identifier(c.classroomId.name)})
        SELECT ${row.id}, ${row.tenantId}, ${row.lab}, ${row.forkedFrom}, ${row.createdAt}, ${row.classroomId ?? null}
        WHERE (SELECT count(*) FROM ${c} WHERE ${c.tenantId} = ${row.tenantId} AND ${c.deletedAt} IS NULL) < ${maxLive}`,
    );
    return (await this.cluster(row.id)) !== undefined;
  }

  async cluster(id: string): Promise<ClusterRow | undefined> {
    return (await this.db.select().from(s.clusters).where(eq(s.clusters.id, id)))[0];
  }

  async clusters(tenantId: string): Promise<ClusterRow[]> {
    return this.db.select().from(s.clusters).where(and(eq(s.clusters.tenantId, tenantId), isNull(s.clusters.deletedAt))).orderBy(s.clusters.createdAt);
  }

  async liveClusterCount(tenantId: string): Promise<number> {
    const r = await this.db
      .select({ n: sql<number>`count(*)` })
      .from(s.clusters)
      .where(and(eq(s.clusters.tenantId, tenantId), isNull(s.clusters.deletedAt)));
    return Number(r[0]?.n ?? 0);
  }

  async endCluster(id: string, reason: string, now: number): Promise<void> {
    await this.db.update(s.clusters).set({ deletedAt: now, endReason: reason }).where(and(eq(s.clusters.id, id), isNull(s.clusters.deletedAt)));
  }

  /** One history batch: multi-row INSERTs in one transaction, or one per backgroundRows rows. */
  async record(b: HistoryBatch): Promise<void> {
    const rows = this.writer.backgroundRows;
    // The batch's rows, then the trims it makes due (the oldest rows past a cluster's bound).
    const stmts = [...historyStatements(b, this.writer.maxParams, rows), ...this.trim.statements(b)];
    if (!stmts.length) return;
    if (rows === undefined) await this.writer.write(stmts);
    else await Promise.all(stmts.map((st) => this.writer.write([st], { background: true })));
  }

  async usage(tenantId: string, sinceDay: string, now: number): Promise<Usage> {
    const rows = await this.db
      .select({ day: s.apiCalls.day, route: s.apiCalls.route, n: sql<number>`count(*)` })
      .from(s.apiCalls)
      .where(and(eq(s.apiCalls.tenantId, tenantId), gte(s.apiCalls.day, sinceDay)))
      .groupBy(s.apiCalls.day, s.apiCalls.route);
    const callsByDay: Record<string, Record<string, number>> = {};
    for (const r of rows) (callsByDay[r.day] ??= {})[r.route] = Number(r.n);
    const ex = await this.db.select({ n: sql<number>`count(*)` }).from(s.commands).where(eq(s.commands.tenantId, tenantId));
    const cl = await this.db.select().from(s.clusters).where(eq(s.clusters.tenantId, tenantId));
    let ms = 0;
    let live = 0;
    for (const c of cl) {
      ms += (c.deletedAt ?? now) - c.createdAt;
      if (c.deletedAt === null) live++;
    }
    return { tenant: tenantId, since: sinceDay, callsByDay, execs: Number(ex[0]?.n ?? 0), clusterHours: Math.round((ms / 3_600_000) * 1000) / 1000, liveClusters: live };
  }

  async history(clusterId: string, limit: number): Promise<History> {
    const iso = (t: number) => new Date(t).toISOString();
    const ev = await this.db.select().from(s.clusterEvents).where(eq(s.clusterEvents.clusterId, clusterId)).orderBy(desc(s.clusterEvents.id)).limit(limit);
    const cm = await this.db.select().from(s.commands).where(eq(s.commands.clusterId, clusterId)).orderBy(desc(s.commands.id)).limit(limit);
    const ac = await this.db.select().from(s.apiCalls).where(eq(s.apiCalls.clusterId, clusterId)).orderBy(desc(s.apiCalls.id)).limit(limit);
    const sn = await this.db
      .select({ ts: s.snapshots.ts, reason: s.snapshots.reason, bytes: sql<number>`length(${s.snapshots.body})` })
      .from(s.snapshots)
      .where(eq(s.snapshots.clusterId, clusterId))
      .orderBy(desc(s.snapshots.id))
      .limit(limit);
    const tr = await this.db.select().from(s.trafficRuns).where(eq(s.trafficRuns.clusterId, clusterId)).orderBy(desc(s.trafficRuns.id)).limit(limit);
    return {
      cluster: clusterId,
      events: ev.reverse().map((e) => ({ ts: iso(e.ts), type: e.type, detail: JSON.parse(e.detail) as unknown })),
      commands: cm.reverse().map((c) => ({ ts: iso(c.ts), command: c.command, exitCode: c.exitCode, durationMs: c.durationMs })),
      apiCalls: ac.reverse().map((a) => ({ ts: iso(a.ts), method: a.method, route: a.route, status: a.status, latencyMs: a.latencyMs })),
      snapshots: sn.reverse().map((x) => ({ ts: iso(x.ts), reason: x.reason, bytes: Number(x.bytes) })),
      traffic: tr.reverse().map((t) => {
        const d = JSON.parse(t.detail) as Pick<TrafficRunRow, "pods" | "other">;
        return { ts: iso(t.ts), command: t.command, connections: t.connections, pods: d.pods, other: d.other };
      }),
    };
  }
}
