import { OutputTree } from './output-tree';

/** How a synthesized tree differs from another. */
export interface TreeDiff {
  readonly added: readonly string[];
  readonly removed: readonly string[];
  /** Changed files with the number of lines that differ. */
  readonly changed: readonly { readonly path: string; readonly lines: number }[];
}

/** Compares `expected` (fresh synth) with `actual` (e.g. the committed dist/). */
export function diffTrees(expected: OutputTree, actual: OutputTree): TreeDiff {
  const added = [...expected.keys()].filter((p) => !actual.has(p)).sort();
  const removed = [...actual.keys()].filter((p) => !expected.has(p)).sort();
  const changed = [...expected.keys()].filter((p) => actual.has(p) && actual.get(p) !== expected.get(p)).sort()
    .map((path) => ({ path, lines: countChangedLines(expected.get(path) as string, actual.get(path) as string) }));
  return { added, removed, changed };
}

/** Whether the trees are identical. */
export function isEmptyDiff(diff: TreeDiff): boolean {
  return diff.added.length + diff.removed.length + diff.changed.length === 0;
}

/** A readable summary for the terminal and CI logs. */
export function formatDiff(diff: TreeDiff, committedDir: string): string {
  return [
    `${committedDir}/ is out of date with the config:`,
    ...diff.added.map((p) => `  + ${p} (new file)`),
    ...diff.removed.map((p) => `  - ${p} (no longer generated)`),
    ...diff.changed.map((c) => `  ~ ${c.path} (${c.lines} line${c.lines === 1 ? '' : 's'} differ)`),
    `Run \`npm run synth\`, review the diff of ${committedDir}/ and commit it.`,
  ].join('\n');
}

/** Lines present in one version and not the other (a multiset difference, cheap and order-insensitive). */
function countChangedLines(a: string, b: string): number {
  const counts = new Map<string, number>();
  for (const line of a.split('\n')) counts.set(line, (counts.get(line) ?? 0) + 1);
  for (const line of b.split('\n')) counts.set(line, (counts.get(line) ?? 0) - 1);
  let n = 0;
  for (const v of counts.values()) n += Math.abs(v);
  return n;
}
