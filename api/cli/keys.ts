/**
 * `npm run keys -- <command>`: the API keys of the keyed data areas, kept in the access ledger
 * (with `DATABASE_URL` set, the `access` schema of that PostgreSQL database; else `ACCESS_LEDGER_DB`,
 * default `<STATE_DIR>/access.sqlite`; see store/access-ledger.ts).
 *
 *   issue --tier <tier> --label "<who>"   issue a key and print it ONCE (only its SHA-256 is kept)
 *   requests [--all]                     the key requests sent with POST /keys/requests (pending ones; --all: every one)
 *   issue --request REF                  issue the key request REF asked for (its tier, labelled with its affiliation)
 *   decline --request REF [--reason "<why>"]   answer REF without a key
 *   rotate ID                            issue the successor of ID (same tier and label), printed once;
 *                                        ID keeps working for the 14-day grace period, then retires
 *   revoke ID [--reason "<why>"]         refuse ID from now on, on every API instance
 *   list                                 every key ever issued, with its status (no secrets)
 *   vkey                                 the access ledger's verifier key, for auditors
 *
 * Every change is followed by a signed checkpoint of the access ledger (ACCESS_SIGNING_KEY, or a
 * development key under `<STATE_DIR>/keys/`). Exit status 0 on success, 1 on a refused change
 * (unknown key, not active), 2 on bad usage.
 */
import { parseArgs } from "node:util";
import { verifierKey } from "../../core/checkpoint.ts";
import { keyStatus } from "../../core/access/keys.ts";
import { escapeUnprintable, looksAcademic, type KeyRequest } from "../../core/access/key-requests.ts";
import { accessSigningKey } from "../../store/access-ledger.ts";
import { ApiKeyStore, KEY_TIERS, KeyStoreError, keysPath, type ApiKey, type KeyTier } from "../clients/api-keys.ts";

const USAGE =
  'usage: npm run keys -- issue --tier <tier> --label "<who>" | issue --request REF | requests [--all] | decline --request REF [--reason "<why>"] | rotate ID | revoke ID [--reason "<why>"] | list | vkey';

function usage(message: string): never {
  process.stderr.write(`keys: ${message}\n${USAGE}\n`);
  process.exit(2);
}

function describe(key: ApiKey, now: Date): string {
  const extra = [
    key.replaced_by ? `successor ${key.replaced_by}, retires ${key.retires_at}` : "",
    key.revoked_at ? `revoked ${key.revoked_at}: ${key.revoke_reason}` : "",
  ];
  return [
    key.id,
    key.tier,
    keyStatus(key, now),
    `issued ${key.issued_at}`,
    `expires ${key.expires_at}`,
    key.label,
    ...extra.filter(Boolean),
  ]
    .map(escapeUnprintable)
    .join("\t");
}

/**
 * One request per line, its fields apart by tabs, each printed with its control, format and
 * separator characters escaped (`\u{202E}`): what a requester wrote never steers the terminal. The
 * academic hint flags an address on an academic domain (.edu, .ac.<cc>, .edu.<cc>). */
function describeRequest(r: KeyRequest): string {
  const answer =
    r.status === "issued"
      ? `key ${r.key_id} at ${r.answered_at}`
      : r.status === "declined"
        ? `declined ${r.answered_at}: ${r.decline_reason}`
        : "";
  const hint =
    r.tier === "academic" ? (looksAcademic(r.contact) ? "academic domain" : "CHECK: not an academic domain") : "";
  return [
    r.reference,
    r.status,
    r.tier,
    `received ${r.received_at}`,
    r.affiliation,
    r.contact,
    hint,
    r.expected_volume === null ? "" : `${r.expected_volume}/day`,
    r.purpose,
    answer,
  ]
    .filter(Boolean)
    .map(escapeUnprintable)
    .join("\t");
}

