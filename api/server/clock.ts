/**
 * The server's clock: the real one, or — with `NOW=<ISO 8601>` — one that starts at that instant
 * and advances from there (to see the migration's phases, a grant's expiry, …). Read only here.
 */
export function serverClock(env: NodeJS.ProcessEnv, real: () => number = Date.now): () => Date {
  if (env.NOW === undefined || env.NOW === "") return () => new Date(real());
  const start = Date.parse(env.NOW);
  if (!/^\d{4}-\d{2}-\d{2}T/.test(env.NOW) || !Number.isFinite(start))
    throw new Error(`NOW must be an ISO 8601 instant, not ${JSON.stringify(env.NOW)}`);
  const offset = start - real();
  return () => new Date(real() + offset);
}
