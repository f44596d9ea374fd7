/**
 * `npm run seed -- [--seed S] [--size N] [--now ISO] [--db PATH] [--force]`
 * `npm run seed -- --sample [--data DIR] [--db PATH]`: the embedded default's sample (sample-options.ts)
 *
 * Writes the SAMPLE ledger (see simulate.ts) through the store's bulk path (`appendBulk`: the same
 * checks and rows as the API's appends), in batches of 1,000 events, then signs a checkpoint. The present is `--now`, else SOURCE_DATE_EPOCH
 * (seconds), else the real clock — read once, here, and passed into the pure simulator. A ledger
 * that already has entries is refused unless `--force` is given (the sample is then appended after
 * them, which an append-only log only allows when none of them is later than C-1's first instant).
 */
import { existsSync } from "node:fs";
import { parseArgs } from "node:util";
import { cycleStart } from "../../core/cycle.ts";
import { formatDigest } from "../../core/digest.ts";
import type { NewEvent } from "../../core/ledger/store.ts";
import { defaultLedgerPath, openLedger, shownLocation } from "../../store/open-ledger.ts";
import { sampleOptions } from "./sample-options.ts";
import { planSimulation } from "./plan.ts";
import { DEFAULT_SEED, DEFAULT_SIZE, simulate } from "./simulate.ts";
import { UsageError } from "../../core/errors.ts";

const BATCH = 1000;
const USAGE =
  "usage: npm run seed -- [--seed STRING] [--size N] [--now ISO-8601] [--db PATH] [--force]\n       npm run seed -- --sample [--data DIR] [--db PATH] [--force]";

function parseNow(flag: string | undefined, env: NodeJS.ProcessEnv): Date {
  if (flag !== undefined) {
    const ms = Date.parse(flag);
    if (!/^\d{4}-\d{2}-\d{2}T/.test(flag) || !Number.isFinite(ms))
      throw new UsageError(`--now must be an ISO 8601 instant, got "${flag}"`);
    return new Date(ms);
  }
  const epoch = env.SOURCE_DATE_EPOCH;
  if (epoch !== undefined && epoch !== "") {
    if (!/^[0-9]+$/.test(epoch))
      throw new UsageError(`SOURCE_DATE_EPOCH must be whole seconds since 1970, got "${epoch}"`);
    return new Date(Number(epoch) * 1000);
  }
  return new Date(); // the one clock read of the seeding run
}

function parseSize(flag: string | undefined): number {
  if (flag === undefined) return DEFAULT_SIZE;
  if (!/^[1-9][0-9]*$/.test(flag) || !Number.isSafeInteger(Number(flag)))
    throw new UsageError(`--size must be a positive integer, got "${flag}"`);
  return Number(flag);
}

