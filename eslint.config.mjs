// ESLint runs only what Biome cannot check as well (docs/decisions.md, "Formatting and lint"): the
// type-aware no-floating-promises (Biome's own misses promises typed by node_modules: node:fs/promises,
// Playwright), and `as unknown as`, which skips the type checker. Biome formats and lints the rest
// (biome.json); knip finds unused exports and files (knip.json). `npm run lint` runs all three.
import tseslint from "typescript-eslint";

export default [
  {
    ignores: [
      "node_modules/",
      "dist/",
      ".cache/",
      "test-results/",
      "playwright-report/",
      ".edge-data/",
      "models/",
      "public/",
    ],
  },
  {
    files: ["**/*.ts", "**/*.mts", "**/*.cts"],
    languageOptions: {
      parser: tseslint.parser,
      // tsconfig.json's program; the widget's vite config is outside its include, so it gets a default one.
      parserOptions: {
        projectService: { allowDefaultProject: ["vite.widget.config.ts"] },
        tsconfigRootDir: import.meta.dirname,
      },
    },
    linterOptions: { reportUnusedDisableDirectives: "error" },
    plugins: { "@typescript-eslint": tseslint.plugin },
    rules: {
      // A promise nobody awaits loses its rejection; fire-and-forget is written `void promise`.
      "@typescript-eslint/no-floating-promises": "error",
      // A double cast tells the type checker nothing; type the value, or say why with
      // `// eslint-disable-next-line no-restricted-syntax -- reason` (e.g. a test handing a wrong type on purpose).
      "no-restricted-syntax": [
        "error",
        {
          selector:
            "TSAsExpression[expression.type='TSAsExpression'][expression.typeAnnotation.type='TSUnknownKeyword']",
          message:
            "`as unknown as` skips the type checker: type the value (a type guard, a parse, a generic), or keep the cast with an eslint-disable comment that says why.",
        },
        {
          selector:
            "TSTypeAssertion[expression.type='TSTypeAssertion'][expression.typeAnnotation.type='TSUnknownKeyword']",
          message:
            "`<T><unknown>x` skips the type checker: type the value, or keep the cast with an eslint-disable comment that says why.",
        },
      ],
    },
  },
];
