/**
 * The client's address behind a load balancer: X-Forwarded-For believed only from TRUSTED_PROXIES
 * — the rules, then over real HTTP on loopback, where the count a request lands in (its RateLimit
 * field) shows which client it was taken for. Different loopback source addresses are different
 * peers (127.0.0.0/8 is all loopback on Linux).
 */
import { cpSync, mkdirSync } from "node:fs";
import { request as send } from "node:http";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tempDir } from "../../test/support/store/helpers.ts";
import { ApiKeyStore } from "./api-keys.ts";
import { forwardedClient, MAX_FORWARDED_HOPS, trustedProxies, trustedProxiesFromEnv } from "./forwarded-for.ts";
import type { LogLine } from "../middleware/request-log.ts";
import { startServer, type RunningServer } from "../server/server.ts";

describe("forwardedClient", () => {
  const proxies = trustedProxies(["192.0.2.10", "10.0.0.0/8", "2001:db8:ffff::/48"]);

  it("trusts nobody by default, and refuses a TRUSTED_PROXIES entry that is not an address or range", () => {
    expect(trustedProxiesFromEnv({}).entries).toEqual([]);
    expect(forwardedClient("192.0.2.10", "203.0.113.7", trustedProxiesFromEnv({}))).toEqual({ address: "192.0.2.10" });
    expect(trustedProxiesFromEnv({ TRUSTED_PROXIES: " 192.0.2.10 , ::1 " }).entries).toEqual(["192.0.2.10", "::1"]);
    for (const bad of ["proxy.example", "10.0.0.0/33", "10.0.0.0/8/1", "::1/129", "10.0.0.0/x", "10.0.0.0/"]) {
      expect(() => trustedProxies([bad]), bad).toThrow(/TRUSTED_PROXIES/);
    }
  });

  it("ignores the header of a peer that is not a trusted proxy", () => {
    expect(forwardedClient("203.0.113.99", "203.0.113.7", proxies)).toEqual({ address: "203.0.113.99" });
    expect(forwardedClient("10.1.2.3", undefined, proxies)).toEqual({ address: "10.1.2.3" });
  });

  it("takes the rightmost address that is not a trusted proxy: what the client wrote on the left is ignored", () => {
    expect(forwardedClient("192.0.2.10", "203.0.113.7", proxies)).toEqual({ address: "203.0.113.7" });
    // A spoofed chain: the client sent "198.51.100.1, 10.9.9.9"; the proxy appended the real peer.
    expect(forwardedClient("192.0.2.10", "198.51.100.1, 10.9.9.9, 203.0.113.7", proxies)).toEqual({
      address: "203.0.113.7",
    });
    // Two trusted proxies in a row (an edge, then the balancer).
    expect(forwardedClient("192.0.2.10", "203.0.113.7,10.1.1.1", proxies)).toEqual({ address: "203.0.113.7" });
    expect(forwardedClient("::ffff:192.0.2.10", "2001:db8:1:2::5, 2001:db8:ffff:1::1", proxies)).toEqual({
      address: "2001:db8:1:2::5",
    });
    // Every hop a trusted proxy: the leftmost one.
    expect(forwardedClient("192.0.2.10", "10.0.0.2, 10.0.0.1", proxies)).toEqual({ address: "10.0.0.2" });
  });

  it("counts a header it cannot read as absent (the peer), and says why", () => {
    for (const header of [
      "",
      "unknown",
      "203.0.113.7:4711",
      "[2001:db8::1]",
      "203.0.113.7,",
      "203.0.113.7, , 10.0.0.1",
      "x".repeat(5000),
    ]) {
      const found = forwardedClient("192.0.2.10", header, proxies);
      expect(found.address, header).toBe("192.0.2.10");
      expect(found.malformed, header).toBeTruthy();
    }
    // Garbage left of the client's address is the client's own and never read.
    expect(forwardedClient("192.0.2.10", "garbage, 203.0.113.7", proxies)).toEqual({ address: "203.0.113.7" });
    const long = Array.from({ length: MAX_FORWARDED_HOPS + 1 }, () => "10.0.0.1").join(",");
    expect(forwardedClient("192.0.2.10", long, proxies)).toMatchObject({
      address: "192.0.2.10",
      malformed: expect.stringMatching(/hops/),
    });
  });
});

