/**
 * `npm run -s cdn -- nginx --root DIR --listen HOST:PORT [--user NAME]`: prints a complete nginx.conf
 * serving the built site in DIR (`npm run site:build` → site/dist) with the headers of its `_headers`
 * rules, made from the same rules (site/src/lib/cdn-headers.ts) and DIR's files. It runs as it is:
 *
 *   mkdir -p /srv/cdn && npm run -s cdn -- nginx --root site/dist --listen 127.0.0.1:8080 > /srv/cdn/nginx.conf
 *   nginx -p /srv/cdn -c nginx.conf
 *
 * in the foreground, its pid, logs and temporary folders under the prefix (-p). Regenerate it after
 * each build: every built path has a location of its own. docs/cdn.md says more.
 */
import { existsSync, statSync } from "node:fs";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { filesUnder } from "../store/files.ts";
import { headerRules } from "../site/src/lib/cdn-headers.ts";
import { renderNginxConf } from "../site/src/lib/nginx-conf.ts";

export const USAGE = [
  "usage: npm run -s cdn -- nginx --root DIR --listen HOST:PORT [--user NAME]",
  "  prints a complete nginx.conf serving the built site in DIR with the headers of its _headers rules;",
  "  run it with: nginx -p PREFIX -c FILE (in the foreground; pid, logs and temporary files under PREFIX)",
  "  --root DIR          the built site (npm run site:build writes site/dist)",
  "  --listen HOST:PORT  the address to serve on: 127.0.0.1:8080, 0.0.0.0:80, [::1]:8080",
  "  --user NAME         the user nginx's workers run as when nginx is started as root (default: nginx's, nobody)",
].join("\n");

/** HOST:PORT → its parts; IPv6 hosts in brackets. */
export function parseListen(value: string): { host: string; port: number } {
  const m = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+):(\d{1,5})$/.exec(value);
  const port = m ? Number(m[2]) : NaN;
  if (!m || !Number.isInteger(port) || port < 1 || port > 65535)
    throw new Error(`--listen "${value}" is not HOST:PORT (a port 1–65535; IPv6 in brackets: [::1]:8080)`);
  return { host: m[1]!, port };
}

export function main(
  argv: readonly string[],
  out: (text: string) => void = (t) => process.stdout.write(t),
  err: (line: string) => void = console.error,
): number {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      options: {
        root: { type: "string" },
        listen: { type: "string" },
        user: { type: "string" },
        help: { type: "boolean", short: "h" },
      },
      allowPositionals: true,
      strict: true,
    });
  } catch (error) {
    err(`${(error as Error).message}\n${USAGE}`);
    return 2;
  }
  const { values, positionals } = parsed;
  if (values.help) {
    out(`${USAGE}\n`);
    return 0;
  }
  try {
    if (positionals.length !== 1 || positionals[0] !== "nginx")
      throw new Error(
        `name the server: nginx (got ${positionals.length === 0 ? "nothing" : JSON.stringify(positionals.join(" "))})`,
      );
    if (values.root === undefined || values.listen === undefined)
      throw new Error("--root DIR and --listen HOST:PORT are required");
    const root = resolve(values.root);
    if (!existsSync(root) || !statSync(root).isDirectory())
      throw new Error(`--root ${values.root}: no such folder (build the site first: npm run site:build)`);
    if (!existsSync(resolve(root, "index.html")))
      throw new Error(`--root ${values.root}: no index.html here; is it a built site (site/dist)?`);
    if (values.user !== undefined && !/^[A-Za-z_][A-Za-z0-9_.-]*( [A-Za-z_][A-Za-z0-9_.-]*)?$/.test(values.user))
      throw new Error(`--user "${values.user}" is not a user name (or "user group")`);
    const { host, port } = parseListen(values.listen);
    const files = filesUnder(root).filter((f) => f !== "_headers");
    out(
      renderNginxConf({
        root,
        host,
        port,
        files,
        rules: headerRules(files),
        ...(values.user !== undefined ? { user: values.user } : {}),
      }),
    );
    return 0;
  } catch (error) {
    err(`cdn: ${(error as Error).message}\n${USAGE}`);
    return 2;
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.exitCode = main(process.argv.slice(2));
}
