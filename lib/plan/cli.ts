// Entry point of `npm run plan` (scripts/plan.js runs it; `--config` swaps the config import). Logic lives in run-plan.ts.
import config from '../../homelab.config';
import { runPlan } from './run-plan';

// `npm run plan | head` closes the pipe early; that is not an error.
process.stdout.on('error', (e: NodeJS.ErrnoException) => {
  if (e.code === 'EPIPE') process.exit(0);
  throw e;
});
process.exitCode = runPlan(config, process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  isTTY: process.stdout.isTTY === true,
  env: process.env,
});
