/**
 * Records of the v1 → v2 migration's published verification tree (data/migration/, see
 * core/migration/snapshot.ts): its leaves, the mismatch report, the summary, an inclusion proof, and
 * the operator's correction input of the 24-hour review.
 */
import { z } from "zod";
import { ADDRESS_PATTERN } from "../money/address.ts";
import { IsoTimestampMs, NonNegativeInt, ShardString } from "./common.ts";

export const Address = z
  .string()
  .regex(ADDRESS_PATTERN)
  .describe("Ledger account name: [A-Za-z0-9][A-Za-z0-9._:-]{0,127}, case-sensitive");

const JsonNumberText = z
  .string()
  .regex(/^-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?$/)
  .describe("A JSON number's text exactly as the v1 export wrote it");

const Note = z.string().min(1).max(500).regex(/\S/).describe("Why the balance was corrected, in words");

/** One leaf of the verification tree: a converted balance, or a correction of the review. */
export const MigrationLeaf = z.union([
  z.strictObject({ address: Address, balance_shards: ShardString, v1_balance_gic: JsonNumberText }),
  z.strictObject({ address: Address, balance_shards: ShardString, correction: Note }),
]);
export type MigrationLeaf = z.infer<typeof MigrationLeaf>;

export const MismatchReasonSchema = z.enum([
  "malformed-line",
  "invalid-address",
  "duplicate-address",
  "not-a-number",
  "negative",
  "too-precise",
  "too-large",
]);

/** One line of the mismatch report: what could not be converted exactly, and why. */
export const MigrationMismatch = z.strictObject({
  address: z.string().nullable().describe("The address as read from the line, or null when none could be read"),
  input: z.string().describe("The export line exactly as read"),
  line: z.int().min(1),
  reason: MismatchReasonSchema,
});
export type MigrationMismatch = z.infer<typeof MigrationMismatch>;

/** The inclusion proof `npm run migration -- prove` prints. */
export const MigrationProof = z.strictObject({
  index: NonNegativeInt,
  tree_size: z.int().min(1),
  leaf: z.string().describe("The leaf's text; its UTF-8 bytes are the RFC 9162 leaf"),
  proof: z
    .array(z.string().regex(/^[A-Za-z0-9+/]{43}=$/))
    .max(64)
    .describe("Base64 SHA-256 hashes, leaf side first"),
});
export type MigrationProof = z.infer<typeof MigrationProof>;

const Counts = z.strictObject(
  Object.fromEntries(MismatchReasonSchema.options.map((r) => [r, NonNegativeInt])) as Record<
    z.infer<typeof MismatchReasonSchema>,
    typeof NonNegativeInt
  >,
);

/** summary.json: what the snapshot converted, its verification, and the review rounds. */
export const MigrationSummary = z.strictObject({
  origin: z.string().min(1),
  snapshot_at: IsoTimestampMs,
  review_ends: IsoTimestampMs,
  input: z.strictObject({ lines: NonNegativeInt, sha256: z.string().regex(/^sha256:[0-9a-f]{64}$/) }),
  converted: NonNegativeInt,
  mismatches: NonNegativeInt,
  mismatches_by_reason: Counts,
  total_v1_balance_gic: z
    .string()
    .regex(/^(?:0|[1-9][0-9]*)(?:\.[0-9]*[1-9])?$/)
    .describe("Exact decimal sum of the converted lines' balance_gic"),
  total_balance_shards: ShardString,
  verified: z
    .literal(true)
    .describe("Every converted balance's shards / 1,000,000 equals its former balance, and the totals agree"),
  snapshot_size: NonNegativeInt,
  tree_size: NonNegativeInt,
  reviews: z.array(z.strictObject({ at: IsoTimestampMs, corrections: z.int().min(1), tree_size: z.int().min(1) })),
});
export type MigrationSummary = z.infer<typeof MigrationSummary>;

/** One line of a correction file for `npm run migration -- correct`. */
export const MigrationCorrectionInput = z.strictObject({ address: Address, balance_shards: ShardString, note: Note });
export type MigrationCorrectionInput = z.infer<typeof MigrationCorrectionInput>;
