// Vitest: esbuild-fast TypeScript without type-checking (that is `npm run typecheck`).
import { BaseSequencer, type TestSpecification } from 'vitest/node';
import { defineConfig } from 'vitest/config';

/** End-to-end files that spawn real processes, slowest first (path suffixes). */
const SLOW_FIRST = [
  'test/bootstrap/runbook/runbook-script.test.ts',
  'test/synth/run-synth.test.ts',
  'test/readme.test.ts',
  'test/plan/run-plan.test.ts',
  'test/coverage/cli.test.ts',
];

/**
 * Vitest orders files by recorded duration, or by size when it has none (a fresh clone, CI). The slowest files
 * here are small ones that spawn real processes; started last, they would keep one worker busy long after the
 * other finished. They always start first; everything else keeps vitest's order.
 */
class SlowFirstSequencer extends BaseSequencer {
  async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (f: TestSpecification) => SLOW_FIRST.findIndex((s) => f.moduleId.split('\\').join('/').endsWith(`/${s}`));
    const first = sorted.filter((f) => rank(f) >= 0).sort((a, b) => rank(a) - rank(b));
    return [...first, ...sorted.filter((f) => rank(f) < 0)];
  }
}

export default defineConfig({
  test: {
    globals: true,
    include: ['test/**/*.test.ts'],
    // One module graph per worker, shared by its test files: loading cdk8s-plus, the schemas and lib/ once per
    // worker rather than once per file halves the suite. Tests must not leave module state behind (none do:
    // lib/ keeps only caches keyed by their inputs).
    pool: 'forks',
    isolate: false,
    // Two workers even on two cores: the end-to-end files mostly wait on the processes they spawn.
    maxWorkers: 2,
    // End-to-end files spawn real commands; a cold bundle build alone can take seconds.
    testTimeout: 60_000,
    sequence: { sequencer: SlowFirstSequencer },
    experimental: { fsModuleCache: true },
  },
});
