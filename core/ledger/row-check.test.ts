/** A stored row checked against itself (core/ledger/row-check.ts): what a writer refuses to fold or sign over. */
import { describe, expect, it } from "vitest";
import { sealEntry, type JsonObject } from "./entry.ts";
import { validateEvent } from "../events/registry.ts";
import { storedRowProblem, type StoredRow } from "./row-check.ts";

function row(payload: JsonObject = { reason: "test" }, type = "x.test"): StoredRow {
  const sealed = sealEntry({
    seq: 3,
    type,
    payload,
    ts: "2026-01-01T00:00:00.000Z",
    prev: `sha256:${"cd".repeat(32)}`,
  });
  const e = sealed.entry;
  return {
    seq: e.seq,
    type: e.type,
    payload: sealed.payloadText,
    ts: e.ts,
    prev: e.prev,
    hash: e.hash,
    leaf: new Uint8Array(sealed.leafHash),
  };
}

describe("a stored row", () => {
  it("sealed by this code verifies", () => {
    expect(storedRowProblem(row())).toBeNull();
  });

  it.each<[string, (r: StoredRow) => StoredRow, RegExp]>([
    ["a payload that is not JSON", (r) => ({ ...r, payload: "{not json" }), /not JSON/],
    ["a payload that is not an object", (r) => ({ ...r, payload: "[1]" }), /not a JSON object/],
    ["a payload not in canonical form", (r) => ({ ...r, payload: '{ "reason":"test"}' }), /canonical/],
    [
      "another payload under the same hash",
      (r) => ({ ...r, payload: '{"reason":"tampered"}' }),
      /is not the hash of its content/,
    ],
    [
      "another time under the same hash",
      (r) => ({ ...r, ts: "2026-01-01T00:00:00.001Z" }),
      /is not the hash of its content/,
    ],
    ["a time that is no ledger timestamp", (r) => ({ ...r, ts: "yesterday" }), /ISO 8601/],
    [
      "another prev under the same hash",
      (r) => ({ ...r, prev: `sha256:${"ef".repeat(32)}` }),
      /is not the hash of its content/,
    ],
    ["a leaf of other bytes", (r) => ({ ...r, leaf: new Uint8Array(32).fill(7) }), /Merkle leaf/],
    ["a short leaf", (r) => ({ ...r, leaf: r.leaf.slice(0, 31) }), /Merkle leaf/],
  ])("with %s is refused", (_, tamper, problem) => {
    expect(storedRowProblem(tamper(row()))).toMatch(problem);
  });

  it("whose event is not valid for its type is refused when events are validated", () => {
    const unknown = row({ reason: "test" }, "no.such.event");
    expect(storedRowProblem(unknown)).toBeNull();
    expect(storedRowProblem(unknown, validateEvent)).toMatch(/its event is invalid/);
  });
});