async function main(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  let values: {
    seed?: string;
    size?: string;
    now?: string;
    db?: string;
    force?: boolean;
    sample?: boolean;
    data?: string;
  };
  try {
    values = parseArgs({
      args: argv,
      options: {
        seed: { type: "string" },
        size: { type: "string" },
        now: { type: "string" },
        db: { type: "string" },
        force: { type: "boolean" },
        sample: { type: "boolean" },
        data: { type: "string" },
      },
      strict: true,
      allowPositionals: false,
    }).values;
  } catch (error) {
    throw new UsageError(`${(error as Error).message}\n${USAGE}`);
  }
  if (values.sample) {
    if (values.seed !== undefined || values.size !== undefined || values.now !== undefined)
      throw new UsageError(`--sample takes its seed, size and present from the data folder\n${USAGE}`);
    const sample = sampleOptions(values.data ?? env.DATA_DIR ?? "data");
    values = { ...values, seed: sample.seed, size: String(sample.size), now: sample.now };
  } else if (values.data !== undefined) throw new UsageError(`--data goes with --sample\n${USAGE}`);
  const seed = values.seed ?? DEFAULT_SEED;
  if (seed.length === 0) throw new UsageError("--seed must not be empty");
  const size = parseSize(values.size);
  const now = parseNow(values.now, env);
  if (now.getTime() < cycleStart(1).getTime())
    throw new UsageError(`--now ${now.toISOString()} is before C-1 (${cycleStart(1).toISOString()})`);
  const plan = planSimulation({ seed, size, now });

  const path = values.db ?? defaultLedgerPath(env);
  const existed = existsSync(path);
  const { ledger, key } = await openLedger({
    path,
    env,
    now: () => now,
    durability: "normal",
    log: (m) => process.stderr.write(`seed: ${m}\n`),
  });
  try {
    const before = await ledger.size();
    if (before > 0) {
      if (!values.force) {
        process.stderr.write(
          `seed: refusing to seed ${path}: the ledger already has ${before} entries. ` +
            `The sample is meant for an empty ledger; pass --force to append it anyway, or --db PATH for a new file.\n`,
        );
        return 1;
      }
      let lastTs = "";
      for await (const e of ledger.entries(before - 1, before)) lastTs = e.ts;
      const first = cycleStart(1).toISOString();
      if (lastTs > first) {
        process.stderr.write(
          `seed: cannot append the sample to ${shownLocation(path)}: its last entry is at ${lastTs}, and the sample starts at ${first}; ` +
            `an append-only ledger never takes an earlier timestamp. Seed a new file with --db PATH.\n`,
        );
        return 1;
      }
    }

    const counts = new Map<string, number>();
    let batch: NewEvent[] = [];
    let written = 0;
    let lastTs = "";
    const started = performance.now();
    const flush = async () => {
      if (batch.length === 0) return;
      await ledger.appendBulk(batch);
      written += batch.length;
      batch = [];
    };
    for (const event of simulate({ seed, size, now })) {
      counts.set(event.type, (counts.get(event.type) ?? 0) + 1);
      lastTs = event.ts ?? lastTs;
      batch.push(event);
      if (batch.length >= BATCH) await flush();
    }
    await flush();
    const note = await ledger.checkpoint();
    const seconds = (performance.now() - started) / 1000;

    const out = process.stdout;
    out.write(
      `seed: wrote ${written} SAMPLE events to ${shownLocation(path)}${existed ? "" : " (new file)"} in ${seconds.toFixed(1)} s\n`,
    );
    out.write(`  seed "${seed}", size ${size} (scale ${plan.scale.toFixed(3)}), now ${now.toISOString()}\n`);
    out.write(`  cycles C-${plan.firstCycle}..C-${plan.lastCycle}, ${cycleStart(1).toISOString()} .. ${lastTs}\n`);
    out.write(
      `  sentinels: ${plan.sentinels
        .filter((s) => s.registerCycle <= plan.lastCycle)
        .map((s) => `${s.spec.id} (${s.spec.cathedral})`)
        .join(", ")}\n`,
    );
    out.write(`  events by type:\n`);
    for (const type of [...counts.keys()].sort())
      out.write(`    ${type.padEnd(22)} ${String(counts.get(type)).padStart(8)}\n`);
    out.write(`  ledger size ${await ledger.size()}, root ${formatDigest(await ledger.rootHash())}\n`);
    out.write(`  checkpoint signed by ${key.name} (key from ${key.source}):\n`);
    out.write(note.replace(/^(?=.)/gm, "    ").replace(/\s+$/, "") + "\n");
    out.write(
      `  note: sentinel and identity keys are SAMPLE keys derived from the seed (pipeline/seed/sample-keys.ts)\n`,
    );
    return 0;
  } finally {
    await ledger.close();
  }
}

try {
  process.exitCode = await main(process.argv.slice(2));
} catch (error) {
  process.stderr.write(
    `seed: ${error instanceof UsageError ? error.message : ((error as Error).stack ?? String(error))}\n`,
  );
  process.exitCode = 2;
}
