/**
 * `npm run keys -- issue --tier government --label "Ministry of X"`: issue an API key for the keyed
 * data areas and print it ONCE (only its SHA-256 is stored); `npm run keys -- list` shows the
 * issued keys without secrets.
 */
import { parseArgs } from "node:util";
import { ApiKeyStore, KEY_TIERS, keysPath, type KeyTier } from "./api-keys.ts";

const { values, positionals } = parseArgs({
  args: process.argv.slice(2),
  options: { tier: { type: "string" }, label: { type: "string" } },
  allowPositionals: true,
});
const store = new ApiKeyStore(keysPath());
const fail = (message: string): never => {
  process.stderr.write(`keys: ${message}\n`);
  process.exit(2);
};

if (positionals[0] === "issue") {
  const tier = values.tier as KeyTier | undefined;
  if (!tier || !KEY_TIERS.includes(tier)) fail(`--tier must be one of ${KEY_TIERS.join(", ")}`);
  if (!values.label) fail("--label is required (who the key is for)");
  const { token, record } = store.issue(tier!, values.label!, new Date());
  console.log(`issued ${record.id} (${record.tier}) for ${record.label}; stored as its SHA-256 in ${store.path}`);
  console.log(`key (shown once, deliver it over a secure channel): ${token}`);
} else if (positionals[0] === "list") {
  for (const k of store.list()) console.log(`${k.id}\t${k.tier}\t${k.issued_at}\t${k.label}`);
} else {
  fail('usage: npm run keys -- issue --tier <tier> --label "<who>" | list');
}
