/**
 * One connection of the simulation WebSocket: a small state machine between the socket and the
 * pure simulation (core/philosophy/simulation.ts) that enforces the per-connection bounds — message
 * size and kind, one running simulation, the daily quota, the idle timeout, rounds, and backpressure
 * (a reader that stays behind is cut off, so a connection never holds more than maxBufferedBytes
 * plus one message). The bounds and their close codes: docs/simulation.md.
 */
import { socketPath } from "../../core/areas/declaration.ts";
import { philosophy } from "../../core/areas/philosophy.ts";
import { jsonDepthWithin, MAX_JSON_DEPTH } from "../../core/json-depth.ts";
import type { z } from "zod";
import type { Council } from "../../core/philosophy/council.ts";
import { MAX_ROUNDS_LIMIT, simulate } from "../../core/philosophy/simulation.ts";
import {
  SIMULATION_ERRORS,
  SimulationRequest,
  type SimulationErrorCode,
  type SimulationUpdate,
} from "../../core/schemas/index.ts";
import { echo } from "../problems/problem.ts";
import { formatIssues } from "../../core/zod-issues.ts";

/** Where the WebSocket is mounted, as the philosophy area declares it (the route and the AsyncAPI document both name it). */
export const SIMULATION_PATH = socketPath(philosophy, "simulation");

export interface SimulationLimits {
  /** Largest client message, in bytes of UTF-8. */
  maxMessageBytes: number;
  /** Simultaneous connections of one client (its key, or else its IP address). */
  maxConnectionsPerClient: number;
  idleTimeoutMs: number;
  maxRounds: number;
  /** Pause between two rounds, so that a person can watch them arrive (0: as fast as the socket drains). */
  roundIntervalMs: number;
  /** Unsent bytes a connection may hold before the simulation waits. */
  maxBufferedBytes: number;
  /** How long a connection may stay over maxBufferedBytes before it is cut off. */
  stallTimeoutMs: number;
}

/** Throws naming a limit that is not a sensible number (checked once, when the app is created). */
export function checkLimits(limits: SimulationLimits): SimulationLimits {
  for (const [name, value] of Object.entries(limits)) {
    const least = name === "roundIntervalMs" ? 0 : 1;
    if (!Number.isSafeInteger(value) || value < least)
      throw new RangeError(`simulation limit ${name} must be an integer >= ${least}, not ${value}`);
  }
  if (limits.maxRounds > MAX_ROUNDS_LIMIT)
    throw new RangeError(`simulation limit maxRounds must be at most ${MAX_ROUNDS_LIMIT}`);
  return limits;
}

export const DEFAULT_SIMULATION_LIMITS: SimulationLimits = {
  maxMessageBytes: 4096,
  maxConnectionsPerClient: 4,
  idleTimeoutMs: 60_000,
  maxRounds: 50,
  roundIntervalMs: 250,
  maxBufferedBytes: 64 * 1024,
  stallTimeoutMs: 30_000,
};

/** The socket as the session uses it (a `ws` WebSocket has all of this). */
export interface SessionSocket {
  readonly bufferedAmount: number;
  send(text: string, done: (error?: Error) => void): void;
  close(code: number, reason: string): void;
  terminate(): void;
}

export interface SessionDeps {
  limits: SimulationLimits;
  council: () => { ok: true; council: Council } | { ok: false; reason: string };
  /**
   * Takes one request from the client's daily quota for a further simulation; false when spent.
   * Rejects when the limits store fails (the connection is then closed with `limits-unavailable`).
   */
  charge: () => boolean | Promise<boolean>;
  log: (event: string, fields: Record<string, unknown>) => void;
}

function describeIssues(error: z.ZodError): string {
  return formatIssues(
    error.issues.slice(0, 3).map((issue) => ({ path: issue.path, message: echo(issue.message, 120) })),
    "message",
  );
}

