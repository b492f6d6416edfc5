import * as fs from 'fs';
import * as path from 'path';
import { Yaml } from 'cdk8s';

/** The synthesized output: file contents keyed by path relative to the output folder (`/` separators). */
export type OutputTree = Map<string, string>;

/**
 * A file of the output before it is written: the YAML documents this program generated (validated as objects,
 * serialized by `toYaml` when written), or finished text (the runbook, the README).
 */
export type OutputFile = string | readonly unknown[];

/** The output before it is written, keyed like `OutputTree`. */
export type OutputFiles = Map<string, OutputFile>;

/** Serializes every file of `files` (documents with `toYaml`), in sorted path order. */
export function serializeFiles(files: ReadonlyMap<string, OutputFile>): OutputTree {
  return sortedTree(new Map([...files].map(([file, content]) => [file, typeof content === 'string' ? content : toYaml(content)])));
}

/** Serializes manifests as a multi-document YAML file, as cdk8s writes its own (`Yaml.stringify`: YAML 1.1, no folding). */
export function toYaml(objects: readonly unknown[]): string {
  return Yaml.stringify(...objects);
}

/** Returns a copy of `tree` with its paths in sorted order, so iteration (and listings) are deterministic. */
export function sortedTree<T>(tree: ReadonlyMap<string, T>): Map<string, T> {
  return new Map([...tree.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/** Mode of every folder `writeTree` writes (`rwxr-xr-x`). */
export const DIR_MODE = 0o755;
/** Mode of every file `writeTree` writes (`rw-r--r--`); scripts (`*.sh`) get `SCRIPT_MODE`. */
export const FILE_MODE = 0o644;
/** Mode of the scripts `writeTree` writes (`rwxr-xr-x`). */
export const SCRIPT_MODE = 0o755;

/**
 * Writes `tree` to `outdir` by staging it next to `outdir` and swapping the folders, so a reader never sees
 * a half-written tree and a failure before the swap leaves the previous output untouched.
 *
 * The output gets normal permissions whatever the umask: folders `DIR_MODE`, files `FILE_MODE`, scripts
 * `SCRIPT_MODE`. The staging folder comes from `mkdtemp` (mode 0700), so it is opened up before the swap;
 * the output holds no secret (the secret scanner sees to that), and it is committed to git anyway.
 */
export function writeTree(tree: OutputTree, outdir: string): void {
  const target = path.resolve(outdir);
  const parent = path.dirname(target);
  fs.mkdirSync(parent, { recursive: true });
  const staging = fs.mkdtempSync(path.join(parent, `.${path.basename(target)}.staging-`));
  try {
    const made = new Set<string>([staging]);
    for (const [rel, content] of sortedTree(tree)) {
      const file = path.join(staging, ...rel.split('/'));
      const dir = path.dirname(file);
      if (!made.has(dir)) {
        fs.mkdirSync(dir, { recursive: true });
        // every folder between the staging folder and `dir`, which mkdir -p may just have made
        for (let d = dir; !made.has(d); d = path.dirname(d)) made.add(d);
      }
      fs.writeFileSync(file, content);
      // chmod, not writeFileSync's `mode`: that one is masked by the umask.
      fs.chmodSync(file, rel.endsWith('.sh') ? SCRIPT_MODE : FILE_MODE);
    }
    for (const dir of made) fs.chmodSync(dir, DIR_MODE);
    const previous = `${staging}.previous`;
    const hadPrevious = fs.existsSync(target);
    if (hadPrevious) fs.renameSync(target, previous);
    fs.renameSync(staging, target);
    if (hadPrevious) fs.rmSync(previous, { recursive: true, force: true });
  } catch (e) {
    fs.rmSync(staging, { recursive: true, force: true });
    throw e;
  }
}

/** Reads every file under `dir` into an `OutputTree` (used by the drift check and tests). */
export function readTree(dir: string): OutputTree {
  const tree: OutputTree = new Map();
  const walk = (abs: string, rel: string): void => {
    for (const entry of fs.readdirSync(abs, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const childAbs = path.join(abs, entry.name);
      const childRel = rel ? `${rel}/${entry.name}` : entry.name;
      if (entry.isDirectory()) walk(childAbs, childRel);
      else tree.set(childRel, fs.readFileSync(childAbs, 'utf8'));
    }
  };
  if (fs.existsSync(dir)) walk(dir, '');
  return tree;
}
