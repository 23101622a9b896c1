// The one abort race every layer uses (pipeline stages, runner pool, engines): settle with the
// work, or reject with `reason()` as soon as the signal fires. The abandoned work's later
// rejection is observed, so it never surfaces as an unhandled rejection.
export function raceSignal<T>(work: Promise<T>, signal: AbortSignal | undefined, reason: () => unknown): Promise<T> {
  if (!signal) return work;
  if (signal.aborted) {
    work.catch(() => undefined);
    return Promise.reject(reason());
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => {
      work.catch(() => undefined);
      reject(reason());
    };
    signal.addEventListener("abort", onAbort, { once: true });
    work.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(error);
      },
    );
  });
}