export class SimulationSession {
  readonly #socket: SessionSocket;
  readonly #deps: SessionDeps;
  #run: Generator<SimulationUpdate, void, undefined> | null = null;
  #closing = false;
  /** Why the server ended the connection (an error code, or slow-consumer), for the log. */
  #endedBy: string | null = null;
  #simulations = 0;
  /** A further simulation waits for its quota (counts as running: a second start is refused). */
  #charging = false;
  #maxBuffered = 0;
  #waitingForDrain = false;
  #idle: NodeJS.Timeout | undefined;
  #stall: NodeJS.Timeout | undefined;
  #pace: NodeJS.Timeout | undefined;

  constructor(socket: SessionSocket, deps: SessionDeps) {
    this.#socket = socket;
    this.#deps = deps;
  }

  open(): void {
    this.#armIdle();
  }

  receive(data: string | ArrayBuffer): void {
    if (this.#closing) return;
    const { limits } = this.#deps;
    if (typeof data !== "string")
      return this.#fail("unsupported-message", "binary frames are not accepted; send the JSON message as text");
    const bytes = Buffer.byteLength(data, "utf8");
    if (bytes > limits.maxMessageBytes)
      return this.#fail(
        "message-too-large",
        `a message may have at most ${limits.maxMessageBytes} bytes; this one has ${bytes}`,
      );
    if (!jsonDepthWithin(data))
      return this.#fail("malformed-message", `the message nests arrays and objects more than ${MAX_JSON_DEPTH} deep`);
    let value: unknown;
    try {
      value = JSON.parse(data);
    } catch {
      return this.#fail("malformed-message", "the message is not JSON");
    }
    const action =
      typeof value === "object" && value !== null && !Array.isArray(value)
        ? (value as { action?: unknown }).action
        : undefined;
    if (typeof action === "string" && action !== "start_simulation") {
      return this.#fail(
        "unsupported-message",
        `unknown action ${JSON.stringify(echo(action, 64))}; the only action is start_simulation`,
      );
    }
    const parsed = SimulationRequest.safeParse(value);
    if (!parsed.success) return this.#fail("malformed-message", describeIssues(parsed.error));
    if (this.#run || this.#charging) {
      this.#sendError(
        "simulation-running",
        "a simulation is already running on this connection; wait for its final message",
      );
      return;
    }
    const council = this.#deps.council();
    if (!council.ok) return this.#fail("data-unverified", council.reason);
    if (this.#simulations === 0) return this.#start(council.council, parsed.data.scenario);
    this.#charging = true;
    Promise.resolve()
      .then(() => this.#deps.charge())
      .then(
        (allowed) => {
          this.#charging = false;
          if (this.#closing) return;
          if (!allowed)
            return this.#fail("rate-limited", "the philosophy area's daily quota is spent; it resets at 00:00 UTC");
          this.#start(council.council, parsed.data.scenario);
        },
        () => {
          this.#charging = false;
          if (!this.#closing)
            this.#fail("limits-unavailable", "the request limits cannot be checked right now; try again later");
        },
      );
  }

  #start(council: Council, scenario: string): void {
    const { limits } = this.#deps;
    this.#simulations += 1;
    this.#disarmIdle();
    this.#run = simulate(council, scenario, { maxRounds: limits.maxRounds });
    this.#deps.log("simulation.started", { scenario_chars: scenario.length, simulation: this.#simulations });
    this.#pump();
  }

  /** The socket closed (either side): stop everything. */
  closed(code: number, reason: string): void {
    this.#closing = true;
    this.#run = null;
    clearTimeout(this.#idle);
    clearTimeout(this.#stall);
    clearTimeout(this.#pace);
    this.#deps.log("simulation.closed", {
      code,
      reason,
      ended_by: this.#endedBy,
      simulations: this.#simulations,
      max_buffered_bytes: this.#maxBuffered,
    });
  }

  /** Sends rounds until the simulation ends, the socket is full, or the pace asks for a pause. */
  readonly #pump = (): void => {
    try {
      this.#pumpRounds();
    } catch (error) {
      // Never let one connection's failure reach the process (the pump also runs from timers).
      this.#deps.log("simulation.internal-error", { error: String((error as Error)?.message ?? error) });
      this.#run = null;
      try {
        this.#fail("internal-error", "the simulation failed on the server; it has been logged");
      } catch {
        this.#socket.terminate();
      }
    }
  };

  #pumpRounds(): void {
    this.#pace = undefined;
    const { limits } = this.#deps;
    while (this.#run && !this.#closing) {
      if (this.#socket.bufferedAmount > limits.maxBufferedBytes) return this.#awaitDrain();
      const next = this.#run.next();
      if (next.done) {
        this.#run = null;
        this.#armIdle();
        return;
      }
      this.#transmit(JSON.stringify(next.value));
      const state = next.value.current_state;
      if (state.phase === "final") {
        this.#run = null;
        this.#deps.log("simulation.finished", {
          rounds: state.round,
          outcome: state.outcome,
          end_reason: state.end_reason,
        });
        this.#armIdle();
        return;
      }
      if (limits.roundIntervalMs > 0) {
        this.#pace = setTimeout(this.#pump, limits.roundIntervalMs).unref();
        return;
      }
    }
  }

  #transmit(text: string): void {
    this.#socket.send(text, this.#sent);
    const buffered = this.#socket.bufferedAmount;
    if (buffered > this.#maxBuffered) this.#maxBuffered = buffered;
  }

  /** A write reached the kernel: resume if the simulation was waiting for room. */
  readonly #sent = (error?: Error): void => {
    if (error || !this.#waitingForDrain || this.#closing) return;
    if (this.#socket.bufferedAmount > this.#deps.limits.maxBufferedBytes) return;
    this.#waitingForDrain = false;
    clearTimeout(this.#stall);
    this.#stall = undefined;
    if (this.#pace === undefined) this.#pump();
  };

  #awaitDrain(): void {
    if (!this.#waitingForDrain) this.#deps.log("simulation.waiting", { buffered_bytes: this.#socket.bufferedAmount });
    this.#waitingForDrain = true;
    this.#stall ??= setTimeout(() => this.#cutOff(), this.#deps.limits.stallTimeoutMs).unref();
  }

  /** A reader too slow to keep up: destroy the socket rather than queue for it. */
  #cutOff(): void {
    if (this.#closing) return;
    this.#closing = true;
    this.#endedBy = "slow-consumer";
    this.#run = null;
    this.#deps.log("simulation.slow-consumer", {
      buffered_bytes: this.#socket.bufferedAmount,
      max_buffered_bytes: this.#maxBuffered,
    });
    this.#socket.terminate();
  }

  /** Sends an error message unless the reader is already too far behind (then cuts it off). */
  #sendError(code: SimulationErrorCode, message: string): boolean {
    if (this.#socket.bufferedAmount > this.#deps.limits.maxBufferedBytes) {
      this.#cutOff();
      return false;
    }
    this.#transmit(JSON.stringify({ type: "error", code, message }));
    this.#deps.log("simulation.error", { code });
    return true;
  }

  /** Sends the error, then closes with the code's close code. */
  #fail(code: SimulationErrorCode, message: string): void {
    if (this.#closing) return;
    if (!this.#sendError(code, message)) return;
    this.#closing = true;
    this.#endedBy = code;
    this.#run = null;
    clearTimeout(this.#idle);
    clearTimeout(this.#pace);
    this.#socket.close(SIMULATION_ERRORS[code] ?? 1008, code);
  }

  #armIdle(): void {
    clearTimeout(this.#idle);
    this.#idle = setTimeout(() => {
      if (!this.#run && !this.#charging)
        this.#fail(
          "idle-timeout",
          `no simulation was started for ${Math.round(this.#deps.limits.idleTimeoutMs / 1000)} s`,
        );
    }, this.#deps.limits.idleTimeoutMs).unref();
  }

  #disarmIdle(): void {
    clearTimeout(this.#idle);
    this.#idle = undefined;
  }
}
