/**
 * Child process of the two-process write test: opens the ledger at argv[2], says "ready", and on
 * "go" (stdin) submits argv[3] concurrent duplicate-guarded opens over the session ids argv[4..],
 * in waves of 10 per event-loop turn, then prints one JSON line: the ids it created, and how many
 * writes found their session already open.
 */
import { once } from "node:events";
import { openLedgerStore } from "../../../store/open-ledger.ts";
import { openOnce } from "./helpers.ts";

const [path, count, ...ids] = process.argv.slice(2);
const ledger = await openLedgerStore({ path: path!, origin: "race.test/ledger", durability: "normal" });
process.stdout.write("ready\n");
await once(process.stdin, "data");
const writes: Promise<{ id: string; result: "created" | "exists" }>[] = [];
for (let i = 0; i < Number(count); i++) {
  if (i > 0 && i % 10 === 0) await new Promise((resolve) => setImmediate(resolve));
  const id = ids[i % ids.length]!;
  writes.push(ledger.write(openOnce(id)).then((written) => ({ id, result: written.result })));
}
const results = await Promise.all(writes);
const created = results.filter((r) => r.result === "created").map((r) => r.id);
process.stdout.write(`${JSON.stringify({ created, exists: results.length - created.length })}\n`);
await ledger.close();
process.exit(0);
