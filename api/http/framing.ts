/**
 * HTTP/1.1 framing errors (RFC 9112) answered as problem+json at the server, before any request
 * reaches the app: what Node's parser refuses (400, 431, 408, instead of Node's empty answer), a
 * missing, repeated or malformed `Host`, a target that is neither origin-form nor absolute, and
 * `CONNECT` (405: an origin server, not a proxy). `OPTIONS *` answers 204. The cases: docs/api.md.
 */
import { randomUUID } from "node:crypto";
import type { IncomingMessage, RequestListener, Server, ServerResponse } from "node:http";
import type { Duplex } from "node:stream";
import { PROBLEM_CONTENT_TYPE, PROBLEM_TYPES, problemDetails, type ProblemSlug } from "../problems/problem.ts";

/** What a parser error code means for the client. */
function classify(code: string | undefined): { slug: ProblemSlug; detail: string } {
  switch (code) {
    case "HPE_HEADER_OVERFLOW":
      return { slug: "header-fields-too-large", detail: "The request line and header fields are larger than 16 KiB." };
    case "ERR_HTTP_REQUEST_TIMEOUT":
    case "ERR_HTTP_HEADERS_TIMEOUT":
      return { slug: "request-timeout", detail: "The request did not arrive completely in time." };
    case "HPE_INVALID_METHOD":
      return { slug: "bad-request", detail: "The request method is not one this server knows." };
    case "HPE_INVALID_URL":
      return {
        slug: "bad-request",
        detail:
          "The request target is malformed (it must be ASCII without spaces or control characters; percent-encode the rest).",
      };
    case "HPE_INVALID_CONTENT_LENGTH":
    case "HPE_UNEXPECTED_CONTENT_LENGTH":
      return {
        slug: "bad-request",
        detail: "Content-Length is malformed, repeated, or sent together with Transfer-Encoding.",
      };
    case "HPE_INVALID_TRANSFER_ENCODING":
    case "HPE_INVALID_CHUNK_SIZE":
      return {
        slug: "bad-request",
        detail: "Transfer-Encoding is malformed, does not end in chunked, or comes with Content-Length.",
      };
    case "HPE_CHUNK_EXTENSIONS_OVERFLOW":
      return { slug: "payload-too-large", detail: "Chunk extensions are larger than the server reads." };
    default:
      return { slug: "bad-request", detail: "The request is not valid HTTP/1.1." };
  }
}

const REASONS: Record<number, string> = {
  400: "Bad Request",
  408: "Request Timeout",
  413: "Content Too Large",
  431: "Request Header Fields Too Large",
};

/** The request target of the raw request line, when it is printable ASCII (for `instance`). */
function targetOf(rawPacket: unknown): string {
  if (!Buffer.isBuffer(rawPacket)) return "";
  const line = rawPacket.subarray(0, Math.min(rawPacket.length, 2048)).toString("latin1").split("\r\n", 1)[0] ?? "";
  const target = line.split(" ")[1] ?? "";
  return /^[\x21-\x7e]{1,1024}$/.test(target) ? target : "";
}

function problemText(slug: ProblemSlug, detail: string, instance: string): string {
  return JSON.stringify(problemDetails(slug, detail, instance));
}

/** Node's `clientError` event: a problem+json answer written straight to the socket, then closed. */
export function answerClientError(error: Error & { code?: string; rawPacket?: unknown }, socket: Duplex): void {
  if (error.code === "ECONNRESET" || !socket.writable) {
    socket.destroy();
    return;
  }
  const { slug, detail } = classify(error.code);
  const status = PROBLEM_TYPES[slug].status;
  const body = problemText(slug, detail, targetOf(error.rawPacket));
  socket.end(
    `HTTP/1.1 ${status} ${REASONS[status] ?? PROBLEM_TYPES[slug].title}\r\n` +
      `Content-Type: ${PROBLEM_CONTENT_TYPE}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
      `Cache-Control: no-store\r\nX-Request-Id: ${randomUUID()}\r\nConnection: close\r\n\r\n${body}`,
  );
}

/** host[:port]: a DNS name or IPv4 address, or an IP literal; the port at most 65535. */
const HOST = /^(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9._-]+)(?::([0-9]{1,5}))?$/;

/** The methods the server implements (for `OPTIONS *`). */
const SERVER_METHODS = "GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS";

function validHost(host: string): boolean {
  const match = HOST.exec(host);
  if (!match || (match[1] !== undefined && Number(match[1]) > 65535)) return false;
  try {
    // As the URL parser reads it, unchanged (no IPv4-in-IPv6 rewriting, no percent-decoding).
    const hostname = new URL(`http://${host}/`).hostname;
    return hostname === host.replace(/:[0-9]+$/, "").toLowerCase();
  } catch {
    return false;
  }
}

