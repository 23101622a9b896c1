// Where a tools project declares and locks its dependencies, found without parsing anything: the
// tools file's PEP 723 block, the requirements.txt and pylock.toml beside it. A freeze reads the
// declarations (declared.ts, pylock.ts: TOML and PEP 440 code) only when one of these is there, so
// a project without them loads none of that code.

export const PYLOCK_NAME = "pylock.toml";
export const REQUIREMENTS_NAME = "requirements.txt";

/** The folder part of a project path ("shop/tools.py" → "shop/", "tools.py" → ""). */
export function folderOf(entry: string): string {
  const at = entry.lastIndexOf("/");
  return at < 0 ? "" : entry.slice(0, at + 1);
}

/** Whether the project may declare dependencies: a "# /// script" line in the tools file, or a
 *  requirements.txt or pylock.toml beside it. */
export function mayDeclare(files: Readonly<Record<string, Uint8Array>>, entry: string): boolean {
  const folder = folderOf(entry);
  if (files[`${folder}${REQUIREMENTS_NAME}`] || files[`${folder}${PYLOCK_NAME}`]) return true;
  const tools = files[entry];
  return tools !== undefined && /^# \/\/\/ script\r?$/m.test(new TextDecoder().decode(tools));
}
