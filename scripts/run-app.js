#!/usr/bin/env node
// The cdk8s app command: runs main.ts without type-checking (scripts/run-ts.js).
//
//   node scripts/run-app.js [--config <file.ts>] [--out <dir>] [--check]
//
// --config swaps the homelab config module (default: homelab.config.ts), e.g. examples/ddb-cluster.config.ts.
'use strict';
const fs = require('fs');
const path = require('path');
const { runTs } = require('./run-ts');

const argv = process.argv.slice(2);
let configFile = 'homelab.config.ts';
const rest = [];
for (let i = 0; i < argv.length; i++) {
  if (argv[i] === '--config') configFile = argv[++i];
  else rest.push(argv[i]);
}
const configAbs = path.resolve(process.cwd(), configFile ?? '');
if (!configFile || !fs.existsSync(configAbs)) {
  console.error(`config file not found: ${configFile}`);
  process.exit(2);
}
// main.ts is the entry; its config import is the chosen file (a bundle of its own, see run-ts.js).
runTs('main.ts', rest, { configFile: configAbs });
