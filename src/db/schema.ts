// The platform's tables, one schema for libSQL (Node, history server) and a Durable Object's
// SQLite (drizzle-orm/durable-sqlite). SQL lives in migrations/ (drizzle-kit generate).
import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";

/** Key-value settings of the installation (the HMAC secret for cluster and share tokens). */
export const settings = sqliteTable("settings", {
  key: text("key").primaryKey(),
  value: text("value").notNull(),
});

export const tenants = sqliteTable("tenants", {
  id: text("id").primaryKey(),
  name: text("name").notNull(),
  /** SHA-256 of the API key, hex: the key itself is shown once and never stored. */
  keyHash: text("key_hash").notNull().unique(),
  /** JSON of a partial Limits: overrides of the defaults. */
  limits: text("limits").notNull().default("{}"),
  createdAt: integer("created_at").notNull(),
});

export const clusters = sqliteTable(
  "clusters",
  {
    id: text("id").primaryKey(),
    /** Null for anonymous clusters (local mode). */
    tenantId: text("tenant_id"),
    lab: text("lab").notNull(),
    forkedFrom: text("forked_from"),
    createdAt: integer("created_at").notNull(),
    deletedAt: integer("deleted_at"),
    /** "deleted" | "expired" once gone. */
    endReason: text("end_reason"),
    /** The classroom whose student works in this cluster, if any. */
    classroomId: text("classroom_id"),
  },
  (t) => [index("clusters_tenant").on(t.tenantId, t.deletedAt)],
);

/**
 * A classroom: one lab for a class, a teacher link and a join link (HMAC tokens of its id, as
 * share links are). Node keeps these rows in the installation's database; Workers in the
 * classroom's own Durable Object.
 */
export const classrooms = sqliteTable("classrooms", {
  id: text("id").primaryKey(),
  tenantId: text("tenant_id"),
  lab: text("lab").notNull(),
  /** The labs after the first (`lab`), in order: a JSON list of lab ids. */
  nextLabs: text("next_labs").notNull().default("[]"),
  title: text("title").notNull(),
  /** Each student's time, from joining. */
  minutes: integer("minutes").notNull(),
  /** Optional window: no joining before, every student's time ends at the latest at endsAt. */
  startsAt: integer("starts_at"),
  endsAt: integer("ends_at"),
  capacity: integer("capacity").notNull(),
  /** Time the teacher added for the whole class. */
  extraMs: integer("extra_ms").notNull().default(0),
  /** How long a finished student's cluster is kept, read-only, for the teacher's review. */
  reviewMs: integer("review_ms").notNull(),
  closedAt: integer("closed_at"),
  createdAt: integer("created_at").notNull(),
});

export const classroomStudents = sqliteTable(
  "classroom_students",
  {
    classroomId: text("classroom_id").notNull(),
    id: text("id").notNull(),
    name: text("name").notNull(),
    /** Shown at joining: with the name, it brings the student back from another device. */
    code: text("code").notNull(),
    /** The cluster of the lab the student is on. */
    clusterId: text("cluster_id"),
    /** Which of the classroom's labs that is (0: the first). */
    labIndex: integer("lab_index").notNull().default(0),
    /** The clusters of the labs the student finished: JSON of lab id -> cluster id. */
    pastClusters: text("past_clusters").notNull().default("{}"),
    joinedAt: integer("joined_at").notNull(),
    /** Time the teacher added for this student. */
    extraMs: integer("extra_ms").notNull().default(0),
    resets: integer("resets").notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.classroomId, t.id] }), uniqueIndex("classroom_students_name").on(t.classroomId, t.name)],
);

/** A cluster's persisted state (Node host): everything of a snapshot except its objects. */
export const clusterState = sqliteTable("cluster_state", {
  clusterId: text("cluster_id").primaryKey(),
  meta: text("meta").notNull(),
  updatedAt: integer("updated_at").notNull(),
});

/** One row per stored object, rewritten only when that object changes. */
export const clusterObjects = sqliteTable(
  "cluster_objects",
  {
    clusterId: text("cluster_id").notNull(),
    key: text("key").notNull(),
    body: text("body").notNull(),
  },
  (t) => [primaryKey({ columns: [t.clusterId, t.key] })],
);

// ---- history: append-only, written in batches off the request path ----

export const apiCalls = sqliteTable(
  "api_calls",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    ts: integer("ts").notNull(),
    day: text("day").notNull(),
    tenantId: text("tenant_id"),
    clusterId: text("cluster_id"),
    method: text("method").notNull(),
    route: text("route").notNull(),
    status: integer("status").notNull(),
    latencyMs: integer("latency_ms").notNull(),
  },
  (t) => [index("api_calls_tenant_day").on(t.tenantId, t.day), index("api_calls_cluster").on(t.clusterId, t.ts)],
);

export const clusterEvents = sqliteTable(
  "cluster_events",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    ts: integer("ts").notNull(),
    clusterId: text("cluster_id").notNull(),
    tenantId: text("tenant_id"),
    /** created | forked | deleted | expired | quota | k8s-event */
    type: text("type").notNull(),
    detail: text("detail").notNull().default("{}"),
  },
  (t) => [index("cluster_events_cluster").on(t.clusterId, t.ts)],
);

export const commands = sqliteTable(
  "commands",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    ts: integer("ts").notNull(),
    clusterId: text("cluster_id").notNull(),
    tenantId: text("tenant_id"),
    command: text("command").notNull(),
    exitCode: integer("exit_code").notNull(),
    stdoutBytes: integer("stdout_bytes").notNull(),
    stderrBytes: integer("stderr_bytes").notNull(),
    durationMs: integer("duration_ms").notNull(),
  },
  (t) => [index("commands_cluster").on(t.clusterId, t.ts)],
);

export const snapshots = sqliteTable(
  "snapshots",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    ts: integer("ts").notNull(),
    clusterId: text("cluster_id").notNull(),
    reason: text("reason").notNull(),
    body: text("body").notNull(),
  },
  (t) => [index("snapshots_cluster").on(t.clusterId, t.ts)],
);

/**
 * Traffic runs: what one terminal command (a curl loop, nslookup...) sent through the data
 * plane, as connections per destination pod and port; `detail` is a JSON TrafficRunDetail.
 */
export const trafficRuns = sqliteTable(
  "traffic_runs",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    ts: integer("ts").notNull(),
    clusterId: text("cluster_id").notNull(),
    tenantId: text("tenant_id"),
    command: text("command").notNull(),
    connections: integer("connections").notNull(),
    detail: text("detail").notNull(),
  },
  (t) => [index("traffic_runs_cluster").on(t.clusterId, t.ts)],
);
