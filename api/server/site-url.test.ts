import { describe, expect, it } from "vitest";
import { publicSiteUrl } from "./site-url.ts";

describe("publicSiteUrl (the built site's canonical origin)", () => {
  it("is SITE_URL when set, whatever the port", () => {
    expect(publicSiteUrl({ SITE_URL: "https://integrity.example", PORT: "8080" })).toBe("https://integrity.example");
  });
  it("is the served origin otherwise: HOST and PORT, not a fixed 127.0.0.1:4321", () => {
    expect(publicSiteUrl({})).toBe("http://127.0.0.1:4321");
    expect(publicSiteUrl({ PORT: "8080" })).toBe("http://127.0.0.1:8080");
    expect(publicSiteUrl({ HOST: "portal.local", PORT: "80" })).toBe("http://portal.local");
    expect(publicSiteUrl({ HOST: "0.0.0.0", PORT: "9000" })).toBe("http://127.0.0.1:9000");
    expect(publicSiteUrl({ HOST: "::1", PORT: "9000" })).toBe("http://[::1]:9000");
  });
});
