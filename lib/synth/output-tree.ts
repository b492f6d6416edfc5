import * as fs from 'fs';
import * as path from 'path';
import { renderYaml } from './render-chart';

/** The synthesized output: file contents keyed by path relative to the output folder (`/` separators). */
export type OutputTree = Map<string, string>;

/** Serializes manifests as a multi-document YAML file, byte for byte the way cdk8s does (`renderYaml`). */
export function toYaml(objects: readonly unknown[]): string {
  return renderYaml(objects);
}

/** Returns a copy of `tree` with its paths in sorted order, so iteration (and listings) are deterministic. */
export function sortedTree(tree: OutputTree): OutputTree {
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
