// Jest with the @swc/jest transform: fast TypeScript without type-checking (that is `npm run typecheck`).
/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  testMatch: ['<rootDir>/test/**/*.test.ts'],
  // Only test/ holds tests; the haste map need not crawl dist/, .build/ or the generated imports/ and schemas/.
  roots: ['<rootDir>/test'],
  // The packed-tarball test (`npm run test:package`), the real API server test (`npm run test:cluster`) and the
  // pull-request workflow run (`npm run test:workflows`) are suites of their own, run by .ci/run.
  testPathIgnorePatterns: ['/node_modules/', '<rootDir>/test/package/', '<rootDir>/test/cluster/', '<rootDir>/test/workflow-run/'],
  transform: {
    '^.+\\.ts$': ['@swc/jest', {
      // The same output as tsc for tsconfig.json: CommonJS, ES2022, and class fields defined with
      // [[Define]] semantics (target ES2022 implies useDefineForClassFields).
      jsc: {
        parser: { syntax: 'typescript' },
        target: 'es2022',
        transform: { useDefineForClassFields: true },
      },
      module: { type: 'commonjs' },
      // Source maps beside the code, not inlined: jest keeps them in its cache for stack traces, and every
      // test file compiles lib/ and imports/ again, so inlined maps would triple what V8 compiles.
      sourceMaps: true,
    }],
  },
  moduleFileExtensions: ['ts', 'js', 'json'],
  // Two workers even on two cores: the end-to-end files mostly wait on the processes they spawn.
  maxWorkers: 2,
  // End-to-end files spawn real commands; a cold bundle build alone can take seconds.
  testTimeout: 60_000,
  testSequencer: '<rootDir>/test/jest/slow-first-sequencer.js',
  reporters: ['default', '<rootDir>/test/jest/skipped-reporter.js'],
};
