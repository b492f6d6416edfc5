'use strict';
// Preloaded (NODE_OPTIONS=--require) into every Node process of a benchmark run when GNU time is missing:
// appends this process's peak resident set, in KiB, to $BENCH_MAX_RSS_FILE when it exits.
const fs = require('fs');

const file = process.env.BENCH_MAX_RSS_FILE;
if (file) {
  process.on('exit', () => {
    try {
      fs.appendFileSync(file, `${process.resourceUsage().maxRSS}\n`);
    } catch {
      // a missing figure is reported as such; the benchmark itself must not fail here
    }
  });
}
