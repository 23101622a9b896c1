// Types for cli-served.cjs (imported by src/cli/served.test.ts).
export const COMMAND_SERVER_LOST: string;
export function keeperFiles(env?: Record<string, string | undefined>): { socket: string; token: string } | undefined;
