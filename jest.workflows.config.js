// `npm run test:workflows`: the generated pull-request workflows run step by step on a fixture homelab repository
// (test/workflow-run/). About two minutes of check, plan, coverage and diff runs, so a suite of its own, run by .ci/run.
const base = require('./jest.config');

/** @type {import('jest').Config} */
module.exports = {
  ...base,
  roots: ['<rootDir>/test/workflow-run'],
  testMatch: ['<rootDir>/test/workflow-run/**/*.test.ts'],
  testPathIgnorePatterns: ['/node_modules/'],
  testTimeout: 600_000,
};
