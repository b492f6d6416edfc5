'use strict';
// A small benchmark harness with public tools only: runs commands alternately (so machine noise hits every
// command alike), times each run's wall clock and records its peak memory, and summarizes median, min and max.
//
// Peak memory is the largest resident set of any process of the run: GNU time's %M (ru_maxrss of the waited
// children) when /usr/bin/time is GNU time, else every Node process of the run reports its own
// process.resourceUsage().maxRSS through a preloaded module (bench/max-rss.js) and the largest is kept.
const { spawnSync } = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');

const MAX_RSS_PRELOAD = path.join(__dirname, 'max-rss.js');

/** Whether /usr/bin/time is GNU time (supports -f and -o). */
function hasGnuTime() {
  const r = spawnSync('/usr/bin/time', ['-f', '%M', '-o', os.devNull, 'true'], { stdio: 'ignore' });
  return r.status === 0;
}

/** Whether `name` is on the PATH. */
function onPath(name) {
  return spawnSync('sh', ['-c', `command -v ${name}`], { stdio: 'ignore' }).status === 0;
}

/** The machine the figures were measured on. */
function machine() {
  const cpus = os.cpus();
  return {
    cpu: cpus[0]?.model.trim() ?? 'unknown',
    cores: cpus.length,
    node: process.version,
    os: `${os.type()} ${os.release()} ${os.arch()}`,
    memoryGiB: Math.round(os.totalmem() / 2 ** 30),
    load: os.loadavg().map((l) => l.toFixed(2)).join(' '),
  };
}

/**
 * Runs one command once and returns `{ seconds, maxRssMiB, status, startedAtMs }`; throws with its output when it fails,
 * unless `allowFailure` is set. `cmd` is `{ name, argv: [program, ...args], cwd?, env?, allowFailure? }`.
 */
function runOnce(cmd, gnuTime) {
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-rss-'));
  const rssFile = path.join(scratch, 'rss');
  try {
    const env = { ...process.env, ...cmd.env };
    let argv = cmd.argv;
    if (gnuTime) {
      argv = ['/usr/bin/time', '-f', '%M', '-o', rssFile, ...argv];
    } else {
      env.BENCH_MAX_RSS_FILE = rssFile;
      env.NODE_OPTIONS = `${env.NODE_OPTIONS ?? ''} --require ${MAX_RSS_PRELOAD}`.trim();
    }
    const startedAtMs = Date.now();
    const start = process.hrtime.bigint();
    const r = spawnSync(argv[0], argv.slice(1), { cwd: cmd.cwd, env, encoding: 'utf8', maxBuffer: 64 * 2 ** 20 });
    const seconds = Number(process.hrtime.bigint() - start) / 1e9;
    if (r.error || (r.status !== 0 && !cmd.allowFailure)) {
      const output = `${r.stdout ?? ''}${r.stderr ?? ''}`.trim().split('\n').slice(-15).join('\n');
      throw new Error(`${cmd.name}: \`${cmd.argv.join(' ')}\` failed (${r.error?.message ?? `exit ${r.status}`}):\n${output}`);
    }
    let maxRssKiB;
    if (fs.existsSync(rssFile)) {
      // GNU time writes one number; the preload appends one line per Node process.
      const values = fs.readFileSync(rssFile, 'utf8').split(/\s+/).map(Number).filter((n) => Number.isFinite(n) && n > 0);
      if (values.length > 0) maxRssKiB = Math.max(...values);
    }
    return { seconds, maxRssMiB: maxRssKiB === undefined ? undefined : maxRssKiB / 1024, status: r.status, startedAtMs };
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}

function median(values) {
  const s = [...values].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
}

/** Median, min and max of `values` (undefined when there are none). */
function summarize(values) {
  const v = values.filter((x) => x !== undefined);
  if (v.length === 0) return undefined;
  return { median: median(v), min: Math.min(...v), max: Math.max(...v), n: v.length };
}

/**
 * Runs every command of `commands` `runs` times, alternating (A B C A B C ...), after `warmup` unrecorded
 * rounds. `onRun(name, i, result)` reports progress. Returns `{ [name]: { seconds, maxRssMiB, failedRuns } }`.
 */
function measure(commands, { runs, warmup = 1, gnuTime = hasGnuTime(), onRun = () => {} }) {
  const samples = Object.fromEntries(commands.map((c) => [c.name, []]));
  for (let round = -warmup; round < runs; round++) {
    for (const cmd of commands) {
      const result = runOnce(cmd, gnuTime);
      if (round >= 0) samples[cmd.name].push(result);
      onRun(cmd.name, round, result);
    }
  }
  return Object.fromEntries(Object.entries(samples).map(([name, list]) => [name, {
    seconds: summarize(list.map((r) => r.seconds)),
    maxRssMiB: summarize(list.map((r) => r.maxRssMiB)),
    failedRuns: list.filter((r) => r.status !== 0).length,
  }]));
}

module.exports = { hasGnuTime, onPath, machine, measure, runOnce, summarize };
