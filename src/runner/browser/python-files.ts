// The runner's Python sources as text, bundled by Vite (`?raw`), keyed by path relative to the
// runner's Python root ("edge_runner/__init__.py", "edgestudio/tools.py"): the boot message's pythonFiles.
// Only the runner package ships; tests and caches under runner-pyodide/ do not.
import type { PythonFiles } from "../../../workers/protocol.ts";

// Same set as the Node adapter's readRunnerPythonFiles (src/runner/node.ts).
const modules = import.meta.glob(
  ["/runner-pyodide/edge_runner/**/*.py", "/runner-pyodide/edgestudio/**/*.py", "!**/tests/**", "!**/__pycache__/**"],
  {
    query: "?raw",
    import: "default",
    eager: true,
  },
) as Record<string, string>;

export const PYTHON_FILES: PythonFiles = Object.fromEntries(
  Object.entries(modules).map(([path, text]) => [path.replace(/^\/runner-pyodide\//, ""), text]),
);
