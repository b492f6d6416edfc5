// Entry point: load the one config, synthesize, write dist/ atomically. All logic lives in lib/.
import config from './homelab.config';
import { runSynth } from './lib/synth/run-synth';

runSynth(config, process.argv.slice(2));
