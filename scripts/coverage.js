#!/usr/bin/env node
// The coverage audit: compares the Applications the config synthesizes with a homelab checkout
// (lib/coverage/cli.ts, run without type-checking through scripts/run-ts.js).
//
//   node scripts/coverage.js --repo <path> [--json] [--config <file.ts>]
//
// Exit codes: 0 clean, 1 findings, 2 usage error. --config swaps the homelab config module (default:
// homelab.config.ts), e.g. examples/ddb-cluster.config.ts.
'use strict';
const fs = require('fs');
const path = require('path');
const { runTs } = require('./run-ts');

const USAGE = 'Usage: npm run coverage -- --repo <path to a homelab checkout> [--json] [--config <file.ts>]';
// Under `npm run coverage`, the working directory is the project root; relative paths mean the caller's.
const base = process.env.npm_lifecycle_event === 'coverage' && process.env.INIT_CWD ? process.env.INIT_CWD : process.cwd();

const argv = process.argv.slice(2);
let configFile = 'homelab.config.ts';
const rest = [];
for (let i = 0; i < argv.length; i++) {
  if (argv[i] === '--config') {
    configFile = argv[++i];
    if (!configFile) {
      console.error(`coverage: --config needs a config file.\n${USAGE}`);
      process.exit(2);
    }
  } else if (argv[i] === '--repo' && argv[i + 1] !== undefined && !argv[i + 1].startsWith('--')) {
    rest.push('--repo', path.resolve(base, argv[++i]));
  } else {
    rest.push(argv[i]);
  }
}
const configAbs = configFile === 'homelab.config.ts' ? path.resolve(__dirname, '..', configFile) : path.resolve(base, configFile);
if (!fs.existsSync(configAbs)) {
  console.error(`coverage: config file not found: ${configFile}\n${USAGE}`);
  process.exit(2);
}
// The entry's config import is the chosen file (a bundle of its own, see run-ts.js).
runTs('lib/coverage/cli.ts', rest, { configFile: configAbs });
