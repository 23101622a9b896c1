// A call's arguments as the tool will see them: every parameter the schema gives a default filled in
// where the call left it out. {"amount": 250} and {"amount": 250, "tier": "basic"} ask for the same
// thing when tier defaults to "basic" (a repeated call, an expected call in eval:tools).
import { isObj, type JsonObject } from "./types.ts";

/** The arguments with every property the schema gives a default filled in where it is missing. */
export function withDefaults(parameters: JsonObject | undefined, args: JsonObject): JsonObject {
  const properties = parameters && isObj(parameters["properties"]) ? parameters["properties"] : {};
  const out: JsonObject = { ...args };
  for (const [name, schema] of Object.entries(properties)) {
    if (!(name in out) && isObj(schema) && "default" in schema) out[name] = schema["default"] as JsonObject[string];
  }
  return out;
}
