import { describe, expect, it } from "vitest";
import { diffTables } from "./changes.ts";
import { readCsv } from "./csv-rows.ts";
import { bumpVersion, releaseKind, shapeChange } from "./version.ts";

const table = (text: string) => readCsv(text.replaceAll("\n", "\r\n"));

describe("row-level changes between two releases of a table", () => {
  it("names rows added, removed and changed (old and new values) by the primary key, a repeated key by its occurrence", () => {
    const before = table('k,n,label\n1,10,a\n2,20,"b, quoted"\n3,30,c\n3,31,c2\n');
    const after = table('k,n,label\n1,10,a\n2,21,"b, quoted"\n3,30,c\n4,40,d\n');
    expect(diffTables(before, after, ["k"])).toEqual({
      added: [{ k: "4", n: "40", label: "d" }],
      removed: [{ k: "3", n: "31", label: "c2" }],
      changed: [
        { key: { k: "2" }, old: { k: "2", n: "20", label: "b, quoted" }, new: { k: "2", n: "21", label: "b, quoted" } },
      ],
    });
    expect(diffTables(null, after, ["k"]).added).toHaveLength(4);
    expect(() => diffTables(before, after, ["missing"])).toThrow(/primary key column missing/);
    expect(() => readCsv("a,b\r\n1\r\n")).toThrow(/record 2 has 1 fields/);
  });

  it("the version rule: major breaks a reader, minor adds, patch corrects", () => {
    const none = { removed: 0, added: 0, shape: null, rowsAdded: 0 } as const;
    expect(releaseKind(none)).toBe("patch");
    expect(releaseKind({ ...none, rowsAdded: 3 })).toBe("minor");
    expect(releaseKind({ ...none, added: 1 })).toBe("minor");
    expect(releaseKind({ ...none, rowsAdded: 3, removed: 1 })).toBe("major");
    const fields = [
      { name: "a", type: "string" },
      { name: "b", type: "number" },
    ];
    expect(shapeChange({ fields }, { fields })).toBe(null);
    expect(shapeChange({ fields }, { fields: [...fields, { name: "c", type: "integer" }] })).toBe("minor");
    expect(shapeChange({ fields }, { fields: [fields[0]!, { name: "b", type: "string" }] })).toBe("major");
    expect(shapeChange({ fields, primaryKey: ["a"] }, { fields, primaryKey: ["b"] })).toBe("major");
    expect([bumpVersion("1.4.2", "major"), bumpVersion("1.4.2", "minor"), bumpVersion("1.4.2", "patch")]).toEqual([
      "2.0.0",
      "1.5.0",
      "1.4.3",
    ]);
    expect(() => bumpVersion("1.0.0+sha256.abc", "patch")).toThrow(/not a release version/);
  });
});
