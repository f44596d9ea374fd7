/**
 * The simulation WebSocket's documented exchange for /docs: the AsyncAPI document's example
 * `start_simulation` message and the stream the server answers it with over this build's data.
 * The simulation is a pure function of (council, scenario, maximum rounds) (core/philosophy/
 * simulation.ts), so the stream is computed here exactly as the server computes it, from the same
 * three published files, at the server's default round limit. Build time only (reads files).
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { declaredOutput } from "../../../core/areas/declaration.ts";
import { government } from "../../../core/areas/government.ts";
import { philosophy } from "../../../core/areas/philosophy.ts";
import { sha256Hex } from "../../../core/digest.ts";
import { formCouncil } from "../../../core/philosophy/council.ts";
import { DEFAULT_MAX_ROUNDS, simulate } from "../../../core/philosophy/simulation.ts";
import { Deliberations, SentinelStatus, Virtues, type SimulationUpdate } from "../../../core/schemas/index.ts";

export interface SocketExchange {
  /** The client's message, as sent. */
  sent: string;
  /** The server's answer; null when this build's data has no philosophy or government area yet. */
  answer: {
    /** How many messages the server sends (one per round). */
    count: number;
    first: SimulationUpdate;
    final: SimulationUpdate;
  } | null;
}

/** The three published files the council is formed from (area, file). */
const INPUTS = [
  declaredOutput(philosophy, "deliberations.json"),
  declaredOutput(philosophy, "virtues.json"),
  declaredOutput(government, "sentinel-status.json"),
];

/** The example payload of the AsyncAPI document's `start_simulation` message. */
export function documentedStart(asyncApi: Record<string, unknown>): { action: string; scenario: string } {
  const messages =
    (
      asyncApi.components as
        { messages?: Record<string, { name?: string; examples?: { payload?: unknown }[] }> } | undefined
    )?.messages ?? {};
  const start = Object.values(messages).find((m) => m.name === "start_simulation");
  const payload = start?.examples?.[0]?.payload as { action: string; scenario: string } | undefined;
  if (!payload) throw new Error("the AsyncAPI document has no example start_simulation message");
  return payload;
}

/** The exchange over the data in `dataDir`. */
export function simulationExchange(dataDir: string, asyncApi: Record<string, unknown>): SocketExchange {
  type Read = { value: unknown; hash: string };
  const read = (area: string, path: string): Read => {
    const bytes = readFileSync(join(dataDir, "areas", area, path));
    return { value: JSON.parse(bytes.toString("utf8")) as unknown, hash: `sha256:${sha256Hex(bytes)}` };
  };
  const start = documentedStart(asyncApi);
  const sent = JSON.stringify(start);
  // A site built before those areas were generated documents the message, not an answer it cannot know.
  if (INPUTS.some(({ area, path }) => !existsSync(join(dataDir, "areas", area, path)))) return { sent, answer: null };
  const [deliberations, virtues, sentinels] = INPUTS.map(({ area, path }) => read(area, path)) as [Read, Read, Read];
  const council = formCouncil({
    deliberations: Deliberations.parse(deliberations.value),
    virtues: Virtues.parse(virtues.value),
    sentinelStatus: SentinelStatus.parse(sentinels.value),
    inputs: { deliberations: deliberations.hash, virtues: virtues.hash, sentinel_status: sentinels.hash },
  });
  const stream = [...simulate(council, start.scenario, { maxRounds: DEFAULT_MAX_ROUNDS })];
  return { sent, answer: { count: stream.length, first: stream[0]!, final: stream.at(-1)! } };
}
