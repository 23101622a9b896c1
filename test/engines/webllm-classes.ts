// web-llm's own error classes for the fake MLCEngine. web-llm 0.2.86 exports only IntegrityError;
// the others (ContextWindowSizeExceededError, ModelNotFoundError, …) are module-private. Rather
// than imitate them, the fake takes each class's declaration from the installed package's source
// text (lib/index.js) and evaluates it, so the thrown name and message are web-llm's, byte for
// byte, and an upgrade that changes them changes what the fake throws. Pure (no Node API): the
// Node helper reads the source from disk, the browser test worker imports it as text.

export type WebLLMErrorClass = new (...args: never[]) => Error;

/** The class declaration `class NAME extends PARENT { … }` (balanced braces) in web-llm's source. */
export function classSource(source: string, name: string): { text: string; parent: string } {
  const head = new RegExp(`\\nclass ${name} extends (\\w+) \\{`).exec(source);
  if (!head) throw new Error(`web-llm's source has no class ${name}`);
  const start = head.index + 1;
  let depth = 0;
  for (let i = source.indexOf("{", start); i < source.length; i++) {
    const c = source[i];
    if (c === "{") depth++;
    else if (c === "}" && --depth === 0) return { text: source.slice(start, i + 1), parent: head[1]! };
  }
  throw new Error(`unbalanced class ${name} in web-llm's source`);
}

/** web-llm's class NAME, evaluated from its source (parents resolved the same way). */
function webllmErrorClass(source: string, name: string, cache = new Map<string, WebLLMErrorClass>()): WebLLMErrorClass {
  const known = cache.get(name);
  if (known) return known;
  const { text, parent } = classSource(source, name);
  const base = parent === "Error" ? Error : webllmErrorClass(source, parent, cache);
  const cls = new Function(parent, `return (${text});`)(base) as WebLLMErrorClass;
  cache.set(name, cls);
  return cls;
}

/** The classes the fake throws. */
export interface WebLLMErrors {
  ContextWindowSizeExceededError: new (numPromptTokens: number, contextWindowSize: number) => Error;
  ModelNotFoundError: new (modelId: string) => Error;
  ModelNotLoadedError: new (requestName: string) => Error;
  WebGPUNotAvailableError: new () => Error;
}

export function webllmErrors(source: string): WebLLMErrors {
  const cache = new Map<string, WebLLMErrorClass>();
  const get = <T>(name: string) => webllmErrorClass(source, name, cache) as T;
  return {
    ContextWindowSizeExceededError: get("ContextWindowSizeExceededError"),
    ModelNotFoundError: get("ModelNotFoundError"),
    ModelNotLoadedError: get("ModelNotLoadedError"),
    WebGPUNotAvailableError: get("WebGPUNotAvailableError"),
  };
}
