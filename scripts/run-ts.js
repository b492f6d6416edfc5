'use strict';
// Runs a TypeScript entry point without type-checking: esbuild bundles it (our code only; node_modules stay
// external) in milliseconds and the bundle runs from memory, so concurrent runs never race on a build file.
// Type-checking is `npm run typecheck`.
const fs = require('fs');
const path = require('path');

const root = path.resolve(__dirname, '..');

/** Installs the lockfile's exact dependencies on a fresh clone, once. */
function ensureInstalled() {
  if (!fs.existsSync(path.join(root, 'node_modules', '.package-lock.json'))) {
    require('child_process').execFileSync('npm', ['ci', '--no-audit', '--no-fund'], { cwd: root, stdio: 'inherit' });
  }
}

/**
 * Bundles and runs `entry` (a path relative to the project root) with `argv` as its arguments.
 * `transform` may rewrite the entry's source first (used to swap the config module).
 */
function runTs(entry, argv, transform = (source) => source) {
  ensureInstalled();
  const esbuild = require('esbuild');
  const entryAbs = path.join(root, entry);
  const outfile = entryAbs.replace(/\.ts$/, '.js');
  const result = esbuild.buildSync({
    stdin: { contents: transform(fs.readFileSync(entryAbs, 'utf8')), resolveDir: path.dirname(entryAbs), sourcefile: entry, loader: 'ts' },
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    packages: 'external',
    write: false,
    logLevel: 'error',
  });
  process.argv = [process.argv[0], outfile, ...argv];
  const Module = require('module');
  const m = new Module(outfile, module);
  m.filename = outfile;
  m.paths = Module._nodeModulePaths(root);
  m._compile(result.outputFiles[0].text, outfile);
}

module.exports = { root, runTs, ensureInstalled };
