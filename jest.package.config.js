// `npm run test:package`: the library as a consumer gets it (npm pack, installed into a temporary cdk8s app).
// A suite of its own: it builds with tsc, packs, and runs npm install, which takes longer than a unit test.
const base = require('./jest.config');

/** @type {import('jest').Config} */
module.exports = {
  ...base,
  testMatch: ['<rootDir>/test/package/**/*.test.ts'],
  testPathIgnorePatterns: ['/node_modules/'],
  testTimeout: 300_000,
  testSequencer: undefined,
};
