// Entry point of `npm run diff` (node --require tsx/cjs lib/cli/diff.ts). Logic lives in lib/cli/run-diff.ts.
import { runDiff } from './run-diff';
import { runCli } from './run-cli';

// `npm run diff | head` closes the pipe early; that is not an error.
process.stdout.on('error', (e: NodeJS.ErrnoException) => {
  if (e.code === 'EPIPE') process.exit(0);
  throw e;
});
runCli('diff', process.argv.slice(2), (config, options) =>
  runDiff(config, options, { cwd: process.cwd(), isTTY: process.stdout.isTTY === true, env: process.env }));
