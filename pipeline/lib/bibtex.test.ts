import { describe, expect, it } from "vitest";
import { bibtexEntry, bibtexTitle, checkBibtex, escapeBibtex } from "./bibtex.ts";

describe("BibTeX escaping", () => {
  it("escapes the ten special characters", () => {
    expect(escapeBibtex("a & b % c $ d # e _ f { g } h ^ i ~ j \\ k")).toBe(
      "a \\& b \\% c \\$ d \\# e \\_ f \\{ g \\} h \\textasciicircum{} i \\textasciitilde{} j \\textbackslash{} k",
    );
  });

  it("writes non-ASCII letters and punctuation as LaTeX commands", () => {
    expect(escapeBibtex("Müller")).toBe('M{\\"u}ller');
    expect(escapeBibtex("García")).toBe("Garc{\\'\\i}a");
    expect(escapeBibtex("Ødegaard, Straße, Łukasz")).toBe("{\\O}degaard, Stra{\\ss}e, {\\L}ukasz");
    expect(escapeBibtex("Françoise Dvořák")).toBe("Fran{\\c{c}}oise Dvo{\\v{r}}{\\'a}k");
    expect(escapeBibtex("a — b – c “d” ‘e’ …")).toBe("a --- b -- c ``d'' `e' {\\ldots}");
    // Decomposed input is normalized first.
    expect(escapeBibtex("Mu\u0308ller")).toBe('M{\\"u}ller');
    // Two accents on one letter nest.
    expect(escapeBibtex("ệ")).toBe("{\\^{\\d{e}}}");
    expect(() => escapeBibtex("emoji 🚀")).toThrow(/no BibTeX form for "🚀" \(U\+1F680\)/);
    expect(() => escapeBibtex("漢")).toThrow(/U\+6F22/);
  });

  it("protects the case of acronyms and mixed-case words in titles", () => {
    expect(bibtexTitle("Measuring GI and MII")).toBe("Measuring {GI} and {MII}");
    expect(bibtexTitle("Using BibTeX with McKay's Data")).toBe("Using {BibTeX} with {McKay's} Data");
    expect(bibtexTitle("A study")).toBe("A study");
  });

  it("escapes a title with &, %, _, {, ü and —", () => {
    const title = bibtexTitle("GI & MII: 95% of sentinel_scores {robust} für Müller — RFC");
    expect(title).toBe('{GI} \\& {MII:} 95\\% of sentinel\\_scores \\{robust\\} f{\\"u}r M{\\"u}ller --- {RFC}');
    const entry = bibtexEntry("misc", "x-1", [{ name: "title", value: title }]);
    expect(checkBibtex(entry)).toEqual([{ type: "misc", key: "x-1", fields: { title } }]);
  });
});

describe("BibTeX entries and checking", () => {
  const article = bibtexEntry("article", "okafor:2025", [
    { name: "author", value: 'Okafor, Adaeze and M{\\"u}ller, Jonas' },
    { name: "title", value: bibtexTitle("The GI score") },
    { name: "journal", value: "Reports" },
    { name: "year", value: "2025" },
    { name: "doi", value: "10.1234/abc_def", raw: true },
    { name: "url", value: "https://doi.org/10.1234/abc_def", raw: true },
  ]);

  it("writes entries that parse back", () => {
    expect(article).toBe(
      "@article{okafor:2025,\n" +
        '  author = {Okafor, Adaeze and M{\\"u}ller, Jonas},\n' +
        "  title = {The {GI} score},\n" +
        "  journal = {Reports},\n" +
        "  year = {2025},\n" +
        "  doi = {10.1234/abc_def},\n" +
        "  url = {https://doi.org/10.1234/abc_def},\n" +
        "}\n",
    );
    const [parsed] = checkBibtex(article);
    expect(parsed?.fields.year).toBe("2025");
    expect(parsed?.fields.doi).toBe("10.1234/abc_def");
  });

  it("refuses bad keys, names and raw values", () => {
    expect(() => bibtexEntry("misc", "has space", [])).toThrow(/bad BibTeX key/);
    expect(() => bibtexEntry("misc", "k", [{ name: "url", value: "https://x/{y}", raw: true }])).toThrow(
      /cannot be written raw/,
    );
    expect(() => bibtexEntry("Misc!", "k", [])).toThrow(/entry type/);
  });

  it("reports unbalanced braces, missing fields, duplicates, unescaped specials and non-ASCII", () => {
    expect(() => checkBibtex("@misc{k,\n  title = {a {b},\n}\n")).toThrow(/unbalanced braces|not closed/);
    expect(() => checkBibtex("@article{k,\n  title = {t},\n  year = {2025},\n}\n")).toThrow(
      /missing required field author.*journal/,
    );
    expect(() => checkBibtex(`${article}\n${article}`)).toThrow(/duplicate key okafor:2025/);
    expect(() => checkBibtex("@misc{k,\n  title = {50% & more},\n}\n")).toThrow(/unescaped "%"/);
    expect(() => checkBibtex("@misc{k,\n  title = {Müller},\n}\n")).toThrow(/not printable ASCII/);
    expect(() => checkBibtex("@misc{,\n  title = {t},\n}\n")).toThrow(/missing or bad key/);
    expect(() => checkBibtex("@book{k,\n  title = {t},\n}\n")).toThrow(/unknown entry type @book/);
    expect(checkBibtex("")).toEqual([]);
  });
});
