/**
 * Content collections. `manual`: every docs/*.md of the repository (a page added there is picked
 * up with nothing else to change), its id the file name without `.md`. Front matter is optional:
 * `order` places a page in the manual's list, `title` overrides its first `# ` heading.
 */
import { defineCollection } from "astro:content";
import { glob } from "astro/loaders";
import { z } from "astro/zod";

const manual = defineCollection({
  loader: glob({ pattern: "*.md", base: "../docs", generateId: ({ entry }) => entry.replace(/\.md$/, "") }),
  // Not strict: a page may carry other front matter (a description, notes) without breaking the build.
  schema: z.object({ order: z.number().optional(), title: z.string().optional(), description: z.string().optional() }),
});

export const collections = { manual };
