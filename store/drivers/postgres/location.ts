/**
 * How the PostgreSQL driver recognises and checks a location: a `postgres://` or `postgresql://`
 * URL exactly as written — no white space around it or in it, a host, parseable — shown without
 * its password. A value that does not parse is refused, never taken for "unset".
 */
import { StoreLocationError } from "../driver.ts";

/** Whether a location names a PostgreSQL database (a postgres:// or postgresql:// URL) rather than a file. */
export function isPostgresLocation(location: string): boolean {
  return /^postgres(ql)?:\/\//i.test(location);
}

/** The URL without its password: safe to show. */
export function safeLocation(url: URL): string {
  const shown = new URL(url.href);
  shown.password = "";
  return shown.href;
}

/** A location as it may be printed or logged: a postgres:// URL without its password. */
export function shownPostgresLocation(location: string): string {
  try {
    return safeLocation(new URL(location));
  } catch {
    return "a postgres:// URL that does not parse";
  }
}

/**
 * A PostgreSQL URL checked as `name` (the variable or flag it came from, for the error): the whole
 * value, no white space or control character anywhere, the scheme postgres: or postgresql:, a host.
 */
export function checkedPostgresUrl(value: string, name: string): { url: string; shown: string } {
  const refuse = (why: string) =>
    new StoreLocationError(
      `${name} must be a postgres:// (or postgresql://) URL; the value set ${why}. Nothing was opened.`,
    );
  if (/[\s\u0000-\u001f\u007f]/.test(value))
    throw refuse(
      value.trim() !== value ? "has white space before or after it" : "holds white space or a control character",
    );
  if (!isPostgresLocation(value)) throw refuse(`does not start with postgres:// or postgresql://`);
  let parsed: URL;
  try {
    parsed = new URL(value);
  } catch {
    throw refuse("does not parse as a URL");
  }
  if (parsed.hostname === "" && !parsed.searchParams.has("host")) throw refuse("names no host");
  return { url: value, shown: safeLocation(parsed) };
}
