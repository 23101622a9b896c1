// The workspace VFS over IndexedDB plus the built-in tools, as the test page wires them.
import { registerBuiltins } from "../../src/builtins/index.ts";
import type { EdgeVfs } from "../../src/builtins/vfs/core.ts";
import { openIdbVfs } from "../../src/builtins/vfs/store-idb.ts";
import type { ToolRuntime } from "../../src/runtime/index.ts";
import type { EdgeDb } from "../../src/idb/schema.ts";

export async function createBuiltins(
  db: EdgeDb,
  runtime: ToolRuntime,
  allowWrites: boolean,
): Promise<{ vfs: EdgeVfs }> {
  const vfs = await openIdbVfs(db, { limits: { maxTotalBytes: 2 * 1024 * 1024 } });
  await registerBuiltins(runtime, { vfs, allowWrites, sessionId: "e2e" });
  return { vfs };
}
