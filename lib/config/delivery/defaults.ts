/**
 * The reference homelab's delivery (ADR 0001 Part B): the decision record's choices are the schema's defaults; this
 * adds what only the homelab knows (its external registry name) and the example apps of the app tier.
 */
import type { DeliveryConfig } from './types';

export const DEFAULT_DELIVERY: DeliveryConfig = {
  // A placeholder, like the GitHub seed: the external name CI pushes images to (Forgejo's registry behind the ingress).
  registry: { pushHost: 'forgejo.homelab.example' },
  // The decision record's journeys (ADR 0001 Part B, "Deployment verification"), in WebKit, from tests/e2e/ of this
  // repository. Hostnames and the object store are placeholders, like the registry's: the record puts the artifacts in
  // MinIO's e2e-artifacts/ (private, expired by a lifecycle rule); the credentials are SOPS-encrypted Secrets.
  e2e: {
    // The seed repository is private: the suite is cloned with a read-only token (keys username, password).
    suite: { credentialsSecret: 'e2e-suite-git' },
    artifacts: { objectStore: { endpointURL: 'https://s3.example.net', bucket: 'homelab-e2e', credentials: { secretName: 'e2e-artifacts-s3' } } },
    sso: { url: 'https://auth.homelab.example', credentialsSecret: 'e2e-sso-user' },
    smoke: {
      journeys: {
        'portainer': { baseURL: 'https://portainer.homelab.example', scenarios: ['portainer/login-page.spec.ts'] },
        'authentik': { baseURL: 'https://auth.homelab.example', scenarios: ['authentik/sign-in.spec.ts'] },
        // OAuth/OIDC federation: click SSO, complete Authentik, land back signed in.
        'argocd': { baseURL: 'https://argocd.homelab.example', scenarios: ['argocd/home.spec.ts'], sso: true },
        'forgejo': { baseURL: 'https://forgejo.homelab.example', scenarios: ['forgejo/home.spec.ts'], sso: true },
        'grafana': { baseURL: 'https://grafana.homelab.example', scenarios: ['grafana/home.spec.ts'], sso: true },
      },
    },
  },
  apps: {
    // The example of a canary: a Rollout whose analysis (Prometheus, then the E2E journeys) gates each step.
    'hello': {
      image: 'homelab-owner/hello', tag: '1.0.0', delivery: 'canary',
      // Run against the canary Service before promotion; a failure aborts the rollout.
      e2e: { scenarios: ['hello/home.spec.ts'], baseURL: 'https://hello.homelab.example' },
      // Each build of main is promoted by its digest (Argo CD Image Updater, commit write-back): the canary is the gate.
      imageUpdates: { strategy: 'digest', tag: 'main' },
    },
    // The example of a rolling update whose E2E journeys run after each sync.
    'status': {
      image: 'homelab-owner/status', tag: '1.0.0',
      // Run after each sync by a PostSync hook, with the SSO federation journey through Authentik.
      e2e: { scenarios: ['status/page.spec.ts'], baseURL: 'https://status.homelab.example', sso: true },
      // Releases 1.y.z are proposed as pull requests: a person merges each one.
      imageUpdates: { strategy: 'semver', constraint: '1.x', allowTags: 'regexp:^1\\.[0-9]+\\.[0-9]+$', writeBack: 'pull-request' },
    },
  },
};
