// Where `edge packages add` fetches wheels from: a folder (a self-hosted copy of Pyodide's
// distribution, or wheels you built), a file:// URL, or an http(s):// URL of such a folder. The
// default is the Pyodide distribution of the installed pyodide version on the jsDelivr CDN (the URL
// Pyodide itself loads packages from). Nothing else ever fetches: a freeze reads the store only.
import { readFile, stat } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { EdgeError } from "../contract/errors.ts";
import { defaultPackageSource, urlPackageSource, type PackageSource } from "./source.ts";

const CLI_FIX =
  "check the connection and --package-source / EDGE_PACKAGE_SOURCE, or use a folder that holds the wheel.";

/** The source a command uses: --package-source, else $EDGE_PACKAGE_SOURCE, else Pyodide's CDN. */
export function packageSourceFor(
  option: string | undefined,
  version: string,
  env: NodeJS.ProcessEnv = process.env,
): PackageSource {
  return packageSource(option || env.EDGE_PACKAGE_SOURCE || defaultPackageSource(version));
}

function packageSource(spec: string): PackageSource {
  if (/^https?:\/\//i.test(spec)) return urlPackageSource(spec, CLI_FIX);
  const dir = /^file:/i.test(spec) ? fileURLToPath(spec) : path.resolve(spec);
  return {
    location: dir,
    async fetch(fileName) {
      const file = path.join(dir, fileName);
      try {
        return new Uint8Array(await readFile(file));
      } catch (err) {
        const code = (err as { code?: unknown }).code;
        throw new EdgeError(
          "python_package_fetch_failed",
          { file: fileName, source: dir },
          `${fileName} could not be read from the package folder ${dir} (${String(code ?? err)}); copy the wheel there, or name another source with --package-source.`,
        );
      }
    },
    async size(fileName) {
      return (await stat(path.join(dir, fileName)).catch(() => undefined))?.size;
    },
  };
}
