// `npm start`: the playground's dev server (vite on port 5173, or `npm start -- --port N`), and a
// browser tab for it only where one can be opened. vite's own `--open` runs xdg-open on Linux and
// prints a stack trace when there is none (a server, a container, SSH without a desktop): here
// the URL is printed instead and the server keeps running.
import { spawn } from "node:child_process";
import { accessSync, constants, realpathSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

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
  const port = extra.includes("--port") ? [] : ["--port", "5173"];
  const open = canOpenBrowser() ? ["--open"] : [];
  if (!open.length) console.log("No desktop browser to open here: open the Local URL below in a browser.");
  const vite = path.join(path.dirname(fileURLToPath(import.meta.url)), "..", "node_modules", "vite", "bin", "vite.js");
  const child = spawn(process.execPath, [vite, ...port, ...open, ...extra], { stdio: "inherit" });
  for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => child.kill(signal));
  child.on("exit", (code, signal) => process.exit(code ?? (signal === "SIGINT" ? 130 : 1)));
}
