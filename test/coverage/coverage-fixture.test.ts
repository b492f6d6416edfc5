import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import homelabConfig from '../../homelab.config';
import { auditHomelabCoverage } from '../../lib/cli/run-coverage';
import { scanRepoTree } from '../../lib/coverage/repo-tree';

// The benchmark's generator (plain JS, so the benchmark can call it without a TypeScript step).
const { makeHomelabTree } = require('../../bench/coverage-fixture') as {
  makeHomelabTree: (dir: string, fileCount: number) => { dir: string; files: number; distPath: string };
};

let tmp: string;
beforeEach(() => { tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'coverage-fixture-')); });
afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

test('writes exactly N files, a clean checkout for the committed dist/ and homelab.config.ts', () => {
  // WHEN
  const result = makeHomelabTree(path.join(tmp, 'a'), 300);
  // THEN
  expect(result.files).toBe(300);
  const tree = scanRepoTree(result.dir);
  expect(tree.files.size).toBe(300);
  const report = auditHomelabCoverage(homelabConfig, result.dir);
  expect([report.orphans, report.duplicates, report.missing, report.deadAggregators, report.secondAppOfApps, report.unmatchedSecrets])
    .toEqual([[], [], [], [], [], []]);
  // Work for every part of the audit: kustomization chains, plain directories, secrets.
  const files = [...tree.files.values()];
  expect(files.filter((f) => f.kustomization).length).toBeGreaterThan(3);
  expect(files.filter((f) => f.name.endsWith('.enc.yaml')).length).toBeGreaterThan(10);
  expect(files.filter((f) => f.manifest).length).toBeGreaterThan(150);
});

test('is deterministic', () => {
  makeHomelabTree(path.join(tmp, 'a'), 150);
  makeHomelabTree(path.join(tmp, 'b'), 150);
  const read = (d: string) => [...scanRepoTree(d).files.keys()].map((p) => [p, fs.readFileSync(path.join(d, p), 'utf8')]);
  expect(read(path.join(tmp, 'b'))).toEqual(read(path.join(tmp, 'a')));
});

test('throws below the size of the skeleton', () => {
  expect(() => makeHomelabTree(path.join(tmp, 'c'), 5)).toThrow(/^makeHomelabTree: fileCount 5 is below the skeleton of \d+ files$/);
});
