/**
 * deploy/haproxy.cfg as a template: the configuration a deployment of N instances runs with, for
 * `npm run deploy:local` (deploy/run-local.ts) and the tests (test/support/cluster.ts). It keeps
 * every line of the file but four: the frontend's `bind`, the `stats socket` path, the
 * `default-server` health-check timings and the `server` lines, which name the N instances.
 * Throws (code HAPROXY_TEMPLATE) when the file no longer has exactly one of each to replace, so a
 * change to the file cannot silently stop reaching the tests.
 */
import { readFileSync } from "node:fs";

export const HAPROXY_TEMPLATE = new URL("./haproxy.cfg", import.meta.url);

export interface HaproxyServer {
  /** The server's name in HAProxy (`api1`): what `show stat` and the logs call it. */
  name: string;
  /** `host:port` of the instance. */
  address: string;
}

export interface HaproxyConfig {
  /** `host:port` the balancer listens on. */
  bind: string;
  servers: readonly HaproxyServer[];
  /** Path of the runtime API's socket. */
  statsSocket: string;
  /** `default-server` parameters (the file's: `inter 2s fall 3 rise 2`). */
  defaultServer?: string;
}

export class HaproxyTemplateError extends Error {
  readonly code = "HAPROXY_TEMPLATE";
}

/** The one line of `lines` matching `pattern`, by index; throws unless there is exactly one. */
function onlyLine(lines: readonly string[], pattern: RegExp, what: string): number {
  const found = lines.flatMap((line, i) => (pattern.test(line) ? [i] : []));
  if (found.length !== 1)
    throw new HaproxyTemplateError(`deploy/haproxy.cfg: expected one ${what} line, found ${found.length}`);
  return found[0]!;
}

const indentOf = (line: string) => /^\s*/.exec(line)![0];

/** The configuration for `config`, from the template's text (default: deploy/haproxy.cfg). */
export function renderHaproxyConfig(
  config: HaproxyConfig,
  template: string = readFileSync(HAPROXY_TEMPLATE, "utf8"),
): string {
  if (config.servers.length === 0) throw new HaproxyTemplateError("a backend needs at least one server");
  const lines = template.split("\n");
  const bind = onlyLine(lines, /^\s+bind\s/, "bind");
  lines[bind] = `${indentOf(lines[bind]!)}bind ${config.bind}`;
  const socket = onlyLine(lines, /^\s+stats socket\s/, "stats socket");
  lines[socket] = lines[socket]!.replace(/stats socket \S+/, `stats socket ${config.statsSocket}`);
  if (config.defaultServer !== undefined) {
    const defaults = onlyLine(lines, /^\s+default-server\s/, "default-server");
    lines[defaults] = `${indentOf(lines[defaults]!)}default-server ${config.defaultServer}`;
  }
  const servers = lines.flatMap((line, i) => (/^\s+server\s/.test(line) ? [i] : []));
  const first = servers[0];
  if (first === undefined || servers.some((i, k) => i !== first + k))
    throw new HaproxyTemplateError("deploy/haproxy.cfg: expected one block of server lines");
  // The first server line's options (`check`, …) apply to every server.
  const [, indent, options] = /^(\s+)server\s+\S+\s+\S+(.*)$/.exec(lines[first]!)!;
  const rendered = config.servers.map((s) => `${indent}server ${s.name} ${s.address}${options}`);
  lines.splice(first, servers.length, ...rendered);
  return lines.join("\n");
}
