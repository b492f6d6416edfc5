/** Jest with @swc/jest: a fast TypeScript transform without type-checking (that is `npm run typecheck`). */
module.exports = {
  testEnvironment: 'node',
  // Two workers even on two cores: the end-to-end suites mostly wait on the processes they spawn.
  maxWorkers: 2,
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  // Without recorded durations (fresh clone, CI), the slow end-to-end files start first, not last.
  testSequencer: '<rootDir>/test/jest-sequencer.js',
  transform: { '^.+\\.ts$': ['@swc/jest', { jsc: { target: 'es2022' } }] },
};
