// The engine-neutral `response_format` (web-llm's field names; built by ../grammar.ts) → one GBNF
// grammar for llama.cpp. So a caller asks for guided tool calls the same way whatever the engine:
//   json_object + schema      → the schema's grammar (exactly one valid call)
//   structural_tag (or of the call-union json_schema and the plain-text regex)
//                             → root ::= call | text — "either one valid call or a plain answer
//                               that does not start with { or whitespace", a GBNF alternation
//   grammar                   → passed through: for this engine it is GBNF
// Structural-tag parts are translated where GBNF can say the same thing; a regex other than the
// plain-text ones (and the check's yes|no) is refused (response_format_unsupported) rather than silently dropped.
import { EdgeError } from "../../contract/errors.ts";
import type { ResponseFormat, StructuralTagFormat } from "../engine.ts";
import { ANSWER_ONLY_PATTERN, CHECK_PATTERN, TEXT_ANSWER_PATTERN } from "../grammar.ts";
import { alternation, GbnfBuilder, gbnfLiteral } from "./gbnf.ts";

/** GBNF for TEXT_ANSWER_PATTERN ("[^{\s][\s\S]*"): a first character that is neither "{" nor
 *  JavaScript whitespace (the same set as \s), then anything. */
const TEXT_ANSWER_GBNF =
  "[^{ \\t\\n\\r\\x0B\\x0C\\u00A0\\u1680\\u2000-\\u200A\\u2028\\u2029\\u202F\\u205F\\u3000\\uFEFF] [^\\x00]*";
/** GBNF for ANSWER_ONLY_PATTERN: TEXT_ANSWER_GBNF's first character, and not "`" or "<" either. */
const ANSWER_ONLY_GBNF = TEXT_ANSWER_GBNF.replace("[^{", "[^{`<");
const REGEX_GBNF: Record<string, string> = {
  [TEXT_ANSWER_PATTERN]: TEXT_ANSWER_GBNF,
  [ANSWER_ONLY_PATTERN]: ANSWER_ONLY_GBNF,
  [CHECK_PATTERN]: '"yes" | "no"',
};

const unsupported = (what: string): EdgeError =>
  EdgeError.withTableFix(
    "response_format_unsupported",
    { reason: "response_format", what },
    `The llama.cpp engine cannot express this response format part as a grammar: ${what}.`,
  );

function translate(b: GbnfBuilder, f: StructuralTagFormat, name: string): string {
  switch (f.type) {
    case "json_schema":
      return b.schema(f.json_schema, name);
    case "regex": {
      const known = REGEX_GBNF[f.pattern];
      if (!known) throw unsupported(`the regex ${JSON.stringify(f.pattern)}`);
      return b.rule(`${name}-text`, known);
    }
    case "const_string":
      return gbnfLiteral(f.value);
    case "any_text":
      if (f.excludes?.length) throw unsupported("any_text with excludes");
      return b.rule(`${name}-any`, "[^\\x00]*");
    case "or":
      return alternation(f.elements.map((e, i) => translate(b, e, `${name}-${i}`)));
    case "sequence":
      return f.elements.map((e, i) => translate(b, e, `${name}-${i}`)).join(" ");
    case "tag":
      return `${gbnfLiteral(f.begin)} ${translate(b, f.content, `${name}-content`)} ${gbnfLiteral(f.end)}`;
    default:
      throw unsupported(`the structural tag format "${(f as { type: string }).type}"`);
  }
}

/** The GBNF for a response format, or undefined for free text. */
export function gbnfForResponseFormat(format: ResponseFormat | undefined): string | undefined {
  if (!format || format.type === "text") return undefined;
  if (format.type === "grammar") return format.grammar;
  const b = new GbnfBuilder();
  try {
    if (format.type === "json_object") {
      const schema: unknown = format.schema === undefined ? { type: "object" } : JSON.parse(format.schema);
      return b.render(b.schema(schema, "v"));
    }
    const tag =
      typeof format.structural_tag === "string"
        ? (JSON.parse(format.structural_tag) as { format?: StructuralTagFormat })
        : format.structural_tag;
    if (!tag || typeof tag !== "object" || !tag.format) throw unsupported("a structural tag without a format");
    return b.render(translate(b, tag.format, "v"));
  } catch (e) {
    if (e instanceof EdgeError) throw e;
    throw EdgeError.withTableFix(
      "response_format_unsupported",
      { reason: "response_format", original: String(e) },
      `The response format could not be turned into a grammar: ${(e as Error).message}.`,
    );
  }
}
