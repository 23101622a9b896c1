// Types for start.mjs (imported by test/start.test.ts).
export function canOpenBrowser(platform?: string, env?: Record<string, string | undefined>): boolean;
