/**
 * `GET /asyncapi.json`: the AsyncAPI 3.0 document of the simulation WebSocket (api/simulation/asyncapi.ts),
 * serialized once, with a strong ETag (304 on If-None-Match) and five minutes of caching.
 */
import type { Handler } from "hono";
import { simulationAsyncApi } from "../simulation/asyncapi.ts";

export { ASYNCAPI_PATH } from "../simulation/asyncapi.ts";
import { represent, send } from "../http/cache.ts";
import type { SimulationLimits } from "../simulation/session.ts";
import { VERSION } from "../openapi/version.ts";

export function asyncApiRoute(limits: SimulationLimits): Handler {
  const rep = represent(
    `${JSON.stringify(simulationAsyncApi(limits, VERSION), null, 2)}\n`,
    "application/json; charset=utf-8",
  );
  return (c) => send(c, rep, "public, max-age=300");
}
