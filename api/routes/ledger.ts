/**
 * GET /ledger/entries/{seq}/inclusion — proof that entry `seq` is in the ledger: its envelope (seq,
 * type, ts, prev, hash — never the payload: the full ledger is the government-keyed audit trail),
 * its RFC 9162 audit path and the newest signed checkpoint, which covers it (store/entry-
 * inclusion.ts). A client that holds the payload — an authority grant's is its authority_context,
 * a write's is what it wrote — rebuilds the entry and checks it offline with
 * core/ledger/inclusion.ts `verifyEntryInclusion` and the published `data/keys/ledger.vkey`.
 * Generic: any route that answers a `Ledger-Seq` points here.
 *
 * A read: it never signs or stores anything. An entry no signed checkpoint covers yet is 202 with
 * its envelope and `Retry-After` (docs/ledger-reads.md: who signs checkpoints, what is public).
 */
import { z } from "@hono/zod-openapi";
import type { LedgerReader } from "../../core/ledger/store.ts";
import { Digest, IsoTimestamp } from "../../core/schemas/common.ts";
import { CHECKPOINT_INTERVAL_S, entryInclusion } from "../../store/ledger/entry-inclusion.ts";
import { problem } from "../problems/problem.ts";
import { component, headers, json } from "../openapi/responses.ts";
import { addRoute, defineRoute, routeGroup, type RouteGroup } from "../openapi/route.ts";
import { storeUnavailable } from "../problems/store-failure.ts";
import { witnessedCheckpointReader } from "../../store/witnessed-checkpoint.ts";

const Seq = z
  .string()
  .regex(/^(0|[1-9][0-9]{0,14})$/, "a ledger sequence number: a whole number without leading zeros")
  .openapi({ example: "1" });

/** What anyone may read of an entry (docs/ledger-reads.md): what rebuilding its hash needs besides the payload. */
const Envelope = z.strictObject({
  seq: z.number().int().nonnegative(),
  type: z.string(),
  ts: IsoTimestamp,
  prev: Digest.nullable(),
  hash: Digest,
});

export const EntryInclusion = component(
  "ledger-entry-inclusion",
  z.strictObject({
    entry: Envelope,
    tree_size: z
      .number()
      .int()
      .positive()
      .openapi({ description: "The size of the tree the proof and the checkpoint are about (greater than seq)" }),
    proof: z
      .array(z.string().regex(/^[A-Za-z0-9+/]{43}=$/))
      .openapi({ description: "The RFC 9162 audit path: sibling hashes, leaf side first, base64" }),
    checkpoint: z.string().openapi({
      description:
        "The C2SP signed checkpoint of that tree (ledger key: data/keys/ledger.vkey); the published witnessed checkpoint, with its C2SP cosignature/v1 lines, whenever it covers the entry (check them against /keys/ledger.policy)",
    }),
  }),
);

export const EntryPending = component(
  "ledger-entry-pending",
  z.strictObject({
    entry: Envelope,
    checkpoint_size: z
      .number()
      .int()
      .nonnegative()
      .openapi({ description: "The size of the newest signed checkpoint (not above seq; 0: none yet)" }),
  }),
);

export const inclusionRoute = defineRoute({
  method: "get",
  path: "/ledger/entries/{seq}/inclusion",
  tags: ["Ledger"],
  summary: "Prove that a ledger entry is in the ledger",
  description:
    "The entry's envelope (without its payload), its RFC 9162 inclusion proof and the newest signed checkpoint, which covers it (202 with Retry-After while none does: checkpoints are signed by writes and on the server's schedule, never by this read). Rebuild the entry from the payload you hold (for an authority grant: the `authority_context`'s ledger_id, scopes, risk_level, attestation_hash, created_at and expires_at), check its hash, the audit path to the signed root, and the checkpoint's signature.",
  request: { params: z.strictObject({ seq: Seq }) },
  responses: {
    200: json("The inclusion proof", EntryInclusion),
    202: json(
      "No signed checkpoint covers the entry yet: its envelope; ask again after Retry-After seconds",
      EntryPending,
      { headers: headers("Retry-After") },
    ),
  },
  problems: ["not-found", "ledger-unavailable"],
});

export function ledgerRoutes(ledger: LedgerReader | undefined, dataDir?: string): RouteGroup {
  const routes = routeGroup();
  const witnessed = ledger ? witnessedCheckpointReader(dataDir, ledger) : async () => null;
  addRoute(routes, inclusionRoute, async (c) => {
    if (!ledger) return problem(c, "ledger-unavailable", "This server has no ledger.");
    const seq = Number(c.req.valid("param").seq);
    let inclusion;
    try {
      inclusion = await entryInclusion(ledger, seq, await witnessed());
    } catch (error) {
      return storeUnavailable(c, error);
    }
    if (!inclusion) return problem(c, "not-found", `The ledger has no entry ${seq}.`);
    const { seq: s, type, ts, prev, hash } = inclusion.entry;
    const entry = { seq: s, type, ts, prev, hash };
    if (inclusion.status === "pending") {
      return c.json({ entry, checkpoint_size: inclusion.checkpointSize }, 202, {
        "Cache-Control": "no-store",
        "Retry-After": String(CHECKPOINT_INTERVAL_S),
      });
    }
    return c.json(
      {
        entry,
        tree_size: inclusion.treeSize,
        proof: inclusion.proof.map((h) => Buffer.from(h).toString("base64")),
        checkpoint: inclusion.checkpoint,
      },
      200,
      { "Cache-Control": "no-store" },
    );
  });
  return routes;
}
