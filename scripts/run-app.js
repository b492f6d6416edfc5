#!/usr/bin/env node
// Runs the cdk8s app without type-checking: esbuild bundles main.ts (our code only; node_modules stay
// external) in a few milliseconds, and plain node runs the bundle. Type-checking is `npm run typecheck`.
//
//   node scripts/run-app.js [--config <file.ts>] [--out <dir>]
//
// --config swaps the homelab config module (default: homelab.config.ts), e.g. examples/ddb-cluster.config.ts.
'use strict';
const fs = require('fs');
const path = require('path');

const root = path.resolve(__dirname, '..');

function ensureInstalled() {
  if (!fs.existsSync(path.join(root, 'node_modules', '.package-lock.json'))) {
    // A fresh clone: install exactly what the lockfile pins, once.
    require('child_process').execFileSync('npm', ['ci', '--no-audit', '--no-fund'], { cwd: root, stdio: 'inherit' });
  }
}

function bundle(configFile) {
  const esbuild = require('esbuild');
  const outfile = path.join(root, '.build', 'main.js');
  const configAbs = path.resolve(process.cwd(), configFile);
  if (!fs.existsSync(configAbs)) {
    console.error(`config file not found: ${configFile}`);
    process.exit(2);
  }
  // main.ts is the entry; only its config import is pointed at the chosen file.
  const main = fs.readFileSync(path.join(root, 'main.ts'), 'utf8');
  const contents = main.replace(/(['"])\.\/homelab\.config\1/, JSON.stringify(configAbs.replace(/\.ts$/, '')));
  const result = esbuild.buildSync({
    stdin: { contents, resolveDir: root, sourcefile: 'main.ts', loader: 'ts' },
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    packages: 'external',
    outfile,
    write: false,
    logLevel: 'error',
  });
  return { outfile, code: result.outputFiles[0].text };
}

function main() {
  ensureInstalled();
  const argv = process.argv.slice(2);
  let configFile = 'homelab.config.ts';
  const rest = [];
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--config') configFile = argv[++i];
    else rest.push(argv[i]);
  }
  // Run the bundle from memory: nothing is written, so concurrent runs cannot race on a build file.
  const { outfile, code } = bundle(configFile);
  process.argv = [process.argv[0], outfile, ...rest];
  const Module = require('module');
  const m = new Module(outfile, module);
  m.filename = outfile;
  m.paths = Module._nodeModulePaths(root);
  m._compile(code, outfile);
}

main();
