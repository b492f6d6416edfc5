/**
 * The reference homelab's delivery (ADR 0001 Part B): the decision record's choices are the schema's defaults; this
 * adds what only the homelab knows (its external registry name) and the example apps of the app tier.
 */
import type { DeliveryConfig } from './types';

export const DEFAULT_DELIVERY: DeliveryConfig = {
  // A placeholder, like the GitHub seed: the external name CI pushes images to (Forgejo's registry behind the ingress).
  registry: { pushHost: 'forgejo.homelab.example' },
  apps: {
    // The example of a canary: a Rollout whose analysis (Prometheus, then the E2E journeys) gates each step.
    // Each build of main is promoted by its digest (Argo CD Image Updater, commit write-back): the canary is the gate.
    'hello': { image: 'homelab-owner/hello', tag: '1.0.0', delivery: 'canary', imageUpdates: { strategy: 'digest', tag: 'main' } },
    // The example of a rolling update whose E2E journeys run after each sync.
    // Releases 1.y.z are proposed as pull requests: a person merges each one.
    'status': {
      image: 'homelab-owner/status', tag: '1.0.0',
      imageUpdates: { strategy: 'semver', constraint: '1.x', allowTags: 'regexp:^1\\.[0-9]+\\.[0-9]+$', writeBack: 'pull-request' },
    },
  },
};
