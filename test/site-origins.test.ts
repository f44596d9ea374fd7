/**
 * A build knows where it is served (site/src/lib/public-origins.ts): the variables read and refused,
 * `npm run site:build` in CI without SITE_URL failing by name, and one real production build — for
 * https://data.example.org, with no API, with a contact — scanned whole: no loopback address in
 * any file it writes (the manual may show one only in its code, where it documents `npm start` on
 * one's own machine), every absolute link on the site's origin, and no form, live panel or keyed
 * link that needs an API the copy does not have: the pages say how to ask instead. The same build
 * tells one story: GI is the platform's global integrity and an office's own score is its office
 * integrity, a score shows the signals it rests on, statuses their thresholds, a total why it
 * exceeds what was minted, and every schema link of a manifest resolves on the copy.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiUrl, contactOf, DEVELOPMENT_SITE_URL, publicOrigins } from "../site/src/lib/public-origins.ts";
import { filesUnder } from "../store/files.ts";
import { GLOSSARY } from "../core/glossary.ts";
import { existsSync } from "node:fs";
import { buildSite, REPO_DATA_DIR, REPO_ROOT } from "./support/site/helpers.ts";

const SITE = "https://data.example.org";
const CONTACT = "key-requests@operators.test";
const LOOPBACK = /127\.\d{1,3}\.\d{1,3}\.\d{1,3}|\blocalhost\b|\[::1\]|0\.0\.0\.0/;

describe("the build's public origins", () => {
  it("a development build (no SITE_URL) is one server with its API", () => {
    expect(publicOrigins({})).toEqual({
      site: DEVELOPMENT_SITE_URL,
      siteConfigured: false,
      api: { kind: "same-origin", origin: DEVELOPMENT_SITE_URL, base: "" },
      contact: null,
    });
  });

  it("a production build has an API only when PUBLIC_API_ORIGIN names one; the same origin stays relative", () => {
    expect(publicOrigins({ SITE_URL: `${SITE}/` }).api).toEqual({ kind: "none" });
    expect(publicOrigins({ SITE_URL: SITE, PUBLIC_API_ORIGIN: "https://api.example.org" }).api).toEqual({
      kind: "elsewhere",
      origin: "https://api.example.org",
      base: "https://api.example.org",
    });
    expect(publicOrigins({ SITE_URL: SITE, PUBLIC_API_ORIGIN: SITE }).api).toEqual({
      kind: "same-origin",
      origin: SITE,
      base: "",
    });
    expect(
      apiUrl(
        { kind: "elsewhere", origin: "https://api.example.org", base: "https://api.example.org" },
        "/keys/requests",
      ),
    ).toBe("https://api.example.org/keys/requests");
    expect(apiUrl({ kind: "same-origin", origin: SITE, base: "" }, "/keys/requests")).toBe("/keys/requests");
    expect(apiUrl({ kind: "none" }, "/keys/requests")).toBeNull();
  });

  it("in CI SITE_URL is required, and a malformed value is refused by name", () => {
    expect(() => publicOrigins({ GITHUB_ACTIONS: "true" })).toThrow(/^SITE_URL is not set/);
    expect(() => publicOrigins({ GITHUB_ACTIONS: "true", SITE_URL: " " })).toThrow(/SITE_URL/);
    expect(() => publicOrigins({ SITE_URL: "https://owner.github.io/repo/" })).toThrow(
      /^SITE_URL: .*root of its origin/,
    );
    expect(() => publicOrigins({ SITE_URL: "data.example.org" })).toThrow(/^SITE_URL: /);
    expect(() => publicOrigins({ SITE_URL: SITE, PUBLIC_API_ORIGIN: "ftp://api.example.org" })).toThrow(
      /^PUBLIC_API_ORIGIN: /,
    );
  });

  it("the contact is an address or an https page; a placeholder is refused; in CI it defaults to the repository's issues", () => {
    expect(contactOf("mailto:keys@operators.test")).toEqual({
      href: "mailto:keys@operators.test",
      text: "keys@operators.test",
    });
    expect(contactOf("https://operators.test/keys")).toEqual({
      href: "https://operators.test/keys",
      text: "https://operators.test/keys",
    });
    expect(() => contactOf("access@integrity-platform.example")).toThrow(/^PUBLIC_CONTACT: .*placeholder/);
    expect(() => contactOf("http://operators.test/keys")).toThrow(/^PUBLIC_CONTACT: /);
    expect(
      publicOrigins({
        GITHUB_ACTIONS: "true",
        SITE_URL: SITE,
        GITHUB_SERVER_URL: "https://github.com",
        GITHUB_REPOSITORY: "owner/name",
      }).contact,
    ).toEqual({
      href: "https://github.com/owner/name/issues",
      text: "https://github.com/owner/name/issues",
    });
  });

  it("`npm run site:build` in CI without SITE_URL exits non-zero, naming it", () => {
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      GITHUB_ACTIONS: "true",
      NO_COLOR: "1",
      ASTRO_TELEMETRY_DISABLED: "1",
    };
    delete env.SITE_URL;
    const run = spawnSync("npm", ["run", "-s", "site:build"], { cwd: REPO_ROOT, env, encoding: "utf8" });
    expect(run.status).not.toBe(0);
    expect(`${run.stdout}${run.stderr}`).toMatch(/SITE_URL is not set/);
  });
});

describe(`a production build for ${SITE} with no API`, () => {
  const tmp = mkdtempSync(join(tmpdir(), "site-origins-"));
  const out = join(tmp, "dist");
  const page = (path: string) => readFileSync(join(out, path), "utf8");

  beforeAll(async () => {
    const build = await buildSite(REPO_DATA_DIR, out, { SITE_URL: SITE, PUBLIC_CONTACT: CONTACT });
    if (build.code !== 0) throw new Error(`site build failed:\n${build.output}`);
  }, 240_000);
  afterAll(() => rmSync(tmp, { recursive: true, force: true }));

  it("names no loopback address in any file (the manual only in code, documenting one's own machine)", async () => {
    const offending: string[] = [];
    for (const file of filesUnder(out)) {
      if (!/\.(html|xml|txt|json|js|css|svg|webmanifest)$|^_headers$|\/_headers$/.test(file)) continue;
      let text = readFileSync(join(out, file), "utf8");
      if (file.startsWith("manual/"))
        text = text.replace(/<pre[\s\S]*?<\/pre>/g, "").replace(/<code[\s\S]*?<\/code>/g, "");
      const match = LOOPBACK.exec(text);
      if (match) offending.push(`${file}: …${text.slice(Math.max(0, match.index - 60), match.index + 40)}…`);
    }
    expect(offending).toEqual([]);
  });

  it("canonical links, the sitemap, robots.txt and the verifier's commands name the site's origin", () => {
    expect(page("government/index.html")).toContain(`<link rel="canonical" href="${SITE}/government/"`);
    expect(page("sitemap-0.xml")).toContain(`<loc>${SITE}/consensus/</loc>`);
    expect(page("robots.txt")).toContain(`Sitemap: ${SITE}/sitemap-index.xml`);
    for (const path of ["verify/index.html", "academics/index.html"])
      expect(page(path)).toMatch(
        new RegExp(`npx [^<]*--package=${SITE.replace(/\./g, "\\.")}/tools/integrity-verify-`),
      );
  });

  it("offers no form that posts anywhere and no live panel; says how to ask for a key instead", () => {
    for (const path of [
      "government/index.html",
      "academics/index.html",
      "consensus/index.html",
      "philosophy/index.html",
    ]) {
      // What the page says and holds (a shared script bundle may carry a component's words for an API that answers).
      const html = page(path).replace(/<script[\s\S]*?<\/script>/g, "");
      expect(html, path).not.toMatch(/<key-request-form|<simulation-island|data-endpoint=/);
      expect(html, path).not.toMatch(/method="post"/i);
      expect(html, path).not.toMatch(/not answering|Trying again/);
    }
    const government = page("government/index.html");
    expect(government).not.toContain("Send the request with this form");
    expect(government).toMatch(
      new RegExp(`To ask for a key, write to <a href="mailto:${CONTACT}">${CONTACT}</a> stating`),
    );
    expect(government).not.toMatch(/integrity-platform\.example/);
    expect(page("consensus/index.html")).toContain(
      "This is a static copy of the site: it is not updated between publications.",
    );
    expect(page("asyncapi.json")).not.toMatch(/"servers"/);
  });

  it("links no keyed file: its rows name the API that serves it, not a path on this copy", () => {
    const manifest = JSON.parse(
      readFileSync(join(REPO_DATA_DIR, "areas", "government", "datapackage.json"), "utf8"),
    ) as { keyedResources: { path: string; access: string }[] };
    const keyed = manifest.keyedResources;
    expect(keyed.length).toBeGreaterThan(0);
    const html = page("government/index.html");
    for (const r of keyed) expect(html, r.path).not.toMatch(new RegExp(`href="[^"]*${r.path.replace(/\./g, "\\.")}"`));
    expect(html).toMatch(/served by the platform(&#39;|')s API to key holders, not by this copy/);
  });

  /** A page's words, without its scripts and tags. */
  const words = (path: string) =>
    page(path)
      .replace(/<script[\s\S]*?<\/script>/g, "")
      .replace(/<[^>]+>/g, "")
      .replace(/&#39;/g, "'");

  it("gives GI one meaning and an office's own score another name, in the glossary and on the pages", () => {
    const gi = GLOSSARY.find((t) => t.id === "gi")!;
    expect(gi.definition).toMatch(/^The platform's global integrity/);
    expect(gi.definition).toContain("office integrity");
    expect(GLOSSARY.find((t) => t.id === "sentinel")!.definition).not.toMatch(/\bGI\b/);
    const government = page("government/index.html");
    expect(government).toContain('<th scope="col" class="num">Office integrity</th>');
    expect(government).not.toMatch(/<th[^>]*>GI<\/th>|data-label="GI"/);
    expect(words("index.html")).not.toContain("can score 100% while sentinels are offline");
    expect(words("philosophy/index.html")).not.toMatch(/with a GI of at least|GI below 0\.95/);
  });

  it("shows the signals the latest scores rest on beside them", () => {
    const latest = JSON.parse(readFileSync(join(REPO_DATA_DIR, "v1", "pulse", "latest.json"), "utf8")) as {
      scoring: { inputs: Record<string, { measured: boolean }> };
    };
    const inputs = Object.entries(latest.scoring.inputs);
    const measured = inputs.filter(([, i]) => i.measured).length;
    const gi = inputs.filter(([n]) => n.startsWith("gi."));
    expect(page("index.html")).toContain(`data-measured="${measured}" data-signals="${inputs.length}"`);
    expect(words("index.html")).toContain(
      `These scores rest on ${measured} of the ${inputs.length} signals the scoring weighs: GI on ${gi.filter(([, i]) => i.measured).length} of ${gi.length} (`,
    );
  });

  it("shows each virtue's status with the thresholds it was judged by", () => {
    const virtues = JSON.parse(readFileSync(join(REPO_DATA_DIR, "areas", "philosophy", "virtues.json"), "utf8")) as {
      virtues: Record<string, { status: string; compliant_at: number; at_risk_at: number }>;
    };
    const text = words("philosophy/index.html");
    for (const [name, v] of Object.entries(virtues.virtues)) {
      expect(text, name).toContain(
        `against compliant at ${Math.round(v.compliant_at * 100)}% or more, at risk at ${Math.round(v.at_risk_at * 100)}% or more.`,
      );
    }
  });

  it("says how many offices there are and that four vote; says why the migration total exceeds what was minted", () => {
    const registry = JSON.parse(
      readFileSync(join(REPO_DATA_DIR, "areas", "philosophy", "consensus-registry.json"), "utf8"),
    ) as { offices: unknown[] };
    const consensus = words("consensus/index.html");
    expect(consensus).toContain(
      `${registry.offices.length} offices are registered (listed below). Each session draws four of them to vote`,
    );
    expect(consensus).not.toMatch(/Four offices —/);
    const migration = words("migration/index.html");
    expect(migration).toMatch(
      /Why this total is not MIC in circulation\. .* holds [\d,.]+ MIC: the largest balance the v2 format can hold \(2\^63 − 1 shards\)/,
    );
    expect(migration).toMatch(/The \d+ accounts of the sample ledger hold [\d,.]+ MIC between them/);
  });

  it("every schema link of every published manifest resolves on the copy", () => {
    const manifests = filesUnder(out).filter((f) => f.endsWith("datapackage.json"));
    expect(manifests).toContain("migration/datapackage.json");
    for (const manifest of manifests) {
      const { resources } = JSON.parse(page(manifest)) as {
        resources: { jsonSchema?: string | { items: { $ref: string } } }[];
      };
      for (const r of resources) {
        const ref = typeof r.jsonSchema === "string" ? r.jsonSchema : r.jsonSchema?.items.$ref;
        if (ref === undefined) continue;
        const url = new URL(ref, `${SITE}/${manifest}`);
        expect(url.origin, `${manifest}: ${ref}`).toBe(SITE);
        expect(existsSync(join(out, decodeURIComponent(url.pathname))), `${manifest}: ${ref}`).toBe(true);
      }
    }
  });
});
