/**
 * The API reference's examples of the authority write routes (POST /avm/revoke and the operator
 * operations): one story, each request what its operation really needs and each response what the
 * server answers it on the sample ledger, run in this order by test/portal-docs-examples.test.ts.
 * An operator registers an example identity and companion, locks and withdraws stake, records
 * drift, a concern and a violation, revokes the identity's authority, then issues a token and
 * revokes it. Keys are sample keys of the seed EXAMPLE_SEED (core/sample-key.ts): anyone can
 * recompute them, so nothing here stands for a real holder.
 */
import { ledgerIdForKey } from "../../../core/avm/operations.ts";
import { sampleSecretKey } from "../../../core/sample-key.ts";
import { publicKeyFromSecret } from "../../../core/signature.ts";

/** The seed of the examples' own keys (not the sample ledger's: these identities are new to it). */
export const EXAMPLE_SEED = "api-reference-example";

const identityKey = publicKeyFromSecret("ed25519", sampleSecretKey(EXAMPLE_SEED, "identity"));
const companionKey = publicKeyFromSecret("ed25519", sampleSecretKey(EXAMPLE_SEED, "companion"));
const LEDGER_ID = ledgerIdForKey("ed25519", identityKey);
const COMPANION = "companion-example";
const EVIDENCE = "sha256:9f2c4e1a7b3d5f60819a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f70";
/** The issued token's id as documented; the server draws a fresh one (the revoke-token example names it). */
export const EXAMPLE_TOKEN_JTI = "6f1d2c3b-4a59-4e8f-9a7b-0c1d2e3f4a5b";

type Example = { request: Record<string, unknown>; response: Record<string, unknown> };

const stake = (amount: string, bonded: string, unbonded = "0") => ({
  ledger_id: LEDGER_ID,
  amount_shards: amount,
  bonded_shards: bonded,
  unbonded_shards: unbonded,
});

/** By operator command (and `revoke` for POST /avm/revoke). */
export const AVM_WRITE_EXAMPLES = {
  "register-identity": {
    request: { algorithm: "ed25519", public_key: identityKey, role: "deployer", reputation: 0.92 },
    response: { ledger_id: LEDGER_ID },
  },
  "register-companion": {
    request: { companion_id: COMPANION, algorithm: "ed25519", public_key: companionKey },
    response: { companion_id: COMPANION },
  },
  "lock-stake": {
    request: { ledger_id: LEDGER_ID, amount: "150", slashing_conditions_accepted: true },
    response: stake("150000000", "150000000"),
  },
  "withdraw-stake": {
    request: { ledger_id: LEDGER_ID, amount: "50" },
    response: { ...stake("50000000", "100000000"), revoked: false },
  },
  "record-drift": {
    request: { ledger_id: LEDGER_ID, drift_score: 0.04, source: "drift-monitor" },
    response: { ledger_id: LEDGER_ID, revoked: false },
  },
  "signal-concern": {
    request: { companion_id: COMPANION, ledger_id: LEDGER_ID, evidence_hash: EVIDENCE },
    response: { ledger_id: LEDGER_ID, revoked: false },
  },
  "report-violation": {
    request: { ledger_id: LEDGER_ID, evidence_hash: EVIDENCE, detected_by: "integrity-sentinel" },
    response: { ledger_id: LEDGER_ID, revoked: false },
  },
  revoke: {
    request: { ledger_id: LEDGER_ID, reason: "key_compromise", evidence_hash: EVIDENCE },
    response: { revoked: false, revoked_at: "2026-11-23T15:00:00.000Z" },
  },
  "issue-token": {
    request: { subject: "oncall-revoker", permissions: ["avm.revoke"], ttl_seconds: 600 },
    response: {
      token: "eyJhbGciOiJFZERTQSIsInR5cCI6IkpXVCJ9.…",
      jti: EXAMPLE_TOKEN_JTI,
      subject: "oncall-revoker",
      permissions: ["avm.revoke"],
      expires_at: "2026-11-23T15:10:00.000Z",
    },
  },
  "revoke-token": {
    request: { jti: EXAMPLE_TOKEN_JTI, reason: "the on-call shift ended" },
    response: { jti: EXAMPLE_TOKEN_JTI, revoked: true },
  },
} as const satisfies Record<string, Example>;
