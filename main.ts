// Entry point of `npm run synth` and of cdk8s.yaml's app (node --require tsx/cjs main.ts): parse the arguments,
// load the config file, synthesize, write dist/ atomically. All logic lives in lib/.
import { runCli } from './lib/cli/run-cli';
import { runSynth } from './lib/cli/synth';

runCli('synth', process.argv.slice(2), (config, options) => runSynth(config, { outdir: options.out, check: options.check }));
