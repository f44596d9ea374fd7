/**
 * GET /health — liveness plus the state of what the API serves. Always 200 while the process
 * answers; never cached. Shape:
 *
 * ```json
 * {
 *   "status": "ok" | "degraded",     // degraded: the pulse history failed verification or has unsigned lines
 *   "version": "1.0.0",              // package.json version
 *   "uptime_s": 12,                  // whole seconds since createApp, on the injected clock
 *   "history": {
 *     "status": "absent" | "verified" | "unverified",
 *     "records": 400,                // records served: the lines the signed checkpoint covers (0 unless verified)
 *     "verified": true,              // status === "verified"
 *     "unsigned_lines": 1,           // only when lines follow the signed checkpoint: never served
 *     "first_problem": { "line": 3, "problem": "hash mismatch: …" }   // when unverified or lines are unsigned
 *   },
 *   "system": {                      // core/health over the published files (api/sources/system-health.ts);
 *     "status": "operational" | "degraded" | "critical",   // null without a sentinel-status file
 *     "as_of": "2026-11-23T14:05:00.000Z",
 *     "sentinels": { "total": 12, "operational": 11, "degraded": 1, "offline": 0 },
 *     "minting": { "active": true, "mii": 1, "threshold": 0.95 } | null,
 *     "compliance": { "status": "compliant", "next_audit": "2027-01-02", "overdue": false } | null,
 *     "reasons": [{ "code": "sentinels-down", "status": "degraded", "text": "…" }]
 *   },
 *   "ledger": {                      // the ledger the write routes append to
 *     "status": "ok" | "absent" | "unavailable" | "failing",   // absent: this server has none; unavailable: it
 *                                    // could not be read; failing: its last write failed in the store
 *     "store": "sqlite" | "postgresql",   // the kind of store it is kept in (null when absent); never its location
 *     "size": 11306,                 // entries (null when absent or unavailable)
 *     "checkpoint_size": 11306,      // size of the newest stored checkpoint that verifies (null: none, or absent/unavailable)
 *     "write_failure": { "since": "…", "reason": "database is locked (SQLite code 517)" },  // only when failing
 *     "refused_row": { "seq": 42, "problem": "its payload is not JSON", "since": "…" },   // only when another writer's row does not verify
 *     "refused_checkpoint": { "size": 1000000000, "problem": "its size … is beyond …", "since": "…" }   // only when a stored checkpoint was refused
 *   },
 *   "access_ledger": {               // the access ledger: API keys and the keyed-access audit (store/access-ledger.ts)
 *     "status": "ok" | "unavailable" | "failing",   // as the ledger's
 *     "store": "sqlite" | "postgresql",
 *     "size": 42,                    // entries (null when unavailable)
 *     "write_failure": { "since": "…", "reason": "…" }   // only when failing
 *   },
 *   "limits": {                      // where the request limits are counted (store/limits.ts)
 *     "status": "ok" | "failing",    // failing: a read-only probe got no answer (limited requests answer 503)
 *     "store": "memory" | "postgresql",
 *     "failure": { "reason": "…" }   // only when failing
 *   },
 *   "consensus": {                   // the consensus broker: the registry folded from the ledger; null without a ledger
 *     "status": "ok" | "degraded",   // degraded: a consensus entry on the ledger broke a rule (ignored_entries > 0)
 *     "cycle": { "cycle": "C-508", "gi": 0.97, "room": "main" } | null,
 *     "offices": 12, "eligible_offices": 11, "active_sessions": 1, "sessions": 296, "sealed_proofs": 295,
 *     "ledger_size": 11306, "ignored_entries": 0
 *   }
 * }
 * ```
 * `status` stays the API's own liveness (also degraded when its ledger or access ledger cannot be
 * read or fails to write, its limits store fails, or the consensus registry is degraded); the platform's health is `system.status`, the same value every
 * portal page marks with data-system-health and the transparency report states.
 */
