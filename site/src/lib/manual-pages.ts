/**
 * The manual's pages as the portal lists them: the `manual` collection (docs/*.md), each with its
 * title and portal path, in reading order (lib/manual.ts).
 */
import { getCollection, render } from "astro:content";
import { manualOrder, manualPath, manualTitle } from "./manual.ts";

export interface ManualPage {
  name: string;
  title: string;
  order?: number | undefined;
  description?: string | undefined;
  path: string;
  entry: Awaited<ReturnType<typeof getCollection<"manual">>>[number];
}

/** Every docs page, in reading order. */
export async function manualPages(): Promise<ManualPage[]> {
  const entries = await getCollection("manual");
  const pages = await Promise.all(
    entries.map(async (entry) => {
      const { headings } = await render(entry);
      return {
        name: entry.id,
        title: manualTitle(entry.id, entry.data.title, headings),
        order: entry.data.order,
        description: entry.data.description,
        path: manualPath(entry.id),
        entry,
      };
    }),
  );
  return manualOrder(pages);
}
