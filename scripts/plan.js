#!/usr/bin/env node
// The plan command: prints the Phase-0 steps, the Argo CD waves and the Phase-2 cutover (lib/plan/cli.ts,
// run without type-checking through scripts/run-ts.js).
//
//   node scripts/plan.js [--config <file.ts>] [--color | --no-color]
//
// --config swaps the homelab config module (default: homelab.config.ts), e.g. examples/ddb-cluster.config.ts.
'use strict';
const fs = require('fs');
const path = require('path');
const { runTs } = require('./run-ts');

const argv = process.argv.slice(2);
let configFile;
const rest = [];
for (let i = 0; i < argv.length; i++) {
  if (argv[i] === '--config') configFile = argv[++i] ?? '';
  else rest.push(argv[i]);
}
if (configFile === undefined) {
  runTs('lib/plan/cli.ts', rest);
} else {
  const configAbs = path.resolve(process.cwd(), configFile);
  if (!configFile || !fs.existsSync(configAbs)) {
    console.error(`config file not found: ${configFile}`);
    process.exit(2);
  }
  // The entry's config import is the chosen file (a bundle of its own, see run-ts.js).
  runTs('lib/plan/cli.ts', rest, { configFile: configAbs });
}
