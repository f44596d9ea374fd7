/**
 * The AsyncAPI 3.0 description of the simulation WebSocket, served at `/asyncapi.json`: the
 * channel, its three messages and their payloads, generated from the same zod schemas that check
 * the messages (core/schemas/philosophy.ts), never hand-edited. Payloads are AsyncAPI Schema
 * objects (JSON Schema draft-07, AsyncAPI 3.0's default schema format); the same schemas are also
 * published in draft 2020-12 under data/schemas/philosophy/. The bounds in the descriptions are
 * the configured ones. Deterministic: the same limits give the same document.
 */
import { z } from "zod";
import {
  SCENARIO_MAX_LENGTH,
  SIMULATION_ERRORS,
  SimulationError,
  SimulationRequest,
  SimulationUpdate,
} from "../../core/schemas/index.ts";
import { DEFAULT_SIMULATION_LIMITS, SIMULATION_PATH, type SimulationLimits } from "./session.ts";

export const ASYNCAPI_PATH = "/asyncapi.json";

type Json = Record<string, unknown>;

function payloadSchema(schema: z.ZodType): Json {
  const { $schema: _ignored, ...rest } = z.toJSONSchema(schema, {
    target: "draft-7",
    io: "output",
    unrepresentable: "throw",
    reused: "inline",
  }) as Json;
  return rest;
}

const digest = `sha256:${"5e".repeat(32)}`;

/** Example messages (checked against their schemas by the tests). */
export const EXAMPLES = {
  request: { action: "start_simulation", scenario: "Weigh transparency against privacy in the audit export" },
  update: {
    type: "simulation_update",
    scenario: "Weigh transparency against privacy in the audit export",
    sentinels: [
      { id: "EVE", cathedral: "FOR-PHILOSOPHERS", position: "support", stance: 0.7412, influence: 0.5124 },
      { id: "SOLON", cathedral: "FOR-GOVERNMENTS", position: "conditional", stance: 0.3308, influence: 0.4876 },
    ],
    current_state: {
      round: 1,
      max_rounds: 50,
      phase: "deliberating",
      agreement: 0.5,
      opposition: 0,
      mean_stance: 0.541,
      movement: 0.0523,
      outcome: null,
      end_reason: null,
      excluded: ["MINERVA"],
      inputs: { deliberations: digest, virtues: digest, sentinel_status: digest },
    },
    next_actions: [
      { sentinel: "EVE", action: "lean_oppose", position: "support" },
      { sentinel: "SOLON", action: "lean_support", position: "conditional" },
    ],
  },
  error: {
    type: "error",
    code: "malformed-message",
    message: "scenario: Too small: expected string to have >=1 characters",
  },
} as const;

