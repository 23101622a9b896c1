// The public API is a list (docs/api.md): src/index.ts names every export on purpose, src/node.ts
// and src/browser.ts add their roots and adapters to it, and every name a page in docs/ (or the
// README) imports from "edge-web", "edge-web/node" or "edge-web/browser" is one of them — and each
// such snippet compiles against what package.json's `exports` really serves.
import { execFileSync } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = path.resolve(new URL("../", import.meta.url).pathname);
const read = (file: string): string => readFileSync(path.join(ROOT, file), "utf8");

/** The names an entry file exports with `export { a, type B } from "…"` (and its `export *` lines). */
function entryExports(file: string): { names: Set<string>; values: string[]; stars: string[] } {
  const text = read(file).replace(/^\s*\/\/.*$/gm, "");
  // `export type { A, B }` lists types only: each is read as `type A`.
  const items = [...text.matchAll(/export\s+(type\s+)?\{([^}]*)\}/g)].flatMap((m) =>
    m[2]!
      .split(",")
      .map((s) => s.trim())
      .filter(Boolean)
      .map((item) => (m[1] && !item.startsWith("type ") ? `type ${item}` : item)),
  );
  const names = new Set(items.map((item) => item.replace(/^type\s+/, "")));
  const values = items.filter((item) => !item.startsWith("type ")).sort();
  const stars = [...text.matchAll(/export\s*\*\s*from\s*"([^"]+)"/g)].map((m) => m[1]!);
  return { names, values, stars };
}

const index = entryExports("src/index.ts");
const ENTRIES: Record<string, Set<string>> = { "edge-web": index.names };
for (const [spec, file] of [
  ["edge-web/node", "src/node.ts"],
  ["edge-web/browser", "src/browser.ts"],
] as const) {
  ENTRIES[spec] = new Set([...index.names, ...entryExports(file).names]);
}

const PAGES = [
  "README.md",
  ...readdirSync(path.join(ROOT, "docs"))
    .filter((f) => f.endsWith(".md"))
    .map((f) => `docs/${f}`),
];

/** Every `import { … } from "edge-web…"` in the README and docs/*.md. */
function documentedImports(): { page: string; spec: string; name: string }[] {
  return PAGES.flatMap((page) =>
    [...read(page).matchAll(/import\s*\{([^}]*)\}\s*from\s*"(edge-web(?:\/node|\/browser)?)"/g)].flatMap((m) =>
      m[1]!
        .split(",")
        .map(
          (s) =>
            s
              .trim()
              .replace(/^type\s+/, "")
              .split(/\s+as\s+/)[0]!,
        )
        .filter(Boolean)
        .map((name) => ({ page, spec: m[2]!, name })),
    ),
  );
}

describe("the public API", () => {
  it("src/index.ts lists its names (no export *), about as many as web-llm's 83; node.ts and browser.ts add theirs to it", () => {
    expect(index.stars).toEqual([]);
    expect(index.names.size).toBeGreaterThan(50);
    expect(index.names.size).toBeLessThanOrEqual(90);
    expect(entryExports("src/node.ts").stars).toEqual(["./index.ts"]);
    expect(entryExports("src/browser.ts").stars).toEqual(["./index.ts"]);
  });

  it("what the docs import from the package is exported there", () => {
    const found = documentedImports();
    expect(found.length).toBeGreaterThan(0);
    expect(
      found.filter((i) => !ENTRIES[i.spec]!.has(i.name)).map((i) => `${i.page}: ${i.name} from ${i.spec}`),
    ).toEqual([]);
  });

  it("the values the list names are exactly what the module exports when it runs", async () => {
    const mod: Record<string, unknown> = await import("../src/index.ts");
    expect(Object.keys(mod).sort()).toEqual(index.values);
  });

  it("every TypeScript snippet of the docs that imports the package compiles against its exports", () => {
    const snippets = PAGES.flatMap((page) =>
      [...read(page).matchAll(/```ts\n([\s\S]*?)```/g)]
        .map((m) => m[1]!)
        .filter((code) => /from "edge-web(?:\/node|\/browser)?"/.test(code))
        .map((code) => ({ page, code })),
    );
    expect(snippets.length).toBeGreaterThanOrEqual(4);
    // Inside the package, so that "edge-web/…" resolves as a user's import does: through `exports`.
    const dir = path.join(ROOT, ".cache", "doc-snippets");
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    snippets.forEach((s, i) =>
      writeFileSync(path.join(dir, `${String(i).padStart(2, "0")}-${path.basename(s.page, ".md")}.ts`), s.code),
    );
    writeFileSync(
      path.join(dir, "tsconfig.json"),
      JSON.stringify({
        extends: "../../tsconfig.json",
        compilerOptions: { noUnusedLocals: false },
        include: ["*.ts", "../../src/**/*.d.ts"],
      }),
    );
    let out = "";
    try {
      execFileSync(
        process.execPath,
        [path.join(ROOT, "node_modules/typescript/bin/tsc"), "--noEmit", "-p", path.join(dir, "tsconfig.json")],
        { encoding: "utf8" },
      );
    } catch (err) {
      out = String((err as { stdout?: string }).stdout ?? err);
    }
    expect(out).toBe("");
  }, 120_000);
});