async function main(argv: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      options: {
        tier: { type: "string" },
        label: { type: "string" },
        reason: { type: "string" },
        request: { type: "string" },
        all: { type: "boolean" },
      },
      allowPositionals: true,
      strict: true,
    });
  } catch (error) {
    usage((error as Error).message);
  }
  const { values, positionals } = parsed;
  const [command, id, ...rest] = positionals;
  if (rest.length > 0) usage(`unexpected ${rest.join(" ")}`);
  const log = (m: string) => process.stderr.write(`${m}\n`);
  const now = new Date();

  if (command === "vkey") {
    const key = accessSigningKey(process.env, log);
    console.log(verifierKey(key.name, key.publicKeyHex));
    return 0;
  }
  if (
    command !== "issue" &&
    command !== "rotate" &&
    command !== "revoke" &&
    command !== "list" &&
    command !== "requests" &&
    command !== "decline"
  )
    usage(`unknown command ${JSON.stringify(command ?? "")}`);
  if ((command === "rotate" || command === "revoke") && !id)
    usage(`${command} needs a key id (see npm run keys -- list)`);
  if ((command === "issue" || command === "list" || command === "requests" || command === "decline") && id)
    usage(`${command} takes no positional argument`);
  if (command === "decline" && !values.request) usage("decline needs --request REF (see npm run keys -- requests)");
  if (command === "issue" && values.request && (values.tier || values.label))
    usage("issue --request takes the tier and label from the request: no --tier or --label");
  if (values.all && command !== "requests") usage("--all is an option of requests");

  const store = new ApiKeyStore(keysPath(), { key: accessSigningKey(process.env, log) });
  try {
    switch (command) {
      case "list":
        for (const k of await store.list()) console.log(describe(k, now));
        return 0;
      case "requests":
        for (const r of await store.requests())
          if (values.all || r.status === "pending") console.log(describeRequest(r));
        return 0;
      case "decline": {
        const reason = values.reason ?? "declined by the operator";
        if (reason === "" || reason.length > 200) usage("--reason must be 1 to 200 characters");
        const request = await store.declineRequest(values.request!, reason, now);
        await store.checkpoint();
        console.log(
          `declined ${request.reference} (${request.tier}, ${request.affiliation}); tell the requester at ${request.contact}`,
        );
        return 0;
      }
      case "issue": {
        if (values.request) {
          const { token, key, request } = await store.issueForRequest(values.request, now);
          await store.checkpoint();
          console.log(
            `issued ${key.id} (${key.tier}) for ${request.reference}, ${request.affiliation}; expires ${key.expires_at}; stored as its SHA-256 in ${(await store.ledger()).store.location}`,
          );
          console.log(`deliver it to ${request.contact} over a secure channel`);
          console.log(`key (shown once, deliver it over a secure channel): ${token}`);
          return 0;
        }
        const tier = values.tier as KeyTier | undefined;
        if (!tier || !KEY_TIERS.includes(tier)) usage(`--tier must be one of ${KEY_TIERS.join(", ")}`);
        if (!values.label || values.label.length > 200)
          usage("--label is required (who the key is for), at most 200 characters");
        const { token, key } = await store.issue(tier, values.label, now);
        await store.checkpoint();
        console.log(
          `issued ${key.id} (${key.tier}) for ${key.label}; expires ${key.expires_at}; stored as its SHA-256 in ${(await store.ledger()).store.location}`,
        );
        console.log(`key (shown once, deliver it over a secure channel): ${token}`);
        return 0;
      }
      case "rotate": {
        const { token, key } = await store.rotate(id!, now);
        await store.checkpoint();
        const old = (await store.get(id!))!;
        console.log(
          `issued ${key.id} (${key.tier}) for ${key.label}, the successor of ${id}; expires ${key.expires_at}`,
        );
        console.log(`${id} keeps working until ${old.retires_at}, then retires`);
        console.log(`key (shown once, deliver it over a secure channel): ${token}`);
        return 0;
      }
      case "revoke": {
        const reason = values.reason ?? "revoked by the operator";
        if (reason === "" || reason.length > 200) usage("--reason must be 1 to 200 characters");
        const key = await store.revoke(id!, reason, now);
        await store.checkpoint();
        console.log(
          `revoked ${key.id} (${key.tier}, ${key.label}) at ${key.revoked_at}: every API instance refuses it from its next request`,
        );
        return 0;
      }
    }
  } catch (error) {
    if (error instanceof KeyStoreError) {
      process.stderr.write(`keys: ${error.message}\n`);
      return 1;
    }
    throw error;
  } finally {
    await store.close();
  }
  return 2;
}

process.exitCode = await main(process.argv.slice(2));
