/**
 * Runs `task` every `intervalMs` (first after one interval), one run at a time: a run still going
 * when the next is due makes that one skip. The timer does not keep the process alive. Returns a
 * stop function that waits for the run in progress.
 */
export function every(intervalMs: number, task: () => Promise<unknown>, onError: (error: unknown) => void): () => Promise<void> {
  let running: Promise<unknown> | undefined;
  const timer = setInterval(() => {
    if (running) return;
    running = task()
      .catch(onError)
      .finally(() => {
        running = undefined;
      });
  }, intervalMs);
  timer.unref();
  return async () => {
    clearInterval(timer);
    await running;
  };
}
