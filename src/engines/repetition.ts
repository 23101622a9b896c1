// A reply caught in a loop: greedy decoding on a small model can repeat one sentence until the
// answer budget runs out — SmolLM2-135M wrote "She was a cat." and "I'm happy to help." over and
// over in eval:tools (to the default budget of 1,024 tokens: minutes at the 5–10 tokens/s it
// decodes in Firefox and WebKitGTK). The llama.cpp engine
// ends a prose reply once its tail is one span repeated back to back (docs/engines.md "Loops").

/** Back-to-back copies of one span a loop takes: three, and 48 characters in all (a short span
 *  must repeat more often: "ha ha ha" is prose, "-L-L-L-L…" for 48 characters is not). */
const COPIES = 3;
const MIN_CHARS = 48;
const MAX_PERIOD = 200;

/** Whether `text` ends with one span of at most 200 characters repeated back to back at least
 *  three times and over at least 48 characters. */
export function endsInLoop(text: string): boolean {
  for (let period = 1; period <= MAX_PERIOD; period++) {
    const span = period * Math.max(COPIES, Math.ceil(MIN_CHARS / period));
    if (span > text.length) return false;
    let periodic = true;
    for (let i = text.length - 1; i >= text.length - span + period; i--) {
      if (text[i] !== text[i - period]) {
        periodic = false;
        break;
      }
    }
    if (periodic) return true;
  }
  return false;
}
