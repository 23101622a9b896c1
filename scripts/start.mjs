// `npm start`: the playground as people get it — the production build (service worker, installable,
// offline after one visit, cross-origin isolated) served by `vite preview` on port 5173 (or
// `npm start -- --port N`). dist/ is built first when it is missing or older than a source (the
// next start reuses it); `npm run dev` is the development server (no service worker, so no
// offline). A browser tab is opened only where one can be: vite's own `--open` runs xdg-open on
// Linux and prints a stack trace when there is none (a server, a container, SSH without a
// desktop); here the URL is printed instead and the server keeps running.
import { spawn, spawnSync } from "node:child_process";
import { accessSync, constants, existsSync, readdirSync, realpathSync, statSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = path.join(path.dirname(fileURLToPath(import.meta.url)), "..");

/** Whether `name` is an executable on PATH. */
function onPath(name, env) {
  for (const dir of (env.PATH ?? "").split(path.delimiter)) {
    if (!dir) continue;
    try {
      accessSync(path.join(dir, name), constants.X_OK);
      return true;
    } catch {
      // not in this folder
    }
  }
  return false;
}

/**
 * Whether a browser can be opened: macOS and Windows always have a way; elsewhere it takes a
 * desktop session (DISPLAY or WAYLAND_DISPLAY) and xdg-open. BROWSER=none turns it off (as in
 * create-react-app and vite's own docs).
 */
export function canOpenBrowser(platform = process.platform, env = process.env) {
  if (env.BROWSER === "none") return false;
  if (platform === "darwin" || platform === "win32") return true;
  return Boolean(env.DISPLAY || env.WAYLAND_DISPLAY) && onPath("xdg-open", env);
}

/** What the app's build is made from (tests and Python caches aside). */
const SOURCE_DIRS = ["src", "workers", "runner-pyodide", "public"];
const SOURCE_FILES = ["index.html", "vite.config.ts", "package-lock.json"];
const NOT_A_SOURCE = /(__pycache__|[\\/]tests[\\/]|\.test\.ts$)/;

function newestMtime(dir) {
  let newest = 0;
  if (!existsSync(dir)) return newest;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    if (NOT_A_SOURCE.test(p)) continue;
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(p) : statSync(p).mtimeMs);
  }
  return newest;
}

/** Whether `root`/dist holds a build of the app (with its service worker) newer than every source. */
export function buildIsCurrent(root = ROOT) {
  const built = ["index.html", "sw.js"].map((f) => path.join(root, "dist", f));
  if (!built.every((f) => existsSync(f))) return false;
  const sources = [
    ...SOURCE_DIRS.map((d) => newestMtime(path.join(root, d))),
    ...SOURCE_FILES.map((f) => (existsSync(path.join(root, f)) ? statSync(path.join(root, f)).mtimeMs : 0)),
  ];
  return Math.min(...built.map((f) => statSync(f).mtimeMs)) > Math.max(...sources);
}

/** Run as a script (not imported by a test): compared as paths, so a checkout whose path has a
 *  space or goes through a link still starts (a URL compare missed "My Projects" → "My%20Projects"). */
function isMain() {
  try {
    return Boolean(process.argv[1]) && realpathSync(process.argv[1]) === realpathSync(fileURLToPath(import.meta.url));
  } catch {
    return false;
  }
}

if (isMain()) {
  const extra = process.argv.slice(2);
  const vite = path.join(ROOT, "node_modules", "vite", "bin", "vite.js");
  if (buildIsCurrent()) {
    console.log("dist/ is up to date with the sources: serving it.");
  } else {
    console.log("Building the playground into dist/ (missing or older than the sources; the next start reuses it)…");
    const built = spawnSync(process.execPath, [vite, "build", "--logLevel", "warn"], { cwd: ROOT, stdio: "inherit" });
    if (built.status !== 0) process.exit(built.status ?? 1);
  }
  const port = extra.includes("--port") ? [] : ["--port", "5173"];
  const open = canOpenBrowser() ? ["--open"] : [];
  if (!open.length) console.log("No desktop browser to open here: open the Local URL below in a browser.");
  console.log(
    "The built playground: installable, and offline after one visit. For development (instant reloads, no service worker): npm run dev",
  );
  const child = spawn(process.execPath, [vite, "preview", ...port, ...open, ...extra], { cwd: ROOT, stdio: "inherit" });
  for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => child.kill(signal));
  child.on("exit", (code, signal) => process.exit(code ?? (signal === "SIGINT" ? 130 : 1)));
}
