import { REFERENCE_CNPG_BACKUP_STORE, REFERENCE_HOMELAB } from '../lib/config/defaults';
import { HomelabConfig } from '../lib/config/homelab-config';

/**
 * The older layout of the dependency-fix runbook, expressed by config alone: one shared `ddb-cluster` with
 * three instances, and the databases `forgejo`, `authentik`, `temporal` and `temporal_visibility` all
 * created in Phase 0, owned by the cluster's `app` role.
 *
 * Forgejo stays in `cicd` while the cluster is in `ddb`, so it cannot read the CNPG `ddb-cluster-app` Secret
 * (Secrets are namespaced): `forgejo-db-credentials` in `cicd` is provided out of band, and the runbook
 * checks that it exists before applying Forgejo.
 *
 *   npm run synth -- --config examples/ddb-cluster.config.ts --out /tmp/ddb-dist
 */
const config: HomelabConfig = {
  ...REFERENCE_HOMELAB,
  postgresClusters: {
    'ddb-cluster': {
      namespace: 'ddb', instances: 3, initdbDatabase: 'app', initdbOwner: 'app', storageSize: '20Gi',
      // Phase 0: the runbook installs the Barman Cloud plugin first and applies the credentials from a local file.
      backup: { objectStore: REFERENCE_CNPG_BACKUP_STORE },
    },
  },
  databases: {
    forgejo: { cluster: 'ddb-cluster', owner: 'app' },
    // Authentik's pods reach the cluster across namespaces; Phase 0 isolates 'ddb', so the allow is asked for here.
    authentik: { cluster: 'ddb-cluster', owner: 'app', usedBy: ['authentik'] },
    temporal: { cluster: 'ddb-cluster', owner: 'app' },
    temporal_visibility: { cluster: 'ddb-cluster', owner: 'app' },
  },
  forgejo: { namespace: 'cicd', database: 'forgejo', databaseSecret: 'forgejo-db-credentials' },
  argocd: {
    ...REFERENCE_HOMELAB.argocd,
    applications: {
      ...REFERENCE_HOMELAB.argocd.applications,
      // The databases exist after Phase 0 here, so nothing waits for a data-schemas Application.
      authentik: { ...REFERENCE_HOMELAB.argocd.applications.authentik, dependsOn: [] },
    },
  },
};

export default config;
