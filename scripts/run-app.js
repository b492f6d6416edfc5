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
  esbuild.buildSync({
    entryPoints: [path.join(root, 'main.ts')],
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    packages: 'external',
    outfile,
    logLevel: 'error',
    plugins: [{
      name: 'homelab-config',
      setup(build) {
        build.onResolve({ filter: /^\.\/homelab\.config$/ }, () => ({ path: configAbs }));
      },
    }],
  });
  return outfile;
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
  const outfile = bundle(configFile);
  process.argv = [process.argv[0], outfile, ...rest];
  require(outfile);
}

main();
