/**
 * An API process over a shared ledger file, for the consensus routes' two-process race and the
 * consensus benchmark: serves the API over the ledger file argv[2] (the test keys; `argv[3]` is a
 * folder of its own for the data and access ledger) on a free loopback port, prints its URL on one
 * line, and stops when its stdin ends.
 */
import { openTestLedger, serveLedger } from "./consensus.ts";

const [path, dataDir] = process.argv.slice(2);
const ledger = await openTestLedger(path!);
const server = await serveLedger(ledger, dataDir!);
process.stdout.write(`${server.url}\n`);
process.stdin.resume();
process.stdin.on("end", () => {
  void server
    .close()
    .then(() => ledger.close())
    .then(() => process.exit(0));
});
