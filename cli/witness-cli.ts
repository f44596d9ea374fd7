/**
 * `npm run witness -- <command>`: a C2SP tlog-witness, on its own (node:http and node:sqlite only).
 *
 *   serve --listen HOST:PORT --state DIR [--name NAME]
 *        serves `POST /add-checkpoint` (the submission prefix is the root); creates the witness key
 *        in DIR on first start (NAME then fixes its name: the key ID covers it). Prints
 *        `listening on http://HOST:PORT` once ready (PORT 0 picks a free port). One log line per
 *        request on stderr; refusals of signed checkpoints are also kept in DIR as evidence.
 *   vkey --state DIR [--name NAME]
 *        prints the witness's vkey (signature type 0x04) as the last line
 *   add-log --state DIR --vkey VKEY [--origin ORIGIN]
 *        follows a log from the next request on (ORIGIN defaults to the vkey's name)
 *   logs --state DIR      the logs followed and the latest size cosigned of each
 *   refusals --state DIR  the refused requests kept as evidence
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { parseArgs } from "node:util";
import { MAX_BODY_BYTES } from "../core/witness/add-checkpoint.ts";
import { WitnessState } from "../store/witness-state.ts";

const USAGE =
  "usage: npm run witness -- serve --listen HOST:PORT --state DIR [--name NAME] | vkey --state DIR | add-log --state DIR --vkey VKEY [--origin ORIGIN] | logs --state DIR | refusals --state DIR";

function fail(message: string): never {
  process.stderr.write(`witness: ${message}\n`);
  process.exit(2);
}

function listenAddress(listen: string): { host: string; port: number } {
  const m = /^(\[[0-9a-fA-F:.]+\]|[^:\s]+):(\d{1,5})$/.exec(listen);
  if (!m || Number(m[2]) > 65535) fail(`--listen must be HOST:PORT, got ${JSON.stringify(listen)}`);
  return { host: m[1]!.replace(/^\[|\]$/g, ""), port: Number(m[2]) };
}

async function readBody(req: IncomingMessage): Promise<Uint8Array | null> {
  const declared = Number(req.headers["content-length"] ?? "0");
  if (declared > MAX_BODY_BYTES) return null;
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) return null;
    chunks.push(chunk);
  }
  return new Uint8Array(Buffer.concat(chunks));
}

function reply(res: ServerResponse, status: number, contentType: string, body: string, close = false): void {
  res.writeHead(status, {
    "Content-Type": contentType,
    "Content-Length": Buffer.byteLength(body),
    ...(close ? { Connection: "close" } : {}),
  });
  res.end(body);
}

function serve(state: WitnessState, listen: string): void {
  const { host, port } = listenAddress(listen);
  const log = (line: string) => process.stderr.write(`${new Date().toISOString()} ${line}\n`);
  const server = createServer({ requestTimeout: 30_000, headersTimeout: 10_000 }, (req, res) => {
    void (async () => {
      const path = (req.url ?? "").split("?")[0];
      if (path !== "/add-checkpoint")
        return reply(res, 404, "text/plain; charset=utf-8", "not found: the witness serves POST /add-checkpoint\n");
      if (req.method !== "POST") {
        res.setHeader("Allow", "POST");
        return reply(res, 405, "text/plain; charset=utf-8", "add-checkpoint takes POST\n");
      }
      const body = await readBody(req);
      if (body === null) {
        log(`400 body over ${MAX_BODY_BYTES} bytes from ${req.socket.remoteAddress}`);
        return reply(res, 400, "text/plain; charset=utf-8", `body over ${MAX_BODY_BYTES} bytes\n`, true);
      }
      const out = state.addCheckpoint(body, Math.floor(Date.now() / 1000));
      const origin = JSON.stringify(
        new TextDecoder().decode(body.subarray(0, 2048)).split("\n\n")[1]?.split("\n")[0] ?? "",
      );
      log(`${out.status} ${origin}${out.reason ? ` ${out.reason}` : ""}`);
      reply(res, out.status, out.contentType, out.body);
    })().catch((error: unknown) => {
      log(`500 ${(error as Error).message}`);
      if (!res.headersSent) reply(res, 500, "text/plain; charset=utf-8", "internal error\n");
      else res.destroy();
    });
  });
  server.keepAliveTimeout = 60_000;
  server.listen(port, host, () => {
    const addr = server.address();
    const bound = typeof addr === "object" && addr ? addr.port : port;
    const shown = host.includes(":") ? `[${host}]` : host;
    process.stdout.write(`witness ${state.name} (${state.vkey()})\nlistening on http://${shown}:${bound}\n`);
  });
  const stop = () =>
    server.close(() => {
      state.close();
      process.exit(0);
    });
  process.on("SIGTERM", stop);
  process.on("SIGINT", stop);
}

function main(argv: string[]): void {
  const { values, positionals } = parseArgs({
    args: argv,
    options: {
      listen: { type: "string" },
      state: { type: "string" },
      name: { type: "string" },
      vkey: { type: "string" },
      origin: { type: "string" },
    },
    allowPositionals: true,
    strict: true,
  });
  const [command] = positionals;
  if (!command || positionals.length > 1) fail(USAGE);
  if (!values.state) fail(`--state DIR is required\n${USAGE}`);
  if (command === "serve") listenAddress(values.listen ?? fail("serve needs --listen HOST:PORT"));
  const state = new WitnessState(values.state, values.name);
  switch (command) {
    case "serve":
      return serve(state, values.listen!);
    case "vkey":
      console.log(state.vkey());
      break;
    case "add-log": {
      if (!values.vkey) fail("add-log needs --vkey VKEY (the log's signed-note verifier key)");
      const { origin } = state.addLog(values.vkey, values.origin);
      console.log(`following ${origin} (${values.vkey.trim()})`);
      break;
    }
    case "logs":
      for (const { origin, vkey } of state.logs())
        console.log(`${origin} ${vkey} ${state.latest(origin)?.size ?? "-"}`);
      break;
    case "refusals":
      for (const r of state.refusals()) console.log(JSON.stringify(r));
      break;
    default:
      fail(`unknown command ${JSON.stringify(command)}\n${USAGE}`);
  }
  state.close();
}

try {
  main(process.argv.slice(2));
} catch (error) {
  fail((error as Error).message);
}