import { z } from "@hono/zod-openapi";
import { parseCheckpoint } from "../../core/checkpoint.ts";
import { consensusProjection } from "../../core/consensus/state.ts";
import { consensusHealth, cycleInfo } from "../../core/consensus/views.ts";
import { HEALTH_STATUSES, type SystemHealthReport } from "../../core/health/system-health.ts";
import type { LedgerStore } from "../../core/ledger/store.ts";
import { CycleInfo } from "../../core/schemas/consensus.ts";
import { LIMITS_KINDS, STORE_KINDS } from "../../store/drivers/registry.ts";
import type { LimitsStore } from "../../store/limits.ts";
import type { ApiKeyStore } from "../clients/api-keys.ts";
import type { PulseHistorySource } from "../sources/pulse-history.ts";
import { headers, json } from "../openapi/responses.ts";
import { addRoute, defineRoute, routeGroup, type RouteGroup } from "../openapi/route.ts";
import { VERSION } from "../openapi/version.ts";

const SystemHealth = z.strictObject({
  status: z.enum(HEALTH_STATUSES),
  as_of: z.string().openapi({ description: "The data's as-of instant (ISO 8601 UTC)" }),
  sentinels: z.strictObject({
    total: z.number().int().nonnegative(),
    operational: z.number().int().nonnegative(),
    degraded: z.number().int().nonnegative(),
    offline: z.number().int().nonnegative(),
  }),
  minting: z.strictObject({ active: z.boolean(), mii: z.number(), threshold: z.number() }).nullable(),
  compliance: z
    .strictObject({
      status: z.enum(["compliant", "partially_compliant", "non_compliant"]),
      next_audit: z.string(),
      overdue: z.boolean(),
    })
    .nullable(),
  reasons: z.array(z.strictObject({ code: z.string(), status: z.enum(["degraded", "critical"]), text: z.string() })),
});

const Count = z.number().int().nonnegative();

/** The kind of store behind `ledger`, as its driver names it (one of STORE_KINDS). */
function storeKindOf(ledger: LedgerStore): string {
  return ledger.store.kind;
}

const WriteFailure = z
  .strictObject({ since: z.string(), reason: z.string() })
  .optional()
  .openapi({ description: "Only when failing: since when (the server's clock) and the store's error" });

const LedgerHealth = z.strictObject({
  status: z.enum(["ok", "absent", "unavailable", "failing"]).openapi({
    description:
      "`absent`: this server has no ledger; `unavailable`: it could not be read; `failing`: its last write failed in the store (writes are refused until one commits)",
  }),
  store: z.enum(STORE_KINDS).nullable().openapi({
    description:
      "The kind of store the ledger is kept in, so a load balancer's operator sees every instance on the same one (null when absent). Never its path or URL.",
  }),
  size: Count.nullable().openapi({ description: "Entries on the ledger (null when absent or unavailable)" }),
  checkpoint_size: Count.nullable().openapi({
    description:
      "Size of the newest stored checkpoint that verifies (signed with the ledger key, over the verified tree): the one proofs are served against (null: none yet, or absent or unavailable)",
  }),
  write_failure: WriteFailure,
  refused_row: z.strictObject({ seq: Count, problem: z.string(), since: z.string() }).optional().openapi({
    description:
      "Only when a row another writer stored does not verify (its hash, leaf, payload or chain): the first such row. The instance then refuses every write and signs nothing past it (status `failing`, writes 503) until the row is dealt with and it is restarted",
  }),
  refused_checkpoint: z.strictObject({ size: Count, problem: z.string(), since: z.string() }).optional().openapi({
    description:
      "Only when a stored checkpoint was refused (a note that does not verify with the ledger key, another origin, a size beyond the verified ledger, a root that is not the tree's): the last one. It is never served or used; `checkpoint_size` names the one that is",
  }),
});

const AccessLedgerHealth = z.strictObject({
  status: z.enum(["ok", "unavailable", "failing"]).openapi({
    description:
      "`unavailable`: it could not be read (keyed files then answer as without a key); `failing`: its last write (an audit record, a key request) failed in the store",
  }),
  store: z.enum(STORE_KINDS).openapi({
    description:
      "The kind of store the access ledger is kept in (with DATABASE_URL the platform's database, schema `access`). Never its path or URL.",
  }),
  size: Count.nullable().openapi({ description: "Entries on the access ledger (null when unavailable)" }),
  write_failure: WriteFailure,
});

const LimitsHealth = z.strictObject({
  status: z.enum(["ok", "failing"]).openapi({
    description:
      "`failing`: a read-only probe of the limits store got no answer in time; limited requests answer 503 `limits-unavailable` meanwhile",
  }),
  store: z.enum(LIMITS_KINDS).openapi({
    description:
      "Where the request limits are counted: this process's memory, or the PostgreSQL database every instance shares",
  }),
  failure: z.strictObject({ reason: z.string() }).optional().openapi({ description: "Only when failing: why" }),
});

