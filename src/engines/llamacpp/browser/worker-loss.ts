// A worker that is gone (an error event on its Worker object: it could not start, or it crashed)
// as a rejection of whatever waits on it: nothing waits for ever on a worker that will not answer.
// Edge's worker (worker-session.ts) and wllama's (page-model.ts) each have one.
export class WorkerLoss {
  private readonly waiting = new Set<(reason: string) => void>();
  private reason: string | undefined;

  /** The worker is gone: everything guarded fails with `reason`, now and from now on. */
  lost(reason: string): void {
    if (this.reason !== undefined) return;
    this.reason = reason;
    for (const reject of this.waiting) reject(reason);
  }

  /** `work`, or a rejection with `onLost(reason)` if the worker is lost first. */
  guard<T>(work: Promise<T>, onLost: (reason: string) => Error): Promise<T> {
    if (this.reason !== undefined) {
      work.catch(() => undefined);
      return Promise.reject(onLost(this.reason));
    }
    return new Promise<T>((resolve, reject) => {
      const fail = (reason: string): void => reject(onLost(reason));
      this.waiting.add(fail);
      work.then(resolve, reject).finally(() => this.waiting.delete(fail));
    });
  }
}
