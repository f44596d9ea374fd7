/**
 * Content collections. `manual`: every docs/*.md of the repository (a page added there is picked
 * up by itself), its id the file name without `.md`. Its place in the manual's menu is where
 * docs/index.md's reading order lists it (lib/manual.ts). Front matter is optional: `title`
 * overrides the page's first `# ` heading.
 */
import { defineCollection } from "astro:content";
import { glob } from "astro/loaders";
import { z } from "astro/zod";

const manual = defineCollection({
  loader: glob({ pattern: "*.md", base: "../docs", generateId: ({ entry }) => entry.replace(/\.md$/, "") }),
  // Not strict: a page may carry other front matter (a description, notes) without breaking the build.
  schema: z.object({ title: z.string().optional(), description: z.string().optional() }),
});

export const collections = { manual };
