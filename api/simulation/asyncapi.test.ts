import { createRequire } from "node:module";
import { Ajv } from "ajv";
import addFormats from "ajv-formats";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { SimulationError, SimulationRequest, SimulationUpdate } from "../../core/schemas/index.ts";
import { EXAMPLES, simulationAsyncApi } from "./asyncapi.ts";
import { startServer, type RunningServer } from "../server/server.ts";
import { DEFAULT_SIMULATION_LIMITS } from "./session.ts";

// The official AsyncAPI 3.0.0 JSON Schema (draft-07), from @asyncapi/specs.
const specs = createRequire(import.meta.url)("@asyncapi/specs") as { schemas: Record<string, object> };
// The specification's schema carries its own copy of the draft-07 meta-schema: an instance without
// the built-in one takes it.
const specAjv = new Ajv({ strict: false, allErrors: true, meta: false, validateSchema: false });
addFormats.default(specAjv);
const validAsyncApi = specAjv.compile(specs.schemas["3.0.0"]!);
const ajv = new Ajv({ strict: true, allErrors: true });

let server: RunningServer;
beforeAll(async () => {
  server = await startServer({
    host: "127.0.0.1",
    port: 0,
    dataDir: "/nonexistent",
    log: () => {},
    simulation: { maxRounds: 7 },
  });
});
afterAll(() => server.close());

type Doc = {
  asyncapi: string;
  channels: { simulation: { address: string; description: string; messages: Record<string, unknown> } };
  operations: Record<string, { action: string }>;
  components: {
    messages: Record<string, { payload: { $ref: string }; examples: { payload: unknown }[] }>;
    schemas: Record<string, object>;
  };
};

describe("GET /asyncapi.json", () => {
  it("serves a valid AsyncAPI 3.0 document with an ETag (304 when unchanged)", async () => {
    const res = await fetch(`${server.url}/asyncapi.json`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/json; charset=utf-8");
    const doc = (await res.json()) as Doc;
    expect(validAsyncApi(doc), JSON.stringify(validAsyncApi.errors, null, 1)).toBe(true);
    expect(doc.asyncapi).toBe("3.0.0");
    expect(doc.channels.simulation.address).toBe("/philosophy/simulation");
    // The configured bounds, not the defaults.
    expect(doc.channels.simulation.description).toContain("at most 7 rounds");
    const again = await fetch(`${server.url}/asyncapi.json`, {
      headers: { "If-None-Match": res.headers.get("etag")! },
    });
    expect(again.status).toBe(304);
  });

  it("describes the three messages with payloads generated from the zod schemas", () => {
    const doc = simulationAsyncApi(DEFAULT_SIMULATION_LIMITS) as unknown as Doc;
    const expected = { SimulationRequest, SimulationUpdate, SimulationError };
    for (const [name, schema] of Object.entries(expected)) {
      const { $schema: _s, ...generated } = z.toJSONSchema(schema, {
        target: "draft-7",
        io: "output",
        reused: "inline",
      }) as Record<string, unknown>;
      expect(doc.components.schemas[name]).toEqual(generated);
    }
    expect(Object.keys(doc.channels.simulation.messages)).toEqual([
      "startSimulation",
      "simulationUpdate",
      "simulationError",
    ]);
    expect(Object.fromEntries(Object.entries(doc.operations).map(([k, v]) => [k, v.action]))).toEqual({
      startSimulation: "receive",
      sendSimulationUpdate: "send",
      sendSimulationError: "send",
    });
    // Every example is valid against its payload schema (ajv) and its zod schema.
    for (const message of Object.values(doc.components.messages)) {
      const schema = doc.components.schemas[message.payload.$ref.split("/").at(-1)!]!;
      const validate = ajv.compile(schema);
      for (const example of message.examples)
        expect(validate(example.payload), JSON.stringify(validate.errors)).toBe(true);
    }
    expect(SimulationRequest.parse(EXAMPLES.request)).toEqual(EXAMPLES.request);
    expect(SimulationUpdate.parse(EXAMPLES.update)).toEqual(EXAMPLES.update);
    expect(SimulationError.parse(EXAMPLES.error)).toEqual(EXAMPLES.error);
  });

  it("is deterministic, and the validator refuses a broken document", () => {
    expect(JSON.stringify(simulationAsyncApi())).toBe(JSON.stringify(simulationAsyncApi()));
    const broken = structuredClone(simulationAsyncApi()) as unknown as Doc;
    broken.operations.startSimulation!.action = "publish";
    expect(validAsyncApi(broken)).toBe(false);
  });
});
