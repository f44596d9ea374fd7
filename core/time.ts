/** Lengths of time in milliseconds, the unit of `Date` arithmetic; one definition for the project. */
export const MINUTE_MS = 60_000;
export const HOUR_MS = 60 * MINUTE_MS;
export const DAY_MS = 24 * HOUR_MS;
