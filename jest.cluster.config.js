// `npm run test:cluster`: the output against a real kube-apiserver v1.30 (built from Go modules by
// scripts/build-control-plane.js, cached), not the README's quick-start command. Files run one at a time: each
// starts its own control plane, and two API servers plus builds would overload a 2-core machine.
const base = require('./jest.config');

/** @type {import('jest').Config} */
module.exports = {
  ...base,
  testMatch: ['<rootDir>/test/cluster/**/*.test.ts'],
  testPathIgnorePatterns: ['/node_modules/'],
  maxWorkers: 1,
  testTimeout: 600_000,
  testSequencer: undefined,
};
