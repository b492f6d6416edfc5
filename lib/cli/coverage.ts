// Entry point of `npm run coverage` (node --require tsx/cjs lib/cli/coverage.ts). Logic lives in
// lib/cli/run-coverage.ts.
import { coverageCommand } from './run-coverage';
import { runCli } from './run-cli';

runCli('coverage', process.argv.slice(2), (config, options) => coverageCommand(config, options));
