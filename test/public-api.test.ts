// The public API is a list (docs/architecture.md, "The public API"): src/index.ts names every
// export on purpose, src/node.ts and src/browser.ts add their adapters to it, and every name a
// page in docs/ (or the README) imports from "edge-web", "edge-web/node" or "edge-web/browser" is
// one of them — the docs' examples compile against what the package really exports.
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = path.resolve(new URL("../", import.meta.url).pathname);
const read = (file: string): string => readFileSync(path.join(ROOT, file), "utf8");

/** The names an entry file exports with `export { a, type B } from "…"` (and its `export *` lines). */
function entryExports(file: string): { names: Set<string>; values: string[]; stars: string[] } {
  const text = read(file).replace(/^\s*\/\/.*$/gm, "");
  const items = [...text.matchAll(/export\s*\{([^}]*)\}/g)].flatMap((m) => m[1]!.split(",").map((s) => s.trim()).filter(Boolean));
  const names = new Set(items.map((item) => item.replace(/^type\s+/, "")));
  const values = items.filter((item) => !item.startsWith("type ")).sort();
  const stars = [...text.matchAll(/export\s*\*\s*from\s*"([^"]+)"/g)].map((m) => m[1]!);
  return { names, values, stars };
}

const index = entryExports("src/index.ts");
const ENTRIES: Record<string, Set<string>> = { "edge-web": index.names };
for (const [spec, file] of [["edge-web/node", "src/node.ts"], ["edge-web/browser", "src/browser.ts"]] as const) {
  ENTRIES[spec] = new Set([...index.names, ...entryExports(file).names]);
}

/** Every `import { … } from "edge-web…"` in the README and docs/*.md. */
function documentedImports(): { page: string; spec: string; name: string }[] {
  const pages = ["README.md", ...readdirSync(path.join(ROOT, "docs")).filter((f) => f.endsWith(".md")).map((f) => `docs/${f}`)];
  return pages.flatMap((page) =>
    [...read(page).matchAll(/import\s*\{([^}]*)\}\s*from\s*"(edge-web(?:\/node|\/browser)?)"/g)].flatMap((m) =>
      m[1]!
        .split(",")
        .map((s) => s.trim().replace(/^type\s+/, "").split(/\s+as\s+/)[0]!)
        .filter(Boolean)
        .map((name) => ({ page, spec: m[2]!, name })),
    ),
  );
}

describe("the public API", () => {
  it("src/index.ts lists its names (no export *); node.ts and browser.ts add theirs to it", () => {
    expect(index.stars).toEqual([]);
    expect(index.names.size).toBeGreaterThan(100);
    expect(entryExports("src/node.ts").stars).toEqual(["./index.ts"]);
    expect(entryExports("src/browser.ts").stars).toEqual(["./index.ts"]);
  });

  it("what the docs import from the package is exported there", () => {
    const found = documentedImports();
    expect(found.length).toBeGreaterThan(0);
    expect(found.filter((i) => !ENTRIES[i.spec]!.has(i.name)).map((i) => `${i.page}: ${i.name} from ${i.spec}`)).toEqual([]);
  });

  it("the values the list names are exactly what the module exports when it runs", async () => {
    const mod: Record<string, unknown> = await import("../src/index.ts");
    expect(Object.keys(mod).sort()).toEqual(index.values);
  });
});
