// Types for start.mjs (imported by test/start.test.ts and e2e/browsers/run.ts).
export function canOpenBrowser(platform?: string, env?: Record<string, string | undefined>): boolean;
/** Whether `root`/dist holds a build of the app (with its service worker) newer than every source. */
export function buildIsCurrent(root?: string): boolean;
