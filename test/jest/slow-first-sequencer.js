// Jest orders test files by the duration recorded in its cache, or by file size when it has none (a fresh
// clone, CI). The slowest files here are small ones that spawn real processes; started last, they would keep
// one worker busy long after the other finished. They always start first; everything else keeps jest's order.
const Sequencer = require('@jest/test-sequencer').default;

/** End-to-end files that spawn real processes, slowest first (paths from the project root). */
const SLOW_FIRST = [
  // npm run test:cluster (jest.cluster.config.js)
  'test/cluster/runbook-reference.test.ts',
  'test/cluster/apply.test.ts',
  'test/cluster/runbook-restore.test.ts',
  'test/cluster/runbook-ddb.test.ts',
  'test/cluster/upgrade.test.ts',
  // npm test
  'test/output/runbook-script.test.ts',
  'test/cli/synth.test.ts',
  'test/readme.test.ts',
  'test/cli/run-plan.test.ts',
  'test/cli/coverage.test.ts',
  'test/cli/load-config.test.ts',
];

class SlowFirstSequencer extends Sequencer {
  sort(tests) {
    const sorted = super.sort(tests);
    const rank = (t) => SLOW_FIRST.findIndex((s) => t.path.split('\\').join('/').endsWith(`/${s}`));
    const first = sorted.filter((t) => rank(t) >= 0).sort((a, b) => rank(a) - rank(b));
    return [...first, ...sorted.filter((t) => rank(t) < 0)];
  }
}

module.exports = SlowFirstSequencer;
