import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { tempDir } from "../test/support/store/helpers.ts";
import { openFileWriter } from "./file-writer.ts";

let dir: string;
let cleanup: () => void;
beforeEach(() => ({ dir, cleanup } = tempDir("file-writer-")));
afterEach(() => cleanup());

const content = (i: number) => Buffer.from(`file ${i} `.repeat(1 + (i % 50)));
const files = (root: string) =>
  (readdirSync(root, { recursive: true }) as string[]).filter((rel) => !existsSync(join(root, rel, "."))).length;

describe.each([
  ["on this thread", false],
  ["on a helper thread", true],
])("writing many new files %s", (_, background) => {
  it("writes each file with its bytes, creating its folders, once finish returns", async () => {
    const writer = openFileWriter(background);
    await writer.whenReady();
    const root = join(dir, "tree");
    // More files than the helper may have queued, some handed over whole, some views of a shared buffer.
    const shared = Buffer.alloc(4096, 7);
    for (let i = 0; i < 1_200; i++)
      writer.write(
        join(root, String(i % 7), `x${i % 3}`, String(i)),
        i % 10 === 0 ? shared.subarray(i, i + 100) : new Uint8Array(content(i)),
      );
    writer.finish();
    for (let i = 0; i < 1_200; i++) {
      const bytes = readFileSync(join(root, String(i % 7), `x${i % 3}`, String(i)));
      expect(bytes.equals(i % 10 === 0 ? shared.subarray(i, i + 100) : content(i)), `file ${i}`).toBe(true);
    }
    expect(shared.length === 4096 && shared.every((b) => b === 7)).toBe(true); // a shared buffer is copied, never taken over
    expect(writer.handedOver).toBe(background ? 1_200 : 0);
  });

  it("writes every file whether or not the helper had started (no waiting for it first)", () => {
    const writer = openFileWriter(background);
    for (let i = 0; i < 1_100; i++) writer.write(join(dir, "soon", String(i)), new Uint8Array(content(i)));
    writer.finish();
    for (let i = 0; i < 1_100; i++)
      expect(readFileSync(join(dir, "soon", String(i))).equals(content(i)), `file ${i}`).toBe(true);
  });

  it("throws the file system's error when a write fails", async () => {
    writeFileSync(join(dir, "plain"), "a file, not a folder");
    const writer = openFileWriter(background);
    await writer.whenReady();
    writer.write(join(dir, "ok", "1"), content(1));
    const fail = () => {
      writer.write(join(dir, "plain", "2"), content(2));
      for (let i = 3; i < 400; i++) writer.write(join(dir, "later", String(i)), content(i));
      writer.finish();
    };
    expect(fail).toThrow(
      expect.objectContaining({ name: "FileWriteError", code: expect.stringMatching(/^(ENOTDIR|EEXIST)$/) }),
    );
    writer.abort();
    expect(readFileSync(join(dir, "ok", "1")).equals(content(1))).toBe(true);
  });

  it("writes nothing more once abort returns", async () => {
    const writer = openFileWriter(background);
    await writer.whenReady();
    const root = join(dir, "staged");
    for (let i = 0; i < 500; i++) writer.write(join(root, String(i)), content(i));
    writer.abort();
    // Every file handed over was written or skipped before abort returned: none is still to come.
    const handled = writer.handedOver;
    const written = existsSync(root) ? files(root) : 0;
    expect(written).toBeLessThanOrEqual(background ? handled : 500);
    rmSync(root, { recursive: true, force: true });
    const again = openFileWriter(background);
    again.write(join(dir, "marker"), content(0));
    again.finish();
    expect(writer.handedOver).toBe(handled);
    expect(existsSync(root)).toBe(false);
  });
});
