import { describe, expect, it } from "vitest";
import { NoteError } from "./checkpoint.ts";
import { CodedError, hasCode } from "./errors.ts";
import { LedgerAppendError } from "./ledger/store.ts";

describe("CodedError", () => {
  it("carries its domain's code and its subclass's name", () => {
    const error = new NoteError("bad-signature", "the signature does not verify");
    expect(error).toBeInstanceOf(CodedError);
    expect(error).toBeInstanceOf(Error);
    expect(error.code).toBe("bad-signature");
    expect(error.name).toBe("NoteError");
    expect(String(error)).toBe("NoteError: the signature does not verify");
    expect(hasCode(error, "bad-signature")).toBe(true);
    expect(hasCode(error, "malformed")).toBe(false);
    expect(hasCode(new Error("plain"), "bad-signature")).toBe(false);
  });

  it("keeps what a subclass adds (the refused event's index of an append)", () => {
    const error = new LedgerAppendError(2, "not a known event type");
    expect(error).toBeInstanceOf(CodedError);
    expect([error.code, error.index, error.name, error.message]).toEqual([
      "invalid-event",
      2,
      "LedgerAppendError",
      "event 2: not a known event type",
    ]);
  });
});
