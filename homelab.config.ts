import { HomelabConfig } from './lib/config/homelab-config';
import { REFERENCE_HOMELAB } from './lib/config/defaults';

/**
 * The homelab this repository synthesizes. Start from the reference homelab and change what differs, e.g.
 * `git: { ...REFERENCE_HOMELAB.git, githubSeedUrl: 'git@github.com:you/homelab.git' }`.
 */
const config: HomelabConfig = {
  ...REFERENCE_HOMELAB,
};

export default config;
