'use strict';
// Jest's test order, with one change for runs without timings (a fresh clone, CI, a cleared cache): jest then
// starts the biggest files first, but the slowest files here are small ones that spawn real processes, so they
// would start last and keep one worker busy long after the other finished. Files below without a recorded
// duration start first, slowest first; everything else is jest's own order (recorded durations, failures first).
const Sequencer = require('@jest/test-sequencer').default;

/** End-to-end files, slowest first (path suffixes). */
const SLOW_WITHOUT_TIMINGS = [
  'test/readme-import.test.ts',
  'test/synth/run-synth.test.ts',
  'test/bootstrap/runbook/runbook-script.test.ts',
  'test/readme-schemas.test.ts',
  'test/plan/run-plan.test.ts',
  'test/coverage/cli.test.ts',
  'test/readme.test.ts',
];

class SlowFirstSequencer extends Sequencer {
  sort(tests) {
    const sorted = super.sort(tests);
    const rank = (test) => {
      if (this.time(test) != null) return -1;
      const p = test.path.split('\\').join('/');
      return SLOW_WITHOUT_TIMINGS.findIndex((suffix) => p.endsWith(`/${suffix}`));
    };
    const first = sorted.filter((t) => rank(t) >= 0).sort((a, b) => rank(a) - rank(b));
    return [...first, ...sorted.filter((t) => rank(t) < 0)];
  }
}

module.exports = SlowFirstSequencer;
