/** A bound on what the window holds, by the weight of its items (e.g. their size in bytes). */
export interface WeightBudget<T> {
  weigh(item: T): number;
  max: number;
}

/**
 * Maps `items` through `fn` with at most `limit` calls in flight, yielding results in input order. The window also
 * bounds memory: at most `limit` results wait to be consumed. With a `budget`, the items launched and not yet done
 * with (the one the consumer holds included, until it asks for the next) weigh at most `budget.max` together; one
 * item always runs, however heavy. So small items go many at a time and large ones few.
 */
export async function* mapOrdered<T, R>(items: readonly T[], limit: number, fn: (item: T, index: number) => Promise<R>, budget?: WeightBudget<T>): AsyncGenerator<R> {
  const window: { result: Promise<R>; weight: number }[] = [];
  let held = 0;
  let next = 0;
  const fits = () => {
    if (next >= items.length || window.length >= limit) return false;
    return budget === undefined || held === 0 || held + budget.weigh(items[next]) <= budget.max;
  };
  const launch = () => {
    const result = fn(items[next], next);
    result.catch(() => {}); // observed when its turn comes; avoids an unhandled rejection before then
    const weight = budget?.weigh(items[next]) ?? 0;
    held += weight;
    window.push({ result, weight });
    next++;
  };
  while (fits()) launch();
  while (window.length > 0) {
    const { result, weight } = window.shift()!;
    const value = await result;
    while (fits()) launch();
    yield value;
    held -= weight;
    while (fits()) launch();
  }
}
