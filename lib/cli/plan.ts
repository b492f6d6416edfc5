// Entry point of `npm run plan` (node --require tsx/cjs lib/cli/plan.ts). Logic lives in lib/cli/run-plan.ts.
import { runPlan } from './run-plan';
import { runCli } from './run-cli';

// `npm run plan | head` closes the pipe early; that is not an error.
process.stdout.on('error', (e: NodeJS.ErrnoException) => {
  if (e.code === 'EPIPE') process.exit(0);
  throw e;
});
runCli('plan', process.argv.slice(2), (config, options) => ({
  // Warnings are said against the committed output, dist/ where npm runs.
  exitCode: runPlan(config, { ...options, committed: 'dist' }, { stdout: process.stdout, stderr: process.stderr, isTTY: process.stdout.isTTY === true, env: process.env }),
}));
