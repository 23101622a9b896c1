// Types for cli-served.cjs (imported by src/cli/served.test.ts).
export const COMMAND_SERVER_LOST: string;
export function keeperFiles(env?: Record<string, string | undefined>, execPath?: string): { socket: string; token: string } | undefined;
export function runKept(argv: string[], env?: Record<string, string | undefined>): Promise<number | undefined>;
