/** Jest with @swc/jest: a fast TypeScript transform without type-checking (that is `npm run typecheck`). */
module.exports = {
  testEnvironment: 'node',
  // Two workers even on two cores: the end-to-end suites mostly wait on the processes they spawn.
  maxWorkers: 2,
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  transform: { '^.+\\.ts$': ['@swc/jest', { jsc: { target: 'es2022' } }] },
};
