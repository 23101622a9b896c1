// Output kept up to a hard size bound; the rest is counted, not kept. Used for what a runner
// prints: inside the worker (Pyodide's stdout/stderr callbacks) and, for a Node runner process,
// by the host for the process's fd 1 and 2.
export class BoundedText {
  private kept = "";
  private dropped = 0;
  constructor(public limit: number) {}

  get text(): string {
    return this.dropped > 0 ? `${this.kept}\n[… ${this.dropped} more characters of output not kept]` : this.kept;
  }

  readonly append = (chunk: string): void => {
    const room = this.limit - this.kept.length;
    if (room >= chunk.length) this.kept += chunk;
    else {
      if (room > 0) this.kept += chunk.slice(0, room);
      this.dropped += chunk.length - Math.max(room, 0);
    }
  };

  /** For Pyodide's batched callbacks, which hand over one line without its newline. */
  readonly line = (line: string): void => this.append(`${line}\n`);

  clear(): void {
    this.kept = "";
    this.dropped = 0;
  }
}
