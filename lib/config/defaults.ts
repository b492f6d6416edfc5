import { DEFAULT_ARGOCD } from './default-catalog';
import { HomelabConfig } from './homelab-config';

/**
 * The reference homelab of the platform's decision record (ADR 0001): a dedicated `forgejo-db` cluster in
 * Phase 0, the shared `ddb-cluster` and its databases delivered by the `data-schemas` Application.
 */
export const REFERENCE_HOMELAB: HomelabConfig = {
  namespaces: {
    // Third-party manifests we do not control: enforce baseline, warn on restricted.
    'argocd': { podSecurity: 'baseline', podSecurityWarn: 'restricted' },
    'cnpg-system': { podSecurity: 'baseline', podSecurityWarn: 'restricted' },
    'cicd': { podSecurity: 'restricted' },
    'ddb': { podSecurity: 'restricted' },
  },
  postgresClusters: {
    'forgejo-db': {
      namespace: 'cicd',
      instances: 3,
      initdbDatabase: 'forgejo',
      initdbOwner: 'forgejo',
      storageSize: '10Gi',
    },
    'ddb-cluster': {
      namespace: 'ddb',
      instances: 3,
      managedRoles: ['authentik', 'temporal'],
      storageSize: '20Gi',
      deliveredBy: 'argocd',
    },
  },
  databases: {
    authentik: { cluster: 'ddb-cluster', owner: 'authentik', deliveredBy: 'argocd' },
    temporal: { cluster: 'ddb-cluster', owner: 'temporal', deliveredBy: 'argocd' },
    temporal_visibility: { cluster: 'ddb-cluster', owner: 'temporal', deliveredBy: 'argocd' },
  },
  forgejo: {
    namespace: 'cicd',
    database: 'forgejo',
  },
  argocd: DEFAULT_ARGOCD,
  git: {
    githubSeedUrl: 'git@github.com:homelab-owner/homelab.git',
    source: 'github',
    targetRevision: 'main',
    distPath: 'k8s/generated',
  },
};
