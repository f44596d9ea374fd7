/**
 * GET /ledger/entries/{seq}/inclusion — proof that entry `seq` is in the ledger: its envelope (seq,
 * type, ts, prev, hash — never the payload: the full ledger is the government-keyed audit trail),
 * its RFC 9162 audit path and a signed checkpoint of a tree that contains it (store/entry-
 * inclusion.ts). A client that holds the payload — an authority grant's is its authority_context,
 * a write's is what it wrote — rebuilds the entry and checks it offline with
 * core/ledger/inclusion.ts `verifyEntryInclusion` and the published `data/keys/ledger.vkey`.
 * Generic: any route that answers a `Ledger-Seq` points here.
 */
import { z } from "@hono/zod-openapi";
import type { LedgerStore } from "../../core/ledger/store.ts";
import { Digest, IsoTimestamp } from "../../core/schemas/common.ts";
import { entryInclusion } from "../../store/entry-inclusion.ts";
import { problem } from "../problem.ts";
import { component, json } from "../responses.ts";
import { addRoute, defineRoute, routeGroup, type RouteGroup } from "../route.ts";
import { storeUnavailable } from "./store-failure.ts";

const Seq = z.string().regex(/^(0|[1-9][0-9]{0,14})$/, "a ledger sequence number: a whole number without leading zeros");

export const EntryInclusion = component(
  "ledger-entry-inclusion",
  z.strictObject({
    entry: z.strictObject({
      seq: z.number().int().nonnegative(),
      type: z.string(),
      ts: IsoTimestamp,
      prev: Digest.nullable(),
      hash: Digest,
    }),
    tree_size: z.number().int().positive().openapi({ description: "The size of the tree the proof and the checkpoint are about (greater than seq)" }),
    proof: z.array(z.string().regex(/^[A-Za-z0-9+/]{43}=$/)).openapi({ description: "The RFC 9162 audit path: sibling hashes, leaf side first, base64" }),
    checkpoint: z.string().openapi({ description: "The C2SP signed checkpoint of that tree (ledger key: data/keys/ledger.vkey)" }),
  }),
);

export const inclusionRoute = defineRoute({
  method: "get",
  path: "/ledger/entries/{seq}/inclusion",
  tags: ["Ledger"],
  summary: "Prove that a ledger entry is in the ledger",
  description:
    "The entry's envelope (without its payload), its RFC 9162 inclusion proof and a signed checkpoint covering it. Rebuild the entry from the payload you hold (for an authority grant: the `authority_context`'s ledger_id, scopes, risk_level, attestation_hash, created_at and expires_at), check its hash, the audit path to the signed root, and the checkpoint's signature.",
  request: { params: z.strictObject({ seq: Seq }) },
  responses: { 200: json("The inclusion proof", EntryInclusion) },
  problems: ["not-found", "ledger-unavailable"],
});

export function ledgerRoutes(ledger: LedgerStore | undefined): RouteGroup {
  const routes = routeGroup();
  addRoute(routes, inclusionRoute, (c) => {
    if (!ledger) return problem(c, "ledger-unavailable", "This server has no ledger.");
    const seq = Number(c.req.valid("param").seq);
    let inclusion;
    try {
      inclusion = entryInclusion(ledger, seq);
    } catch (error) {
      return storeUnavailable(c, error);
    }
    if (!inclusion) return problem(c, "not-found", `The ledger has no entry ${seq}.`);
    const { seq: s, type, ts, prev, hash } = inclusion.entry;
    return c.json(
      {
        entry: { seq: s, type, ts, prev, hash },
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
