// `npm run test:cluster`: the output against a real kube-apiserver v1.30 (built from Go modules by
// scripts/build-control-plane.js, cached), not the README's quick-start command. Each file starts its own
// control plane on its own ports; two files run side by side, because the runbook files mostly wait (the
// runbook polls Jobs every 5 s) while the apply files keep the API server busy.
const base = require('./jest.config');

// Names this run in every temporary folder the harness makes (and so in its processes' arguments), so the
// global teardown finds the run's own leftovers and never another run's.
process.env.HOMELAB_CLUSTER_RUN ??= String(process.pid);

/** @type {import('jest').Config} */
module.exports = {
  ...base,
  testMatch: ['<rootDir>/test/cluster/**/*.test.ts'],
  testPathIgnorePatterns: ['/node_modules/'],
  maxWorkers: 2,
  testTimeout: 600_000,
  // The slowest files first, so the two workers finish together.
  testSequencer: '<rootDir>/test/jest/slow-first-sequencer.js',
  // Fails the run when a harness process outlives it.
  globalTeardown: '<rootDir>/test/cluster/harness/global-teardown.js',
};
