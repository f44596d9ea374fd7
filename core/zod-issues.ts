/** The one rendering of zod's issues in an error message: `a.b: message; list[0]: message`. */

/** What a zod issue is here: where in the value, and what is wrong there. */
export interface Issue {
  readonly path: readonly PropertyKey[];
  readonly message: string;
}

/** The issue's path as an accessor, `a[0].b`; `whole` when the issue is about the value itself. */
export function issuePath(path: readonly PropertyKey[], whole = "(root)"): string {
  let out = "";
  for (const key of path) {
    if (typeof key === "number") out += `[${key}]`;
    else out += out === "" ? String(key) : `.${String(key)}`;
  }
  return out === "" ? whole : out;
}

/** Every issue as `<path>: <message>`, joined with "; ". `whole` names the value itself, e.g. "(payload)". */
export function formatIssues(issues: readonly Issue[], whole = "(root)"): string {
  return issues.map((issue) => `${issuePath(issue.path, whole)}: ${issue.message}`).join("; ");
}