const REPO_DATA = join(import.meta.dirname, "../../data");
const FILE = "/government/sentinel-status.json";
const PROXY = "127.0.6.1";

let cleanup: () => void;
let server: RunningServer;
let plain: RunningServer;
const logs: LogLine[] = [];

beforeAll(async () => {
  let dir: string;
  ({ dir, cleanup } = tempDir("forwarded-for-"));
  const dataDir = join(dir, "data");
  mkdirSync(join(dataDir, "areas"), { recursive: true });
  cpSync(join(REPO_DATA, "areas", "government"), join(dataDir, "areas", "government"), { recursive: true });
  cpSync(join(REPO_DATA, "keys"), join(dataDir, "keys"), { recursive: true });
  const keysFile = join(dir, "access.sqlite");
  await new ApiKeyStore(keysFile).close();
  const options = { host: "127.0.0.1", port: 0, dataDir, keysFile };
  server = await startServer({
    ...options,
    log: (line) => logs.push(line),
    trustedProxies: trustedProxies([PROXY, "10.0.0.0/8"]),
  });
  plain = await startServer({ ...options, log: () => {}, trustedProxies: trustedProxies([]) });
});
afterAll(async () => {
  await Promise.all([server?.close(100), plain?.close(100)]);
  cleanup?.();
});

/** GET from a loopback address with an X-Forwarded-For; the `r` of the RateLimit field it got. */
function remainingAfter(base: RunningServer, from: string, forwardedFor?: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = forwardedFor === undefined ? {} : { "X-Forwarded-For": forwardedFor };
    const req = send(`${base.url}${FILE}`, { localAddress: from, headers }, (res) => {
      res.resume();
      const field = String(res.headers.ratelimit ?? "");
      const r = /;r=(\d+);/.exec(field);
      res.on("end", () =>
        res.statusCode === 200 && r ? resolve(Number(r[1])) : reject(new Error(`${res.statusCode} ${field}`)),
      );
    });
    req.on("error", reject);
    req.end();
  });
}

describe("the client behind a trusted proxy, over HTTP", () => {
  it("counts a peer that is not a trusted proxy as itself, whatever it forwards", async () => {
    expect(await remainingAfter(server, "127.0.6.2", "203.0.113.50")).toBe(99);
    expect(await remainingAfter(server, "127.0.6.2", "203.0.113.51")).toBe(98);
    expect(await remainingAfter(server, "127.0.6.2")).toBe(97);
    // Without TRUSTED_PROXIES nobody is trusted: the proxy's header is ignored too.
    expect(await remainingAfter(plain, PROXY, "203.0.113.60")).toBe(99);
    expect(await remainingAfter(plain, PROXY, "203.0.113.61")).toBe(98);
  });

  it("counts what a trusted proxy forwards as the client, spoofed chains included, IPv6 by its /64", async () => {
    expect(await remainingAfter(server, PROXY, "203.0.113.7")).toBe(99);
    // The client wrote a fake chain; the proxy appended the real peer on the right.
    expect(await remainingAfter(server, PROXY, "198.51.100.1, 203.0.113.7")).toBe(98);
    expect(await remainingAfter(server, PROXY, "203.0.113.7, 10.20.30.40")).toBe(97);
    // The spoofed address was never counted, nor the proxy itself.
    expect(await remainingAfter(server, PROXY, "198.51.100.1")).toBe(99);
    expect(await remainingAfter(server, PROXY)).toBe(99);
    expect(await remainingAfter(server, PROXY, "2001:db8:5:6::1")).toBe(99);
    expect(await remainingAfter(server, PROXY, "2001:db8:5:6:ffff:ffff:ffff:ffff")).toBe(98);
    expect(await remainingAfter(server, PROXY, "2001:db8:5:7::1")).toBe(99);
  });

  it("counts a trusted proxy's unreadable header as the proxy, and logs it", async () => {
    const before = await remainingAfter(server, PROXY);
    expect(await remainingAfter(server, PROXY, "not-an-address")).toBe(before - 1);
    expect(
      logs.some(
        (line) =>
          line.event === "forwarded-for.malformed" &&
          line.peer === PROXY &&
          !JSON.stringify(line).includes("not-an-address"),
      ),
    ).toBe(true);
  });
});
