// The stdio transport (the SDK's): the client starts `edge mcp serve` and talks over its stdin and
// stdout; stdout carries nothing else. When the client goes away (stdin ends), the connection
// closes, which aborts every call still running (runner killed, receipt "aborted").
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { createMcpConnection } from "./server.ts";
import type { McpToolService } from "./service.ts";

export interface StdioMcpServer {
  /** Settles when the client has gone (stdin ended or closed). */
  readonly gone: Promise<void>;
  close(): Promise<void>;
}

export async function serveStdio(service: McpToolService): Promise<StdioMcpServer> {
  const connection = createMcpConnection(service);
  const transport = new StdioServerTransport();
  await connection.server.connect(transport);
  const gone = new Promise<void>((resolve) => {
    process.stdin.once("end", resolve);
    process.stdin.once("close", resolve);
  });
  return {
    gone,
    async close() {
      await connection.server.close().catch(() => undefined);
      process.stdin.destroy();
    },
  };
}
