// The command table's third part (commands.ts): what is stored on this device — the workspace,
// imprints, Python packages and receipts.
import { lazy, JSON_OUT, type Command } from "./command-table.ts";

export const STORES_COMMANDS: readonly Command[] = [
  {
    path: ["workspace", "ls"],
    summary: "the stored workspace's files, sizes and sha256",
    usage: `edge workspace ls [--json]`,
    run: lazy(
      () => import("./workspace.ts"),
      (m) => m.workspaceLs,
    ),
  },
  {
    path: ["workspace", "import"],
    summary: "import a .zip (bounded), a folder or a file into the stored workspace",
    usage: `edge workspace import PATH [--into SUBDIR] [--json]

Every name and the workspace limits are checked first; the import is written as one change (a bad
archive or a symbolic link changes nothing). edge chat and edge tools call use the stored workspace
when they get no --workspace DIR: read_local tools see it at /workspace, --builtins work on it. ${JSON_OUT}`,
    run: lazy(
      () => import("./workspace.ts"),
      (m) => m.workspaceImport,
    ),
  },
  {
    path: ["workspace", "export"],
    summary: "write the stored workspace as a zip",
    usage: `edge workspace export -o FILE.zip [--json]`,
    run: lazy(
      () => import("./workspace.ts"),
      (m) => m.workspaceExport,
    ),
  },
  {
    path: ["imprints", "list"],
    summary: "list stored imprints",
    usage: `edge imprints list [--json]`,
    run: lazy(
      () => import("./imprints.ts"),
      (m) => m.imprintsList,
    ),
  },
  {
    path: ["imprints", "show"],
    summary: "show one imprint",
    usage: `edge imprints show ID [--json]`,
    run: lazy(
      () => import("./imprints.ts"),
      (m) => m.imprintsShow,
    ),
  },
  {
    path: ["imprints", "export"],
    summary: "an imprint as a sealed JSON file (with its saved model state, when it has one)",
    usage: `edge imprints export ID [-o FILE] [--without-state] [--json]    (an existing FILE is never replaced)

A saved model state travels in the same file (base64, checked against the imprint's sha256 on
import); a damaged one is refused: --without-state exports the imprint alone.`,
    run: lazy(
      () => import("./imprints.ts"),
      (m) => m.imprintsExport,
    ),
  },
  {
    path: ["imprints", "import"],
    summary: "import (and verify) an exported imprint",
    usage: `edge imprints import FILE [--json]`,
    run: lazy(
      () => import("./imprints.ts"),
      (m) => m.imprintsImport,
    ),
  },
  {
    path: ["imprints", "delete"],
    summary: "delete an imprint",
    usage: `edge imprints delete ID [--json]`,
    run: lazy(
      () => import("./imprints.ts"),
      (m) => m.imprintsDelete,
    ),
  },
  {
    path: ["packages", "add"],
    summary:
      "fetch Python packages of Pyodide's lock (with their dependencies) onto this device, each checked against the lock's sha256",
    usage: `edge packages add NAME... [--package-source DIR|URL] [--json]

NAME: a package of Pyodide's lock (numpy, pandas, beautifulsoup4 …) or an import name (bs4); its
dependencies come too. Each wheel is fetched from --package-source (a folder, file:// or http(s)://
URL; default $EDGE_PACKAGE_SOURCE, else Pyodide's CDN), checked against the lock's sha256 before it is
kept in $EDGE_DATA_DIR/packages, and not fetched again while intact. $EDGE_PACKAGE_LOCK names another
pyodide-lock.json for the same Pyodide. A package from PyPI is declared and locked instead (edge packages lock).
${JSON_OUT}`,
    run: lazy(
      () => import("./packages.ts"),
      (m) => m.packagesAdd,
    ),
  },
  {
    path: ["packages", "list"],
    summary: "the Python packages stored on this device (or, with --available, every package of the lock)",
    usage: `edge packages list [--available] [--json]`,
    run: lazy(
      () => import("./packages.ts"),
      (m) => m.packagesList,
    ),
  },
  {
    path: ["packages", "verify"],
    summary: "hash every stored wheel against Pyodide's lock (exit 1 on a mismatch)",
    usage: `edge packages verify [--json]`,
    run: lazy(
      () => import("./packages.ts"),
      (m) => m.packagesVerify,
    ),
  },
  {
    path: ["packages", "remove"],
    summary: "delete stored packages' wheels (not their dependencies)",
    usage: `edge packages remove NAME... [--json]`,
    run: lazy(
      () => import("./packages.ts"),
      (m) => m.packagesRemove,
    ),
  },
  {
    path: ["packages", "lock"],
    summary:
      "resolve a tools file's declared dependencies (PEP 723 or requirements.txt) from PyPI into pylock.toml, and fetch the wheels it pins",
    usage: `edge packages lock TOOLS.PY [--tools-root DIR] [--index-url URL] [--upgrade] [--package-source DIR|URL] [--json]

Resolves the tools file's "# /// script" dependencies and the requirements.txt beside it against the
index (--index-url, $EDGE_PACKAGE_INDEX, else PyPI) into pylock.toml (PEP 751) beside the tools file
— kept while it matches the declarations, unless --upgrade — taking for each package the newest
wheel Pyodide installs (else Pyodide's own build, from --package-source), and fetches every wheel
it pins into $EDGE_DATA_DIR/packages, checked by sha256. Calls are offline from then on (docs/packages.md).
${JSON_OUT}`,
    run: lazy(
      () => import("./packages-lock.ts"),
      (m) => m.packagesLock,
    ),
  },
  {
    path: ["receipts", "list"],
    summary: "list stored receipts",
    usage: `edge receipts list [--json]`,
    run: lazy(
      () => import("./receipts.ts"),
      (m) => m.receiptsList,
    ),
  },
  {
    path: ["receipts", "show"],
    summary: "show one receipt",
    usage: `edge receipts show ID [--json]`,
    run: lazy(
      () => import("./receipts.ts"),
      (m) => m.receiptsShow,
    ),
  },
  {
    path: ["receipts", "export"],
    summary: "all receipts as JSON Lines on stdout, oldest first",
    usage: `edge receipts export`,
    run: lazy(
      () => import("./receipts.ts"),
      (m) => m.receiptsExport,
    ),
  },
  {
    path: ["receipts", "verify"],
    summary: "check a JSON Lines export's chain",
    usage: `edge receipts verify FILE [--json]    exit 0 if the chain holds, 1 at the first broken link`,
    run: lazy(
      () => import("./receipts.ts"),
      (m) => m.receiptsVerify,
    ),
  },
];
