/**
 * Long JavaScript work that shares the event loop with database round trips: `await pause()`
 * inside its loops gives the loop a turn once the budget is spent, so a response that arrived
 * meanwhile is handled (and the next statement sent) within a few milliseconds, not after the
 * whole computation. Cheap to call often: it yields only when due.
 */
export function cooperation(budgetMs = 4): () => Promise<void> | undefined {
  let since = performance.now();
  let calls = 0;
  return () => {
    if (++calls % 64 !== 0 || performance.now() - since < budgetMs) return undefined;
    return new Promise<void>((resolve) =>
      setImmediate(() => {
        since = performance.now();
        resolve();
      }),
    );
  };
}

/** `items.map(fn)`, pausing as `pause` says. */
export async function mapCooperatively<T, R>(items: readonly T[], fn: (item: T) => R, pause: () => Promise<void> | undefined): Promise<R[]> {
  const out = new Array<R>(items.length);
  for (let i = 0; i < items.length; i++) {
    out[i] = fn(items[i]!);
    const paused = pause();
    if (paused) await paused;
  }
  return out;
}