const ConsensusHealth = z.strictObject({
  status: z
    .enum(["ok", "degraded"])
    .openapi({ description: "`degraded`: a consensus entry on the ledger broke a rule and was ignored" }),
  cycle: CycleInfo.nullable(),
  ledger_size: Count,
  offices: Count,
  eligible_offices: Count.openapi({ description: "Offices with a measured office integrity ≥ 0.95" }),
  active_sessions: Count,
  sessions: Count,
  sealed_proofs: Count,
  ignored_entries: Count,
});

export const Health = z.strictObject({
  status: z.enum(["ok", "degraded"]).openapi({
    description:
      "`degraded`: the pulse history failed verification or has lines after its signed checkpoint, the ledger or the access ledger cannot be read or its last write failed, the limits store fails, or the consensus registry is degraded",
  }),
  version: z.string(),
  uptime_s: z.number().int().nonnegative(),
  history: z.strictObject({
    status: z.enum(["absent", "verified", "unverified"]),
    records: z
      .number()
      .int()
      .nonnegative()
      .openapi({ description: "Records served: the lines the signed checkpoint covers (0 unless verified)" }),
    verified: z.boolean(),
    unsigned_lines: z
      .number()
      .int()
      .positive()
      .optional()
      .openapi({ description: "Lines after the signed checkpoint: never served" }),
    first_problem: z.strictObject({ line: z.number().int().nonnegative(), problem: z.string() }).optional(),
  }),
  system: SystemHealth.nullable().openapi({
    description:
      "The platform's health (core/health), as every portal page and the transparency report state it; null before the government area is generated",
  }),
  ledger: LedgerHealth,
  consensus: ConsensusHealth.nullable().openapi({
    description: "The consensus broker: the registry folded from the ledger; null unless the ledger is ok",
  }),
  access_ledger: AccessLedgerHealth.openapi({
    description: "The access ledger: API keys and the audit of every keyed access",
  }),
  limits: LimitsHealth.openapi({
    description: "The store of the request limits (daily quotas, the simulation's open connections)",
  }),
});

export const healthRoute = defineRoute({
  method: "get",
  path: "/health",
  tags: ["Service"],
  summary: "Liveness and the state of what the API serves",
  description: "Always 200 while the process answers; never cached.",
  responses: {
    200: json("The service's state", Health, {
      headers: headers("Cache-Control", "Instance-Id"),
      example: {
        status: "ok",
        version: "1.0.0",
        uptime_s: 3600,
        history: { status: "verified", records: 412, verified: true },
        system: null,
        ledger: { status: "ok", store: "sqlite", size: 11306, checkpoint_size: 11306 },
        consensus: {
          status: "ok",
          cycle: { cycle: "C-508", gi: 0.97, room: "main" },
          ledger_size: 11306,
          offices: 12,
          eligible_offices: 11,
          active_sessions: 0,
          sessions: 296,
          sealed_proofs: 296,
          ignored_entries: 0,
        },
        access_ledger: { status: "ok", store: "sqlite", size: 42 },
        limits: { status: "ok", store: "memory" },
      },
    }),
  },
});

/** The `system` member of /health (see the module comment). */
export function systemBody(report: SystemHealthReport | null) {
  if (!report) return null;
  return {
    status: report.status,
    as_of: report.asOf,
    sentinels: report.sentinels,
    minting: report.minting,
    compliance: report.compliance && {
      status: report.compliance.status,
      next_audit: report.compliance.nextAudit,
      overdue: report.compliance.overdue,
    },
    reasons: report.reasons,
  };
}

