import { DEFAULT_ARGOCD } from './default-catalog';
import { DEFAULT_DELIVERY } from './delivery/defaults';
import { BackupObjectStoreConfig, HomelabConfig } from './homelab-config';

/**
 * The one off-site object store of the reference homelab's backups: a placeholder, like the GitHub seed, for your own
 * S3-compatible endpoint and bucket. One bucket and one credential for everything; each backup has its folder:
 * `cnpg/<server name>/` for the CNPG clusters (`REFERENCE_CNPG_BACKUP_STORE`), `forgejo/` for Forgejo's dumps. The
 * credentials are the Secret `homelab-backup-s3` in each namespace that backs up: for Phase 0 (`forgejo-db`, Forgejo)
 * the runbook applies it from `~/.config/homelab/homelab-backup-s3.env`; for what Argo CD delivers it is a
 * SOPS-encrypted Secret of the repository.
 */
export const REFERENCE_BACKUP_STORE: BackupObjectStoreConfig = {
  endpointURL: 'https://s3.example.net',
  bucket: 'homelab-backups',
  credentials: { secretName: 'homelab-backup-s3' },
};

/** The CNPG clusters' folder of `REFERENCE_BACKUP_STORE`. */
export const REFERENCE_CNPG_BACKUP_STORE: BackupObjectStoreConfig = { ...REFERENCE_BACKUP_STORE, path: 'cnpg' };

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
      backup: { objectStore: REFERENCE_CNPG_BACKUP_STORE },
    },
    'ddb-cluster': {
      namespace: 'ddb',
      instances: 3,
      managedRoles: ['authentik', 'temporal'],
      storageSize: '20Gi',
      deliveredBy: 'argocd',
      backup: { objectStore: REFERENCE_CNPG_BACKUP_STORE },
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
    // Off-site, so the dumps outlive the cluster. A placeholder: point it at your S3-compatible store and create the
    // credential Secret (the runbook checks it exists before the forgejo step).
    backup: { objectStore: REFERENCE_BACKUP_STORE },
  },
  argocd: DEFAULT_ARGOCD,
  git: {
    githubSeedUrl: 'git@github.com:homelab-owner/homelab.git',
    source: 'github',
    targetRevision: 'main',
    distPath: 'k8s/generated',
  },
  delivery: DEFAULT_DELIVERY,
};
