// `--script FILE` for `edge chat` and `edge learn run`: the scripted demo's outputs in the one
// script format every front door reads (src/chat/script.ts). Read as a stream, never by the size a
// stat reports, so a pipe works as a file does: `--script <(jq … )`, `--script /dev/stdin`.
import { createReadStream } from "node:fs";
import { parseScript } from "../chat/script.ts";
import { UsageError } from "./io.ts";

async function readText(path: string): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of createReadStream(path)) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

/** The script's outputs; an unreadable path is a usage error, a script that is not one is script_invalid. */
export async function readScript(path: string): Promise<string[]> {
  let text: string;
  try {
    text = await readText(path);
  } catch (err) {
    throw new UsageError(`--script ${path} could not be read: ${(err as Error).message}`);
  }
  return parseScript(text, `--script ${path}`);
}
