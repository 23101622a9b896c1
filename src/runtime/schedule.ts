// Batch scheduling: consecutive concurrency-safe calls share a rolling pool (a new call starts
// the moment any running one finishes, up to the cap); a call that is not safe is a barrier —
// it starts after everything before it settled, and everything after it waits for it.

export interface Scheduled<T> {
  safe: boolean;
  run(): Promise<T>;
}

export async function runScheduled<T>(jobs: readonly Scheduled<T>[], cap: number): Promise<T[]> {
  const results = new Array<T>(jobs.length);
  let index = 0;
  while (index < jobs.length) {
    const job = jobs[index]!;
    if (!job.safe) {
      results[index] = await job.run();
      index += 1;
      continue;
    }
    let end = index;
    while (end < jobs.length && jobs[end]!.safe) end += 1;
    await pool(jobs, index, end, cap, results);
    index = end;
  }
  return results;
}

async function pool<T>(
  jobs: readonly Scheduled<T>[],
  from: number,
  to: number,
  cap: number,
  results: T[],
): Promise<void> {
  let next = from;
  // Each worker takes the next unstarted job when its current one settles: a rolling pool,
  // not fixed waves of `cap`.
  const worker = async (): Promise<void> => {
    while (next < to) {
      const mine = next;
      next += 1;
      results[mine] = await jobs[mine]!.run();
    }
  };
  const workers = Math.min(cap, to - from);
  await Promise.all(Array.from({ length: workers }, worker));
}

/**
 * The same rule for calls that arrive one at a time (a protocol server's requests) instead of as
 * one batch: in arrival order, a safe call starts while only safe calls run (up to `cap`); a call
 * that is not safe starts once everything before it settled, and everything after it waits for it.
 */
export interface CallGate {
  run<T>(safe: boolean, job: () => Promise<T>): Promise<T>;
}

export function createCallGate(cap: number): CallGate {
  const queue: Array<{ safe: boolean; start: () => void }> = [];
  let running = 0;
  let unsafeRunning = false;
  const pump = (): void => {
    while (queue.length) {
      const head = queue[0]!;
      const canStart = head.safe ? !unsafeRunning && running < cap : running === 0;
      if (!canStart) return;
      queue.shift();
      running += 1;
      if (!head.safe) unsafeRunning = true;
      head.start();
    }
  };
  return {
    run<T>(safe: boolean, job: () => Promise<T>): Promise<T> {
      return new Promise<T>((resolve, reject) => {
        queue.push({
          safe,
          start: () => {
            job()
              .then(resolve, reject)
              .finally(() => {
                running -= 1;
                if (!safe) unsafeRunning = false;
                pump();
              });
          },
        });
        pump();
      });
    },
  };
}
