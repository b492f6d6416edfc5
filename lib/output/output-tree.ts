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

/**
 * Writes `tree` to `outdir` by staging it next to `outdir` and swapping the folders, so a reader never sees
 * a half-written tree and a failure before the swap leaves the previous output untouched.
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
        made.add(dir);
      }
      fs.writeFileSync(file, content, { mode: rel.endsWith('.sh') ? 0o755 : 0o644 });
    }
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