/** The `ledger` and `consensus` members of /health (see the module comment). */
export async function brokerBody(ledger: LedgerStore | undefined) {
  if (!ledger)
    return { ledger: { status: "absent" as const, store: null, size: null, checkpoint_size: null }, consensus: null };
  const store = storeKindOf(ledger);
  const integrity = ledger.integrity?.();
  const refused = {
    ...(integrity?.refusedRow ? { refused_row: integrity.refusedRow } : {}),
    ...(integrity?.refusedCheckpoint ? { refused_checkpoint: integrity.refusedCheckpoint } : {}),
  };
  if (integrity?.refusedRow) {
    // Nothing past the row is read or folded: the ledger says why it refuses, and its size.
    const write = ledger.writeHealth();
    const since = write.ok ? integrity.refusedRow.since : write.since;
    const reason = `entry ${integrity.refusedRow.seq} in the store does not verify: ${integrity.refusedRow.problem}`;
    const size = await ledger.size().catch(() => null);
    return {
      ledger: {
        status: "failing" as const,
        store,
        size,
        checkpoint_size: null,
        write_failure: { since, reason },
        ...refused,
      },
      consensus: null,
    };
  }
  try {
    const state = await ledger.state(consensusProjection);
    const note = await ledger.latestCheckpoint();
    const checkpointSize = note === null ? null : parseCheckpoint(note.slice(0, note.indexOf("\n\n") + 1)).size;
    const write = ledger.writeHealth();
    const written = write.ok
      ? { status: "ok" as const }
      : { status: "failing" as const, write_failure: { since: write.since, reason: write.reason } };
    return {
      ledger: { ...written, store, size: await ledger.size(), checkpoint_size: checkpointSize, ...refused },
      consensus: { ...consensusHealth(state), cycle: cycleInfo(state) },
    };
  } catch {
    return {
      ledger: { status: "unavailable" as const, store, size: null, checkpoint_size: null, ...refused },
      consensus: null,
    };
  }
}

/** The `access_ledger` member of /health: reads only (the tail), never a write. */
export async function accessLedgerBody(keys: ApiKeyStore) {
  const store = keys.storeKind;
  try {
    const ledger = await keys.ledger();
    const write = ledger.writeHealth();
    const written = write.ok
      ? { status: "ok" as const }
      : { status: "failing" as const, write_failure: { since: write.since, reason: write.reason } };
    return { ...written, store, size: await ledger.size() };
  } catch {
    return { status: "unavailable" as const, store, size: null };
  }
}

/** The `limits` member of /health: the store's read-only probe (memory when the app counts in this process). */
export async function limitsBody(limits: LimitsStore | undefined) {
  if (!limits) return { status: "ok" as const, store: "memory" as const };
  const health = await limits.health();
  return health.ok
    ? { status: "ok" as const, store: limits.kind }
    : { status: "failing" as const, store: limits.kind, failure: { reason: health.reason } };
}

/** The shared stores /health reports besides the ledger. */
export interface HealthStores {
  /** The access ledger (API keys, the keyed-access audit). */
  keys: ApiKeyStore;
  /** Where the request limits are counted; undefined: in this process's memory. */
  limits?: LimitsStore;
}

export function healthRoutes(
  source: PulseHistorySource,
  now: () => Date,
  system: () => SystemHealthReport | null = () => null,
  ledger: LedgerStore | undefined,
  stores: HealthStores,
): RouteGroup {
  const started = now().getTime();
  const routes = routeGroup();
  addRoute(routes, healthRoute, async (c) => {
    const snapshot = source.current();
    const history = {
      status: snapshot.status,
      records: snapshot.newestFirst.length,
      verified: snapshot.status === "verified",
      ...(snapshot.unsignedLines > 0 ? { unsigned_lines: snapshot.unsignedLines } : {}),
      ...(snapshot.firstProblem ? { first_problem: snapshot.firstProblem } : {}),
    };
    const [broker, accessLedger, limits] = await Promise.all([
      brokerBody(ledger),
      accessLedgerBody(stores.keys),
      limitsBody(stores.limits),
    ]);
    const brokerDegraded =
      broker.ledger.status === "unavailable" ||
      broker.ledger.status === "failing" ||
      "refused_checkpoint" in broker.ledger ||
      broker.consensus?.status === "degraded";
    const storesDegraded = accessLedger.status !== "ok" || limits.status !== "ok";
    return c.json(
      {
        status:
          snapshot.status === "unverified" || snapshot.unsignedLines > 0 || brokerDegraded || storesDegraded
            ? "degraded"
            : "ok",
        version: VERSION,
        uptime_s: Math.max(0, Math.floor((now().getTime() - started) / 1000)),
        history,
        system: systemBody(system()),
        ...broker,
        access_ledger: accessLedger,
        limits,
      },
      200,
      { "Cache-Control": "no-store" },
    );
  });
  return routes;
}
