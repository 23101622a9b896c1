// Text as a POSIX shell word, for the commands Edge prints for a person to copy (a confirm command,
// `edge packages lock PATH`): a path with spaces or quotes reads back as it is.

/** Always single-quoted. */
export function shellQuote(text: string): string {
  return `'${text.replace(/'/g, "'\\''")}'`;
}

/** Quoted only when the shell would read it otherwise (a plain path stays as the person typed it). */
export function shellWord(text: string): string {
  return /^[A-Za-z0-9_./:@%+=,-]+$/.test(text) ? text : shellQuote(text);
}
