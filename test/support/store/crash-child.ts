/**
 * Child process of the crash test: appends to the ledger at argv[2] in a loop and prints
 * "ack <size> <hash of the last entry>" after each append returns. Mode "sync" (argv[3], default)
 * appends batches with `append`; mode "async" runs 16 concurrent writers through the group-commit
 * path (`appendAsync`). The parent kills it with SIGKILL at a random moment.
 */
import { openLedgerStore } from "../../../store/open-ledger.ts";
import { sampleEvent } from "./helpers.ts";

const path = process.argv[2]!;
const ledger = await openLedgerStore({ path: path, origin: "crash.test/ledger" });
const ack = (entries: { seq: number; hash: string }[]) => {
  const last = entries.at(-1)!;
  process.stdout.write(`ack ${last.seq + 1} ${last.hash}\n`);
};
if (process.argv[3] === "async") {
  const writer = async (w: number) => {
    for (let round = 0; ; round++) ack(await ledger.appendAsync([sampleEvent(w * 1_000_000 + round)]));
  };
  await Promise.all(Array.from({ length: 16 }, (_, w) => writer(w)));
} else {
  for (let round = 0; ; round++) {
    const size = await ledger.size();
    ack(await ledger.append(Array.from({ length: 1 + (round % 5) }, (_, i) => sampleEvent(size + i))));
  }
}
