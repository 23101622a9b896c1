// Commands as documentation writes them: one per line, a trailing `\` continues it on the next
// line. Shared by the tests that run documented commands as written (the README, the seeds).

/** The commands among `lines` that `keep` accepts, with their `\` continuations joined. */
export function joinedCommands(lines: readonly string[], keep: (line: string) => boolean): string[] {
  const out: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (!keep(lines[i]!)) continue;
    let cmd = lines[i]!;
    while (cmd.trimEnd().endsWith("\\") && i + 1 < lines.length)
      cmd = `${cmd.trimEnd().slice(0, -1).trimEnd()} ${lines[++i]!.trim()}`;
    out.push(cmd.trim());
  }
  return out;
}
