// Entry point of `npm run coverage` (scripts/coverage.js swaps the config import for --config). Logic lives in
// run-coverage.ts.
import config from '../../homelab.config';
import { coverageCommand } from './run-coverage';

const result = coverageCommand(config, process.argv.slice(2));
process.stdout.write(result.stdout);
process.stderr.write(result.stderr);
process.exitCode = result.exitCode;
