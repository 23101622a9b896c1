// `npm run setup:llama`: install the optional Node model runtime (node-llama-cpp) for
// `edge chat --model …`, with only this platform's CPU binary.
//
// Why not a plain `npm install node-llama-cpp`: its optional dependencies pull every GPU variant of
// the platform (CUDA, CUDA-ext, Vulkan: ~725 MB on linux-x64), and `--omit=optional` inside this
// project would also remove this project's own native optional packages (rolldown, esbuild,
// lightningcss), breaking the build. So the runtime is installed into its own folder
// (.cache/llama-runtime, with its own package.json) and linked as node_modules/node-llama-cpp;
// Node resolves the link to its real path, where the runtime's own dependencies live.
// The choice: docs/decisions.md ("The Node model runtime").
//
// Install scripts are not run (--ignore-scripts): node-llama-cpp's postinstall would try to build
// llama.cpp from source when no prebuilt binary fits; Edge loads it with `build: "never"` and uses
// the prebuilt binary only. Re-running is cheap: an installed runtime is only re-linked.
// `--gpu` installs the full package instead (all of this platform's GPU variants).
import { spawnSync } from "node:child_process";
import { existsSync, lstatSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export const NODE_LLAMA_CPP_VERSION = "3.22.1";

/** The CPU (or, on macOS arm64, Metal) prebuilt binary package for this platform. */
export function binaryPackage(platform = process.platform, arch = process.arch) {
  const name = {
    "linux-x64": "linux-x64",
    "linux-arm64": "linux-arm64",
    "linux-arm": "linux-armv7l",
    "linux-riscv64": "linux-riscv64",
    "darwin-arm64": "mac-arm64-metal",
    "darwin-x64": "mac-x64",
    "win32-x64": "win-x64",
    "win32-arm64": "win-arm64",
  }[`${platform}-${arch}`];
  return name ? `@node-llama-cpp/${name}` : undefined;
}

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const runtimeDir = join(root, ".cache", "llama-runtime");
const installed = join(runtimeDir, "node_modules", "node-llama-cpp");
const link = join(root, "node_modules", "node-llama-cpp");

function installedVersion() {
  try {
    return JSON.parse(readFileSync(join(installed, "package.json"), "utf8")).version;
  } catch {
    return undefined;
  }
}

function install(gpu) {
  const binary = binaryPackage();
  if (!gpu && !binary) {
    console.error(
      `setup:llama: no prebuilt node-llama-cpp binary for ${process.platform}-${process.arch}; try --gpu (full package).`,
    );
    process.exit(1);
  }
  rmSync(runtimeDir, { recursive: true, force: true });
  mkdirSync(runtimeDir, { recursive: true });
  writeFileSync(
    join(runtimeDir, "package.json"),
    JSON.stringify({ name: "edge-llama-runtime", private: true }, null, 2),
  );
  const packages = [
    `node-llama-cpp@${NODE_LLAMA_CPP_VERSION}`,
    ...(gpu ? [] : [`${binary}@${NODE_LLAMA_CPP_VERSION}`]),
  ];
  const args = [
    "install",
    "--no-audit",
    "--no-fund",
    "--ignore-scripts",
    ...(gpu ? [] : ["--omit=optional"]),
    ...packages,
  ];
  console.log(`setup:llama: npm ${args.join(" ")}  (in ${relative(root, runtimeDir)})`);
  const r = spawnSync("npm", args, { cwd: runtimeDir, stdio: "inherit", shell: process.platform === "win32" });
  if (r.status !== 0) {
    rmSync(runtimeDir, { recursive: true, force: true });
    console.error("setup:llama: npm install failed; nothing was linked.");
    process.exit(r.status ?? 1);
  }
}

function linkRuntime() {
  mkdirSync(dirname(link), { recursive: true });
  const present = lstatSync(link, { throwIfNoEntry: false });
  if (present && !present.isSymbolicLink()) {
    console.log(`setup:llama: ${relative(root, link)} is a regular install (npm install node-llama-cpp); leaving it.`);
    return;
  }
  if (present) rmSync(link, { force: true });
  symlinkSync(relative(dirname(link), installed), link, process.platform === "win32" ? "junction" : "dir");
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const gpu = process.argv.includes("--gpu");
  if (installedVersion() !== NODE_LLAMA_CPP_VERSION || process.argv.includes("--force") || gpu) install(gpu);
  else
    console.log(
      `setup:llama: node-llama-cpp ${NODE_LLAMA_CPP_VERSION} already installed in ${relative(root, runtimeDir)}.`,
    );
  linkRuntime();
  if (!existsSync(join(link, "package.json"))) {
    console.error("setup:llama: the link does not resolve; run again with --force.");
    process.exit(1);
  }
  console.log(
    `setup:llama: ready — node-llama-cpp ${installedVersion()} (${gpu ? "all GPU variants" : binaryPackage()}); try: npx edge chat --model FILE.gguf …`,
  );
}
