// Types for cli-cache.cjs (imported by src/cli/launcher.test.ts).
export const CLI_BUILD_FORMAT: string;
export const CLI_ENTRY: string;
export function buildKey(files: readonly string[], read: (file: string) => Uint8Array, root?: string): string;
export function currentBuild(dir: string, root?: string): string | undefined;
