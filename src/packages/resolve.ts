// Resolution of a project's declared dependencies into pinned wheels: for each requirement (and
// each of their own Requires-Dist, with environment markers evaluated for Pyodide's runner) the
// newest version every requirer allows whose Requires-Python admits the runner's CPython and that
// has a wheel Pyodide can install — one built for its platform (PEP 783), else pure Python. A
// package with no such wheel on the index is taken from Pyodide's own lock when that has it (numpy,
// pandas…: built by Pyodide for this interpreter), never from a wheel made for another platform.
// Greedy with re-choice: a later, narrower requirement re-picks a package and drops what only the
// old choice asked for; a conflict nothing satisfies is an error naming both sides.
import { rcompare, valid } from "@renovatebot/pep440";
import { EdgeError } from "../contract/errors.ts";
import type { Declared } from "./declared.ts";
import { canonicalName, lockEntry, type PyodideLock } from "./lock.ts";
import type { IndexFile, PackageIndex } from "./pypi.ts";
import { allows, evaluateMarker, parseRequirement, type MarkerEnvironment, type Requirement } from "./requirement.ts";
import { parseCoreMetadata, parseWheelName, wheelFit, wheelMetadata, type WheelTarget } from "./wheel.ts";

export interface PinnedPackage {
  name: string;
  version: string;
  source: "pypi" | "pyodide-lock";
  file_name: string;
  url: string;
  /** Hex. */
  sha256: string;
  size?: number;
  /** "site" or "dynlib" (a shared library of Pyodide's lock). */
  install_dir: string;
  /** Canonical names of the packages it needs (all of them pinned too). */
  dependencies: string[];
}

export interface ResolveContext {
  index: PackageIndex;
  pyodideLock: PyodideLock;
  /** Where Pyodide's own wheels are served (for a pyodide-lock package's URL). */
  pyodideSource: string;
  target: WheelTarget;
  env: MarkerEnvironment;
}

export interface Resolution {
  packages: PinnedPackage[];
  /** Wheels downloaded while resolving (to read their metadata), by file name, already checked. */
  downloaded: Map<string, Uint8Array>;
}

interface Choice {
  pin: PinnedPackage;
  requires: Requirement[];
}

const MAX_STEPS = 500;

export async function resolveDependencies(declared: Declared, ctx: ResolveContext): Promise<Resolution> {
  if (declared.requiresPython && !allows(declared.requiresPython, ctx.env.python_full_version!)) {
    throw new EdgeError(
      "python_package_unavailable",
      { requires_python: declared.requiresPython },
      `The tools file asks for Python ${declared.requiresPython}, but the runner is Pyodide's CPython ${ctx.env.python_full_version}; change requires-python to admit it.`,
    );
  }
  const r = new Resolver(ctx);
  for (const req of declared.requirements)
    if (!req.marker || evaluateMarker(req.marker, ctx.env, req.text)) r.require(req, "(declared)");
  await r.run();
  return { packages: r.ordered(declared.requirements), downloaded: r.downloaded };
}

class Resolver {
  readonly downloaded = new Map<string, Uint8Array>();
  private readonly wants = new Map<string, { req: Requirement; by: string }[]>();
  private readonly chosen = new Map<string, Choice>();
  private readonly queue: string[] = [];
  private readonly pages = new Map<string, IndexFile[] | undefined>();

  constructor(private readonly ctx: ResolveContext) {}

  require(req: Requirement, by: string): void {
    const key = canonicalName(req.name);
    const list = this.wants.get(key) ?? [];
    list.push({ req, by });
    this.wants.set(key, list);
    this.queue.push(key);
  }

  /** Drop what a package's previous choice asked for (it is chosen again). */
  private forget(key: string): void {
    for (const [name, list] of this.wants)
      this.wants.set(
        name,
        list.filter((w) => canonicalName(w.by.split(" ")[0]!) !== key),
      );
  }

