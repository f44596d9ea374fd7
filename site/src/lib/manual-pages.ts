/**
 * The manual's pages as the portal lists them: the `manual` collection (docs/*.md), each with its
 * title and portal path, in the tree the front page's reading order writes (lib/manual.ts).
 */
import { getCollection, render } from "astro:content";
import { manualPath, manualTitle, manualTree, readingOrder, type ManualTreeItem } from "./manual.ts";

export interface ManualPage {
  name: string;
  title: string;
  description?: string | undefined;
  path: string;
  entry: Awaited<ReturnType<typeof getCollection<"manual">>>[number];
}

/** Every docs page, in the menu's tree. */
export async function manualPages(): Promise<ManualTreeItem<ManualPage>[]> {
  const entries = await getCollection("manual");
  const pages = await Promise.all(
    entries.map(async (entry) => {
      const { headings } = await render(entry);
      return {
        name: entry.id,
        title: manualTitle(entry.id, entry.data.title, headings),
        description: entry.data.description,
        path: manualPath(entry.id),
        entry,
      };
    }),
  );
  const index = entries.find((e) => e.id === "index");
  return manualTree(pages, readingOrder(index?.body ?? ""));
}

/** The menu's pages, one after another. */
export function allPages(tree: readonly ManualTreeItem<ManualPage>[]): ManualPage[] {
  return tree.flatMap((item) => [item.page, ...item.children]);
}
