#!/usr/bin/env node
// Drift check of the generated code: regenerates imports/ (scripts/import-crds.js) and schemas/
// (scripts/generate-schemas.js) into temporary folders from the pinned CRDs and compares them byte for byte
// with what is committed; then the pull-request workflows (`npm run workflows -- --check`). Part of `npm run check` (and so of .ci/run), not of `npm test`: it runs the cdk8s CLI
// and the TypeScript parser, seconds of work that only a change of a pin or a generator can make fail.
//
//   node scripts/check-generated.js
//
// Exit 0 when both match (or when the pinned CRDs can be neither read nor downloaded: then it says NOT CHECKED),
// 1 on any difference or generator error.
'use strict';
const { spawnSync } = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');

const root = path.resolve(__dirname, '..');

/** Every file under `dir`, relative path → content. */
function readTree(dir) {
  const out = new Map();
  const walk = (abs, rel) => {
    for (const e of fs.readdirSync(abs, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) walk(path.join(abs, e.name), r);
      else out.set(r, fs.readFileSync(path.join(abs, e.name)));
    }
  };
  if (fs.existsSync(dir)) walk(dir, '');
  return out;
}

/** The differences between two trees, one line each. */
function compareTrees(expected, actual) {
  const lines = [];
  for (const [f, c] of actual) {
    if (!expected.has(f)) lines.push(`  + ${f} (generated, not committed)`);
    else if (!expected.get(f).equals(c)) lines.push(`  ~ ${f} (differs)`);
  }
  for (const f of expected.keys()) if (!actual.has(f)) lines.push(`  - ${f} (committed, not generated)`);
  return lines.sort((a, b) => (a.slice(4) < b.slice(4) ? -1 : 1));
}

const GENERATED = [
  { dir: 'imports', script: 'scripts/import-crds.js', command: 'npm run import' },
  { dir: 'schemas', script: 'scripts/generate-schemas.js', command: 'npm run schemas' },
];

function main() {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'check-generated-'));
  let failed = false;
  try {
    for (const g of GENERATED) {
      const out = path.join(tmp, g.dir);
      const r = spawnSync(process.execPath, [g.script, '--out', out], { cwd: root, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } });
      const output = `${r.stdout}${r.stderr}`.trim();
      if (r.status !== 0) {
        // No local CRDs and no network is not drift: say so loudly, and fail only on real errors.
        if (/cannot download|fetch failed|ENOTFOUND|EAI_AGAIN|ECONNREFUSED/.test(output)) {
          console.log(`${g.dir}/: NOT CHECKED, the pinned CRDs are not readable here (${output.split('\n').pop()}); set CRD_DIR.`);
          continue;
        }
        console.log(`${g.dir}/: ${g.script} failed (exit ${r.status}):\n${output}`);
        failed = true;
        continue;
      }
      const diff = compareTrees(readTree(path.join(root, g.dir)), readTree(out));
      if (diff.length === 0) {
        console.log(`${g.dir}/ matches its generator (${readTree(out).size} files).`);
      } else {
        console.log(`${g.dir}/ differs from what ${g.script} generates; run \`${g.command}\` and commit the result:\n${diff.join('\n')}`);
        failed = true;
      }
    }
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
  // The pull-request workflows and actionlint's settings (lib/workflows/pr-review.ts): compared in place.
  const workflows = spawnSync(process.execPath, ['--require', 'tsx/cjs', 'lib/workflows/write-workflows.ts', '--check'], { cwd: root, encoding: 'utf8' });
  process.stdout.write(`${workflows.stdout}${workflows.stderr}`);
  if (workflows.status !== 0) failed = true;
  process.exitCode = failed ? 1 : 0;
}

if (require.main === module) main();
module.exports = { compareTrees };
