#!/usr/bin/env node
// The first-run install: on a fresh clone, or after package-lock.json changed, runs `npm ci` (exactly the
// lockfile's dependencies) and says so. npm runs it before `synth`, `test`, `check`, `plan` and `coverage`
// (the `pre*` scripts in package.json), so the README's commands work on a fresh clone. Plain Node with no
// dependencies: it runs before anything is installed.
//
// Stale means: a package the lockfile pins is missing from node_modules or has another version there, or
// node_modules holds a package the lockfile no longer has. npm keeps the record of what it installed in
// node_modules/.package-lock.json; optional packages for other platforms are never installed and not counted.
'use strict';
const { execFileSync } = require('child_process');
const fs = require('fs');
const path = require('path');

const root = path.resolve(__dirname, '..');

/** Why node_modules does not match package-lock.json, or undefined when it does. */
function staleReason() {
  const installed = path.join(root, 'node_modules', '.package-lock.json');
  if (!fs.existsSync(installed)) return 'node_modules is not installed';
  const want = JSON.parse(fs.readFileSync(path.join(root, 'package-lock.json'), 'utf8')).packages ?? {};
  const have = JSON.parse(fs.readFileSync(installed, 'utf8')).packages ?? {};
  for (const [name, pkg] of Object.entries(want)) {
    if (name === '') continue;
    if (!(name in have)) {
      if (!pkg.optional) return `${name} is missing`;
    } else if (have[name].version !== pkg.version) {
      return `${name} is ${have[name].version}, package-lock.json pins ${pkg.version}`;
    }
  }
  const extra = Object.keys(have).find((name) => !(name in want));
  return extra === undefined ? undefined : `${extra} is no longer in package-lock.json`;
}

const reason = staleReason();
if (reason !== undefined) {
  console.error(`ensure-installed: ${reason}; running npm ci (the dependencies pinned in package-lock.json).`);
  execFileSync('npm', ['ci', '--no-audit', '--no-fund'], { cwd: root, stdio: 'inherit' });
}