  async run(): Promise<void> {
    for (let steps = 0; this.queue.length; steps++) {
      if (steps > MAX_STEPS)
        throw new EdgeError(
          "python_package_unavailable",
          {},
          "The declared dependencies did not settle on one set of versions; pin the packages you know work together (name==version).",
        );
      const key = this.queue.shift()!;
      const wants = this.wants.get(key) ?? [];
      const current = this.chosen.get(key);
      if (!wants.length) continue; // only a replaced choice asked for it
      const extras = wants.flatMap((w) => w.req.extras);
      if (current && wants.every((w) => allows(w.req.specifier, current.pin.version))) {
        this.addRequires(current, extras);
        continue;
      }
      if (current) this.forget(key);
      const choice = await this.choose(key, wants);
      this.chosen.set(key, choice);
      this.addRequires(choice, extras);
    }
  }

  private addRequires(choice: Choice, extras: string[]): void {
    const by = `${choice.pin.name} ${choice.pin.version}`;
    for (const req of choice.requires) {
      if (req.marker && !evaluateMarker(req.marker, this.ctx.env, `${by} Requires-Dist "${req.text}"`, extras))
        continue;
      const key = canonicalName(req.name);
      const already = this.wants.get(key)?.some((w) => w.by === by && w.req.text === req.text);
      if (!already) this.require(req, by);
    }
  }

  private async page(key: string): Promise<IndexFile[] | undefined> {
    if (!this.pages.has(key)) this.pages.set(key, await this.ctx.index.files(key));
    return this.pages.get(key);
  }

  private async choose(key: string, wants: { req: Requirement; by: string }[]): Promise<Choice> {
    const name = wants[0]?.req.name ?? key;
    const files = (await this.page(key)) ?? [];
    const rejected: string[] = [];
    for (const version of candidateVersions(files, wants)) {
      const wheels = files.filter((f) => {
        const w = parseWheelName(f.filename);
        return w !== undefined && normalVersion(w.version) === version;
      });
      const python = wheels.find(
        (f) => f.requiresPython && !allows(f.requiresPython, this.ctx.env.python_full_version!),
      );
      if (python) {
        rejected.push(`${version} needs Python ${python.requiresPython}`);
        continue;
      }
      const best = wheels
        .map((f) => ({ f, fit: wheelFit(parseWheelName(f.filename)!, this.ctx.target) }))
        .filter((w) => w.fit > 0 && !w.f.yanked)
        .sort((a, b) => b.fit - a.fit)[0];
      if (!best) {
        rejected.push(
          `${version} has ${wheels.length ? "wheels for other platforms only" : "no wheel (an sdist only)"}`,
        );
        continue;
      }
      return this.pypiChoice(name, version, best.f);
    }
    const own = this.fromPyodide(key, wants);
    if (own) return own;
    throw unavailable(name, wants, files, rejected, this.ctx);
  }

  private async pypiChoice(name: string, version: string, file: IndexFile): Promise<Choice> {
    let text = await this.ctx.index.metadata(file);
    if (text === undefined) {
      const bytes = await this.ctx.index.download(file);
      this.downloaded.set(file.filename, bytes);
      text = wheelMetadata(bytes, file.filename);
    }
    const meta = parseCoreMetadata(text);
    const where = `${file.filename} Requires-Dist`;
    const requires = meta.requiresDist.map((line) => parseRequirement(line, where));
    const pin: PinnedPackage = {
      name: metaName(text) ?? name,
      version,
      source: "pypi",
      file_name: file.filename,
      url: file.url,
      sha256: file.sha256,
      ...(file.size !== undefined ? { size: file.size } : {}),
      install_dir: "site",
      dependencies: [],
    };
    return { pin, requires };
  }

  /** Pyodide's own build of a package the index has no installable wheel for. */
  private fromPyodide(key: string, wants: { req: Requirement }[]): Choice | undefined {
    const entry = lockEntry(this.ctx.pyodideLock, key);
    if (!entry || !wants.every((w) => allows(w.req.specifier, entry.version))) return undefined;
    const pin: PinnedPackage = {
      name: entry.name,
      version: entry.version,
      source: "pyodide-lock",
      file_name: entry.file_name,
      url: new URL(encodeURIComponent(entry.file_name), this.ctx.pyodideSource).href,
      sha256: entry.sha256,
      install_dir: entry.install_dir,
      dependencies: [],
    };
    return { pin, requires: entry.depends.map((d) => parseRequirement(d, `${entry.name} in Pyodide's lock`)) };
  }