export function simulationAsyncApi(limits: SimulationLimits = DEFAULT_SIMULATION_LIMITS, version = "1.0.0"): Json {
  const closeCodes = (Object.entries(SIMULATION_ERRORS) as [string, number | null][])
    .map(([code, close]) => `| \`${code}\` | ${close === null ? "none: the connection stays open" : close} |`)
    .join("\n");
  const channelDescription = [
    "Start a simulation with one `start_simulation` message; the server answers with one `simulation_update` per round",
    "(round 0 is the opening, the last message has `current_state.phase` `final` with the outcome), or with an `error`.",
    "The same scenario against the same published data gives the same stream, byte for byte.",
    "",
    "**Handshake.** `GET` with `Upgrade: websocket` on the API's own host and port. A page may open it only from the same",
    "origin or from an origin on the server's allow-list (`Origin` checked; 403 otherwise). Opening a connection counts one",
    "request against the philosophy area's daily quota (100 a day anonymous; academic and institutional keys as for the area",
    "files, `Authorization: Bearer <key>` where the client can send headers); the 101 carries the `RateLimit` fields and a",
    "spent quota is refused with 429. Refusals are HTTP statuses: 426 (not an upgrade), 403 (origin), 429 (connections or",
    "quota), 503 (the published inputs failed verification).",
    "",
    "**Bounds.**",
    `- a client message has at most ${limits.maxMessageBytes} bytes; the scenario at most ${SCENARIO_MAX_LENGTH} characters;`,
    "- one running simulation per connection; each further simulation on the same connection counts one more request;",
    `- at most ${limits.maxConnectionsPerClient} open connections per client (its key, or else its IP address);`,
    `- idle timeout ${Math.round(limits.idleTimeoutMs / 1000)} s without a simulation;`,
    `- at most ${limits.maxRounds} rounds, one every ${limits.roundIntervalMs} ms;`,
    `- a reader that leaves more than ${limits.maxBufferedBytes} bytes unread for ${Math.round(limits.stallTimeoutMs / 1000)} s is disconnected.`,
    "",
    "**Errors and close codes.** An error message is followed by a close frame with this code:",
    "",
    "| code | close code |",
    "|---|---|",
    closeCodes,
  ].join("\n");

  const ref = (path: string) => ({ $ref: path });
  return {
    asyncapi: "3.0.0",
    info: {
      title: "Integrity Platform: philosophy simulation",
      version,
      description:
        "The philosophy sentinels deliberate a scenario in rounds: each starts from its past positions on similar topics " +
        "(philosophy/deliberations.json), and stances move by virtue-weighted influence (philosophy/virtues.json) until " +
        "they are unanimous, settle, or reach the round limit. Sentinels with an office integrity (their performance.gi_score) below 0.95 (government/sentinel-status.json) " +
        "do not take part. The HTTP routes are described in /openapi.json.",
      license: { name: "CC-BY-4.0", url: "https://creativecommons.org/licenses/by/4.0/" },
    },
    defaultContentType: "application/json",
    servers: {
      production: {
        host: "integrity-platform.example",
        protocol: "wss",
        description:
          "Behind a TLS-terminating reverse proxy that forwards the Upgrade to the API (see docs/simulation.md).",
      },
      local: {
        host: "127.0.0.1:4321",
        protocol: "ws",
        description: "`npm start`: the API and the portal on one port.",
      },
    },
    channels: {
      simulation: {
        address: SIMULATION_PATH,
        title: "Philosophy simulation",
        description: channelDescription,
        messages: {
          startSimulation: ref("#/components/messages/startSimulation"),
          simulationUpdate: ref("#/components/messages/simulationUpdate"),
          simulationError: ref("#/components/messages/simulationError"),
        },
        bindings: {
          ws: {
            method: "GET",
            headers: {
              type: "object",
              properties: {
                Origin: {
                  type: "string",
                  description: "Sent by browsers; must be the server's own origin or an allowed one.",
                },
                Authorization: {
                  type: "string",
                  pattern: "^Bearer \\S+$",
                  description: "An API key (optional); its tier sets the daily quota.",
                },
              },
            },
            bindingVersion: "0.1.0",
          },
        },
      },
    },
    operations: {
      startSimulation: {
        action: "receive",
        channel: ref("#/channels/simulation"),
        title: "Start a simulation",
        summary: "The client asks the council to deliberate a scenario.",
        messages: [ref("#/channels/simulation/messages/startSimulation")],
        reply: {
          channel: ref("#/channels/simulation"),
          messages: [
            ref("#/channels/simulation/messages/simulationUpdate"),
            ref("#/channels/simulation/messages/simulationError"),
          ],
        },
      },
      sendSimulationUpdate: {
        action: "send",
        channel: ref("#/channels/simulation"),
        title: "Send a round",
        summary: "One message per round, the last with phase final.",
        messages: [ref("#/channels/simulation/messages/simulationUpdate")],
      },
      sendSimulationError: {
        action: "send",
        channel: ref("#/channels/simulation"),
        title: "Send an error",
        summary: "A refused message; the close frame that follows (if any) carries the close code of its error code.",
        messages: [ref("#/channels/simulation/messages/simulationError")],
      },
    },
    components: {
      messages: {
        startSimulation: {
          name: "start_simulation",
          title: "Start simulation",
          contentType: "application/json",
          payload: ref("#/components/schemas/SimulationRequest"),
          examples: [{ name: "scenario", payload: EXAMPLES.request }],
        },
        simulationUpdate: {
          name: "simulation_update",
          title: "Simulation update",
          contentType: "application/json",
          payload: ref("#/components/schemas/SimulationUpdate"),
          examples: [{ name: "round", payload: EXAMPLES.update }],
        },
        simulationError: {
          name: "error",
          title: "Error",
          contentType: "application/json",
          payload: ref("#/components/schemas/SimulationError"),
          examples: [{ name: "malformed", payload: EXAMPLES.error }],
        },
      },
      schemas: {
        SimulationRequest: payloadSchema(SimulationRequest),
        SimulationUpdate: payloadSchema(SimulationUpdate),
        SimulationError: payloadSchema(SimulationError),
      },
    },
  };
}
