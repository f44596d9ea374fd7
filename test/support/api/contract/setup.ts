/**
 * Test setup (vitest `setupFiles`): installs the contract check, so every app any test creates
 * in-process reports each response, and fails the test during which a response did not match its
 * app's /openapi.json (test/support/api/contract/check.ts). Apps started as child processes are not checked.
 */
import { afterAll, afterEach } from "vitest";
import { installResponseCheck } from "../../../../api/openapi/response-observer.ts";
import { checkExchange } from "./check.ts";

const pending: Promise<string[]>[] = [];

installResponseCheck((exchange) => {
  pending.push(
    checkExchange(exchange).catch((error: unknown) => [
      `${exchange.method} ${exchange.path}: the check failed: ${(error as Error).message}`,
    ]),
  );
});

async function assertContract(): Promise<void> {
  const problems = (await Promise.all(pending.splice(0))).flat();
  if (problems.length > 0) {
    const shown = problems.slice(0, 20).join("\n  ");
    throw new Error(
      `${problems.length} response(s) do not match /openapi.json:\n  ${shown}${problems.length > 20 ? "\n  …" : ""}`,
    );
  }
}

afterEach(assertContract);
afterAll(assertContract);
