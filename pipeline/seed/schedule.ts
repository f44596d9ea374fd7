/**
 * One simulated day's schedule (pipeline/seed/simulate.ts): a binary min-heap of actions by instant,
 * ties kept in the order they were added, so a day runs in a fixed order.
 */
import { type ActionResult } from "./consensus.ts";

interface Action {
  ms: number;
  order: number;
  run: () => ActionResult;
}

/** A binary min-heap of actions by (ms, order): one cycle's schedule, run in time order. */
export class Schedule {
  readonly #items: Action[] = [];
  #order = 0;

  get size(): number {
    return this.#items.length;
  }

  add(ms: number, run: () => ActionResult): void {
    const items = this.#items;
    items.push({ ms, order: this.#order++, run });
    let i = items.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!before(items[i]!, items[parent]!)) break;
      [items[i], items[parent]] = [items[parent]!, items[i]!];
      i = parent;
    }
  }

  pop(): Action | undefined {
    const items = this.#items;
    const top = items[0];
    const last = items.pop();
    if (items.length > 0 && last) {
      items[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < items.length && before(items[l]!, items[m]!)) m = l;
        if (r < items.length && before(items[r]!, items[m]!)) m = r;
        if (m === i) break;
        [items[i], items[m]] = [items[m]!, items[i]!];
        i = m;
      }
    }
    return top;
  }
}

function before(a: Action, b: Action): boolean {
  return a.ms < b.ms || (a.ms === b.ms && a.order < b.order);
}
