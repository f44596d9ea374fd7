/**
 * What changed in a table between two consecutive releases of its area (`changes/<table>.json`,
 * docs/releases.md): rows matched by the table's primary key; cells as the CSV's text.
 */
import { z } from "zod";

const Row = z.record(z.string(), z.string()).describe("A row: column name → the cell's text as the CSV has it");
const Version = z
  .string()
  .regex(/^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)$/)
  .describe("A release version, MAJOR.MINOR.PATCH");

export const TableChanges = z.strictObject({
  table: z.string().min(1).describe("The table's path in the area"),
  from: Version.describe("The previous release"),
  to: Version.describe("The release these changes lead to"),
  primaryKey: z.array(z.string().min(1)).min(1).describe("The columns rows are matched by"),
  counts: z.strictObject({
    added: z.int().nonnegative(),
    removed: z.int().nonnegative(),
    changed: z.int().nonnegative(),
  }),
  added: z.array(Row).describe("Rows whose key is new, in the new table's order"),
  removed: z.array(Row).describe("Rows whose key is gone, in the old table's order"),
  changed: z
    .array(z.strictObject({ key: Row, old: Row, new: Row }))
    .describe("Rows whose key stays and whose cells changed (corrections): the old and the new values"),
});