/** Why the request's Host field or target breaks RFC 9112 §3.2 / §3.2.1–4, or null. */
export function framingProblem(request: IncomingMessage): string | null {
  let count = 0;
  const raw = request.rawHeaders;
  for (let i = 0; i < raw.length; i += 2) if (raw[i]!.length === 4 && raw[i]!.toLowerCase() === "host") count += 1;
  if (count > 1) return "The request has more than one Host header field.";
  const host = request.headers.host;
  if (host === undefined) {
    if (request.httpVersion !== "1.0") return "An HTTP/1.1 request needs a Host header field.";
  } else if (!validHost(host)) {
    return "The Host header field is not host[:port].";
  }
  const target = request.url ?? "";
  if (target === "*") return request.method === "OPTIONS" ? null : "The asterisk-form target is for OPTIONS only.";
  if (target.startsWith("http://") || target.startsWith("https://")) {
    try {
      new URL(target);
    } catch {
      return "The absolute-form request target is not a valid URL.";
    }
  } else if (!target.startsWith("/")) {
    return "The request target must be a path starting with / (or an absolute URL).";
  }
  const backslash = target.indexOf("\\");
  const query = target.indexOf("?");
  if (backslash !== -1 && (query === -1 || backslash < query)) return "The request path contains a backslash.";
  return null;
}

function refuseRequest(request: IncomingMessage, response: ServerResponse, detail: string): void {
  const body = problemText("bad-request", detail, request.url ?? "");
  response.writeHead(400, {
    "Content-Type": PROBLEM_CONTENT_TYPE,
    "Content-Length": Buffer.byteLength(body),
    "Cache-Control": "no-store",
    "X-Request-Id": randomUUID(),
    Connection: "close",
  });
  response.end(body);
}

function refuseConnect(request: IncomingMessage, socket: Duplex): void {
  const body = problemText(
    "method-not-allowed",
    "CONNECT is not supported: this is an origin server, not a proxy.",
    "",
  );
  socket.end(
    `HTTP/1.1 405 Method Not Allowed\r\nAllow: \r\nContent-Type: ${PROBLEM_CONTENT_TYPE}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
      `Cache-Control: no-store\r\nX-Request-Id: ${randomUUID()}\r\nConnection: close\r\n\r\n${body}`,
  );
  request.resume();
}

function answerServerOptions(response: ServerResponse): void {
  response.writeHead(204, { Allow: SERVER_METHODS, "X-Request-Id": randomUUID() });
  response.end();
}

/** Installs the guards on a server whose request listener is already attached. */
export function guardHttpFraming(server: Server): void {
  server.on("clientError", answerClientError);
  server.on("connect", refuseConnect);
  // Node's own missing-Host refusal has an empty body; hostProblem answers it instead.
  (server as Server & { requireHostHeader: boolean }).requireHostHeader = false;
  const listeners = server.listeners("request") as RequestListener[];
  server.removeAllListeners("request");
  for (const listener of listeners) {
    server.on("request", (request: IncomingMessage, response: ServerResponse) => {
      const problem = framingProblem(request);
      if (problem !== null) refuseRequest(request, response, problem);
      else if (request.url === "*") answerServerOptions(response);
      else listener(request, response);
    });
  }
}
