// Modules provided by plugins in vite.config.ts.

/** The runner worker (workers/runner.worker.ts and its imports) bundled as one classic script. */
declare module "virtual:edge-runner-worker" {
  const code: string;
  export default code;
}