  /** Every chosen package still needed by the declared ones, dependencies first (ties by name). */
  ordered(roots: readonly Requirement[]): PinnedPackage[] {
    const out: PinnedPackage[] = [];
    const seen = new Set<string>();
    const visit = (key: string): void => {
      const choice = this.chosen.get(key);
      if (!choice || seen.has(key)) return;
      seen.add(key);
      const deps = [...new Set(choice.requires.filter((r) => this.applies(r, key)).map((r) => canonicalName(r.name)))]
        .filter((d) => this.chosen.has(d))
        .sort();
      for (const dep of deps) visit(dep);
      out.push({ ...choice.pin, dependencies: deps });
    };
    for (const key of [...new Set(roots.map((r) => canonicalName(r.name)))].sort()) visit(key);
    return out;
  }

  private applies(req: Requirement, owner: string): boolean {
    if (!req.marker) return true;
    const extras = (this.wants.get(owner) ?? []).flatMap((w) => w.req.extras);
    return evaluateMarker(req.marker, this.ctx.env, req.text, extras);
  }
}

/** The versions on the index every requirer allows, newest first; pre-releases only when a
 *  specifier names one or nothing else fits (PEP 440's default). */
function candidateVersions(files: IndexFile[], wants: { req: Requirement }[]): string[] {
  const all = [
    ...new Set(
      files.flatMap((f) => {
        const w = parseWheelName(f.filename);
        const v = w ? normalVersion(w.version) : sdistVersion(f.filename);
        return v ? [v] : [];
      }),
    ),
  ];
  const fits = all.filter((v) => wants.every((w) => allows(w.req.specifier, v))).sort(rcompare);
  const finals = fits.filter((v) => !/(a|b|rc|dev)\d*/i.test(v));
  return finals.length ? finals : fits;
}

function normalVersion(v: string): string | undefined {
  return valid(v.replace(/_/g, "-")) ?? undefined;
}

function sdistVersion(fileName: string): string | undefined {
  const m = /^.+?-(\d[^-]*)\.(?:tar\.gz|zip|tar\.bz2)$/.exec(fileName);
  return m ? normalVersion(m[1]!) : undefined;
}

function metaName(text: string): string | undefined {
  return /^Name:\s*(.+)$/m.exec(text)?.[1]?.trim();
}

function unavailable(
  name: string,
  wants: { req: Requirement; by: string }[],
  files: IndexFile[],
  rejected: string[],
  ctx: ResolveContext,
): EdgeError {
  const asked = wants.map((w) => `${w.req.text} (${w.by === "(declared)" ? "declared" : `by ${w.by}`})`).join(", ");
  const details = { package: name, requirements: wants.map((w) => w.req.text), index: ctx.index.url };
  if (!files.length) {
    return new EdgeError(
      "python_package_unavailable",
      details,
      `${name} is not on the package index ${ctx.index.url} nor in Pyodide's lock (asked for: ${asked}); check the name.`,
    );
  }
  const shown = rejected.slice(0, 3).join("; ");
  const why = rejected.length
    ? `${shown}${rejected.length > 3 ? `; and ${rejected.length - 3} older version(s) likewise` : ""}`
    : "no version on the index satisfies every requirement";
  const pyodide = lockEntry(ctx.pyodideLock, name);
  const onlyPython = rejected.length > 0 && rejected.every((r) => r.includes("needs Python"));
  const hint = pyodide
    ? ` Pyodide's lock has ${pyodide.name} ${pyodide.version}, which the requirements exclude; allow that version to use Pyodide's build.`
    : onlyPython
      ? ` Allow a version made for Python ${ctx.env.python_version}, or drop the dependency (a backport is often part of the standard library by now).`
      : " Pyodide's lock does not have it either: a package with C extensions runs only where Pyodide or its authors build it for Pyodide (PEP 783 wheels).";
  const happened = `No version of ${name} can be installed in Pyodide's runner (CPython ${ctx.env.python_full_version}, ${ctx.target.abi}) for ${asked}: ${why}.${hint}`;
  return new EdgeError(
    "python_package_unavailable",
    details,
    `${happened} Pick another version, or a package that ships pure-Python or Pyodide wheels.`,
  );
}
