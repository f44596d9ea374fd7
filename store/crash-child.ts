/**
 * Child process of the crash test: appends batches in a loop to the ledger at argv[2] and prints
 * "ack <size>" after each commit returns. The parent kills it with SIGKILL at a random moment.
 */
import { SqliteLedger } from "./sqlite-ledger.ts";
import { sampleEvent } from "./test-helpers.ts";

const path = process.argv[2]!;
const ledger = new SqliteLedger(path, { origin: "crash.test/ledger" });
for (let round = 0; ; round++) {
  const size = ledger.size();
  const batch = Array.from({ length: 1 + (round % 5) }, (_, i) => sampleEvent(size + i));
  ledger.append(batch);
  process.stdout.write(`ack ${size + batch.length}\n`);
}
