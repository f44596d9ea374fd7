/**
 * Answers a hostile origin gives, for tests of clients that must not hang or read without limit:
 * "stall" sends 200, its headers and one byte, then nothing, never ending; "endless" sends 200 and a
 * body that never ends (64 KiB chunks, as fast as the client reads). Neither declares a length, so a
 * client's cap must hold while reading. `sent` counts the body bytes written, to show how much a
 * client took before it stopped; `destroyAll` ends what is still open, so the server can close.
 */
import type { ServerResponse } from "node:http";

export type Hostile = "stall" | "endless";

export class HostileAnswers {
  /** Body bytes written per path. */
  readonly sent = new Map<string, number>();
  readonly #open = new Set<ServerResponse>();

  answer(path: string, res: ServerResponse, behaviour: Hostile, headers: Record<string, string> = {}): void {
    this.#open.add(res);
    res.on("close", () => this.#open.delete(res));
    res.writeHead(200, { "content-type": "application/octet-stream", ...headers });
    this.sent.set(path, 0);
    if (behaviour === "stall") {
      res.write("{");
      this.sent.set(path, 1);
      return;
    }
    const chunk = Buffer.alloc(64 * 1024, 0x61);
    const pump = () => {
      while (!res.destroyed) {
        this.sent.set(path, this.sent.get(path)! + chunk.length);
        if (!res.write(chunk)) return void res.once("drain", pump);
      }
    };
    pump();
  }

  destroyAll(): void {
    for (const res of this.#open) res.destroy();
  }
}
