import type { ApplicationConfig } from '../../lib/config/argocd-config';
import { HomelabConfig } from '../../lib/config/homelab-config';

/** One invalid config: how it differs from the reference homelab, and the full report before the trailer. */
export interface CorpusCase {
  readonly name: string;
  readonly mutate: (c: HomelabConfig) => HomelabConfig;
  /** stderr without the trailing `Nothing was written; <dir>/ is unchanged.` */
  readonly stderr: string;
}

const withApps = (c: HomelabConfig, apps: Record<string, ApplicationConfig>): HomelabConfig =>
  ({ ...c, argocd: { ...c.argocd, applications: { ...c.argocd.applications, ...apps } } });
const editApp = (c: HomelabConfig, name: string, edit: Partial<ApplicationConfig>): HomelabConfig =>
  withApps(c, { [name]: { ...c.argocd.applications[name], ...edit } });
const editCluster = (c: HomelabConfig, name: string, edit: object): HomelabConfig =>
  ({ ...c, postgresClusters: { ...c.postgresClusters, [name]: { ...c.postgresClusters[name], ...edit } } });
const withDatabases = (c: HomelabConfig, databases: object): HomelabConfig => ({ ...c, databases: { ...c.databases, ...databases } });
const chartVersion = (c: HomelabConfig, name: string, version: string): HomelabConfig =>
  editApp(c, name, { sources: c.argocd.applications[name].sources.map((s) => (s.kind === 'helm-chart' ? { ...s, version } : s)) });
const gitApp = (path: string, extra: Partial<ApplicationConfig> = {}): ApplicationConfig =>
  ({ syncWave: 8, namespace: 'apps', sources: [{ kind: 'git-path', path }], ...extra });

/** The config-level cases, each with the exact report. */
export const CORPUS_CASES: CorpusCase[] = [
  { name: 'an invalid namespace name', mutate: (c) => ({ ...c, namespaces: { ...c.namespaces, Bad_NS: {} } }),
    stderr: 'The homelab config has 1 problem:\n  - namespaces.Bad_NS: \'Bad_NS\' is not a valid namespace name: must consist of lower case letters, digits and \'-\', and start and end with a letter or digit.' },
  { name: 'a too-long namespace name', mutate: (c) => ({ ...c, namespaces: { ...c.namespaces, ['n'.repeat(64)]: {} } }),
    stderr: 'The homelab config has 1 problem:\n  - namespaces.nnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnn: \'nnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnn\' is not a valid namespace name: must be at most 63 characters, got 64.' },
  { name: 'a too-long cluster name', mutate: (c) => ({ ...c, postgresClusters: { ...c.postgresClusters, ['c'.repeat(51)]: { namespace: 'ddb' } } }),
    stderr: 'The homelab config has 1 problem:\n  - postgresClusters.ccccccccccccccccccccccccccccccccccccccccccccccccccc: \'ccccccccccccccccccccccccccccccccccccccccccccccccccc\' is not a valid cluster name: must be at most 50 characters, got 51.' },
  { name: 'an invalid Application name', mutate: (c) => withApps(c, { My_App: gitApp('k8s/apps/my-app') }),
    stderr: 'The homelab config has 1 problem:\n  - argocd.applications.My_App: name must consist of lower case letters, digits and \'-\', and start and end with a letter or digit; rename the Application.' },
  { name: 'a too-long Application name', mutate: (c) => withApps(c, { ['a'.repeat(54)]: gitApp('k8s/apps/long') }),
    stderr: 'The homelab config has 1 problem:\n  - argocd.applications.aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa: name must be at most 53 characters, got 54; rename the Application.' },
  { name: 'an invalid Pod Security level', mutate: (c) => ({ ...c, namespaces: { ...c.namespaces, ddb: { podSecurity: 'strict' as never } } }),
    stderr: 'The homelab config has 1 problem:\n  - namespaces.ddb.podSecurity: \'strict\' is not a Pod Security level; use one of privileged, baseline, restricted.' },
  { name: 'a Database on an unknown cluster', mutate: (c) => withDatabases(c, { temporal_visibility: { cluster: 'ddb', owner: 'temporal', deliveredBy: 'argocd' } }),
    stderr: 'The homelab config has 2 problems:\n  - databases.temporal_visibility.cluster: unknown postgres cluster \'ddb\'. Declare it under \'postgresClusters\' or use one of: ddb-cluster, forgejo-db.\n  - argocd.temporal: databases \'temporal\' and \'temporal_visibility\' must both be keys of databases on cluster \'ddb-cluster\'. Declare them under databases with cluster: \'ddb-cluster\'.' },
  { name: 'a Database whose Kubernetes name collides in one namespace', mutate: (c) => withDatabases(c, { _authentik: { cluster: 'ddb-cluster', owner: 'authentik', deliveredBy: 'argocd' } }),
    stderr: 'The homelab config has 1 problem:\n  - databases.authentik: its Kubernetes name \'authentik\' in namespace \'ddb\' is also the name of databases._authentik; rename one of them.' },
  { name: 'a Database on a cluster in another namespace than Forgejo', mutate: (c) => ({ ...c, forgejo: { ...c.forgejo, namespace: 'ddb' } }),
    stderr: 'The homelab config has 1 problem:\n  - forgejo.databaseSecret: Forgejo cannot use the CNPG-generated \'forgejo-db-app\' Secret: the cluster is in namespace \'cicd\' and Forgejo in \'ddb\'. Set forgejo.databaseSecret to a Secret in \'ddb\' with keys username and password.' },
  { name: 'the reserved database name postgres', mutate: (c) => withDatabases(c, { postgres: { cluster: 'ddb-cluster', owner: 'temporal', deliveredBy: 'argocd' } }),
    stderr: 'The homelab config has 1 problem:\n  - databases.postgres: \'postgres\' is reserved by PostgreSQL and must not be managed by CNPG; choose another name.' },
  { name: 'the reserved database name template0', mutate: (c) => withDatabases(c, { template0: { cluster: 'ddb-cluster', owner: 'temporal', deliveredBy: 'argocd' } }),
    stderr: 'The homelab config has 1 problem:\n  - databases.template0: \'template0\' is reserved by PostgreSQL and must not be managed by CNPG; choose another name.' },
  { name: 'the reserved database name template1', mutate: (c) => withDatabases(c, { template1: { cluster: 'ddb-cluster', owner: 'temporal', deliveredBy: 'argocd' } }),
    stderr: 'The homelab config has 1 problem:\n  - databases.template1: \'template1\' is reserved by PostgreSQL and must not be managed by CNPG; choose another name.' },
  { name: 'a reserved initdb database', mutate: (c) => editCluster(c, 'ddb-cluster', { initdbDatabase: 'postgres' }),
    stderr: 'The homelab config has 1 problem:\n  - postgresClusters.ddb-cluster.initdbDatabase: \'postgres\' is reserved by PostgreSQL; choose another name.' },
  { name: 'two Postgres databases with one name on one cluster', mutate: (c) => withDatabases(c, { forgejo: { cluster: 'forgejo-db', owner: 'forgejo' } }),
    stderr: 'The homelab config has 1 problem:\n  - databases.forgejo: cluster \'forgejo-db\' already has a database \'forgejo\' (its initdbDatabase); two databases with one PostgreSQL name on one cluster would fight. Remove databases.forgejo.' },
  { name: 'a Database without an owner', mutate: (c) => withDatabases(c, { authentik: { cluster: 'ddb-cluster', owner: '', deliveredBy: 'argocd' } }),
    stderr: 'The homelab config has 1 problem:\n  - databases.authentik.owner: a database needs an owner role; set it to \'app\' (the cluster\'s initdb owner) or to one of its managedRoles.' },
  { name: 'a Database owned by a role the cluster lacks', mutate: (c) => withDatabases(c, { authentik: { cluster: 'ddb-cluster', owner: 'nobody', deliveredBy: 'argocd' } }),
    stderr: 'The homelab config has 1 problem:\n  - databases.authentik.owner: role \'nobody\' does not exist on cluster \'ddb-cluster\' (roles: app, authentik, temporal); CNPG never creates a database owner. Add it to postgresClusters.ddb-cluster.managedRoles.' },
  { name: 'a Phase-0 Database on a cluster Argo CD delivers', mutate: (c) => withDatabases(c, { authentik: { cluster: 'ddb-cluster', owner: 'authentik' } }),
    stderr: 'The homelab config has 1 problem:\n  - databases.authentik.deliveredBy: the database is delivered in Phase 0 but its cluster \'ddb-cluster\' is delivered by Argo CD, so it would be applied before its cluster exists. Set deliveredBy: \'argocd\' or move the cluster to Phase 0.' },
  { name: 'a dependency on an undeclared Application', mutate: (c) => editApp(c, 'duckdns', { dependsOn: ['nope'] }),
    stderr: 'The homelab config has 1 problem:\n  - argocd.applications.duckdns.dependsOn: \'nope\' is not an Application of the tree. Use a key of argocd.applications or a generated Application.' },
  { name: 'a dependency cycle', mutate: (c) => editApp(editApp(c, 'grafana', { dependsOn: ['loki'] }), 'loki', { dependsOn: ['grafana'] }),
    stderr: 'The homelab config has 2 problems:\n  - argocd.applications.grafana.dependsOn: application \'grafana\' (wave 2) depends on \'loki\' (wave 2), but a dependency must sit in a strictly earlier wave. Lower the syncWave of \'loki\' below 2, or raise the syncWave of \'grafana\' above 2.\n  - argocd.applications.loki.dependsOn: application \'loki\' (wave 2) depends on \'grafana\' (wave 2), but a dependency must sit in a strictly earlier wave. Lower the syncWave of \'grafana\' below 2, or raise the syncWave of \'loki\' above 2.' },
  { name: 'an Application that depends on itself', mutate: (c) => editApp(c, 'duckdns', { dependsOn: ['duckdns'] }),
    stderr: 'The homelab config has 1 problem:\n  - argocd.applications.duckdns.dependsOn: application \'duckdns\' cannot depend on itself' },
  { name: 'a wave out of range', mutate: (c) => editApp(c, 'duckdns', { syncWave: 9 as never }),
    stderr: 'The homelab config has 1 problem:\n  - argocd.applications.duckdns.syncWave: syncWave must be an integer from 0 to 8, got 9. Pick a wave from SYNC_WAVES (lib/shared/sync-waves.ts).' },
  { name: 'a generated Application\'s wave out of range', mutate: (c) => ({ ...c, argocd: { ...c.argocd, forgejoMirror: { syncWave: -1 as never } } }),
    stderr: 'The homelab config has 1 problem:\n  - argocd.forgejoMirror.syncWave: syncWave must be an integer from 0 to 8, got -1. Pick a wave from SYNC_WAVES (lib/shared/sync-waves.ts).' },
  { name: 'a wave contradicting a dependency', mutate: (c) => editApp(c, 'minio-tenant', { syncWave: 0 }),
    stderr: 'The homelab config has 1 problem:\n  - argocd.applications.minio-tenant.dependsOn: application \'minio-tenant\' (wave 0) depends on \'minio-operator\' (wave 0), but a dependency must sit in a strictly earlier wave. Lower the syncWave of \'minio-operator\' below 0, or raise the syncWave of \'minio-tenant\' above 0.' },
  { name: 'a generated wave contradicting a generated dependency', mutate: (c) => ({ ...c, argocd: { ...c.argocd, sopsSecrets: { syncWave: 7 } } }),
    stderr: 'The homelab config has 2 problems:\n  - argocd.forgejoMirror.syncWave: application \'forgejo-mirror\' (wave 3) depends on \'sops-secrets\' (wave 7), but a dependency must sit in a strictly earlier wave. Lower the syncWave of \'sops-secrets\' below 3, or raise the syncWave of \'forgejo-mirror\' above 7.\n  - argocd.dataSchemas.syncWave: application \'data-schemas\' (wave 6) depends on \'sops-secrets\' (wave 7), but a dependency must sit in a strictly earlier wave. Lower the syncWave of \'sops-secrets\' below 6, or raise the syncWave of \'data-schemas\' above 7.' },
  { name: 'two Applications with the same source', mutate: (c) => withApps(c, { 'duckdns-copy': { ...c.argocd.applications.duckdns } }),
    stderr: 'The homelab config has 1 problem:\n  - argocd.applications.duckdns-copy.sources: applications \'duckdns\' and \'duckdns-copy\' both use path \'k8s/apps/duckdns\'; every deployable directory is the source of exactly one Application. Remove the path from one of them.' },
  { name: 'an absolute Application path', mutate: (c) => editApp(c, 'duckdns', { sources: [{ kind: 'git-path', path: '/k8s/apps/duckdns' }] }),
    stderr: 'The homelab config has 1 problem:\n  - argocd.applications.duckdns.sources[0].path: source path \'/k8s/apps/duckdns\' must be relative to the repository root, without a leading \'/\'.' },
  { name: 'an Application path containing ..', mutate: (c) => editApp(c, 'duckdns', { sources: [{ kind: 'git-path', path: '../secrets' }] }),
    stderr: 'The homelab config has 1 problem:\n  - argocd.applications.duckdns.sources[0].path: source path \'../secrets\' must not contain \'..\'.' },
  { name: 'a values file outside the repository', mutate: (c) => editApp(c, 'homarr', { sources: [{ kind: 'helm-chart', repoURL: 'https://homarr-labs.github.io/charts/', chart: 'homarr', version: '8.19.0', valueFiles: ['../values.yaml'] }] }),
    stderr: 'The homelab config has 1 problem:\n  - argocd.applications.homarr.sources[0].valueFiles[0]: values file \'../values.yaml\' must not contain \'..\'.' },
  { name: 'the default project', mutate: (c) => ({ ...c, argocd: { ...c.argocd, project: 'default' } }),
    stderr: 'The homelab config has 1 problem:\n  - argocd.project: AppProject name \'default\' is not allowed: it is Argo CD\'s built-in catch-all project, which permits every repository, destination and cluster resource. Use a dedicated project such as \'homelab\'.' },
  { name: '* as the project', mutate: (c) => ({ ...c, argocd: { ...c.argocd, project: '*' } }),
    stderr: 'The homelab config has 1 problem:\n  - argocd.project: AppProject name \'*\' must consist of lower case letters, digits and \'-\', and start and end with a letter or digit; choose a valid name.' },
  { name: 'an unpinned chart', mutate: (c) => chartVersion(c, 'grafana', '12.x'),
    stderr: 'The homelab config has 1 problem:\n  - argocd.applications.grafana.sources[0].version: chart \'grafana\' version \'12.x\' is not pinned. A range, a wildcard, \'latest\' or an empty version lets the chart change under the same commit. Set an exact release version such as \'1.6.0\'.' },
  { name: 'two unpinned charts, reported together', mutate: (c) => chartVersion(chartVersion(c, 'grafana', 'latest'), 'loki', '*'),
    stderr: 'The homelab config has 2 problems:\n  - argocd.applications.grafana.sources[0].version: chart \'grafana\' version \'latest\' is not pinned. A range, a wildcard, \'latest\' or an empty version lets the chart change under the same commit. Set an exact release version such as \'1.6.0\'.\n  - argocd.applications.loki.sources[0].version: chart \'loki\' version \'*\' is not pinned. A range, a wildcard, \'latest\' or an empty version lets the chart change under the same commit. Set an exact release version such as \'1.6.0\'.' },
  { name: 'a chart from a plain-http repository', mutate: (c) => editApp(c, 'homarr', { sources: [{ kind: 'helm-chart', repoURL: 'http://charts.example.com', chart: 'homarr', version: '8.19.0' }] }),
    stderr: 'The homelab config has 1 problem:\n  - argocd.applications.homarr.sources[0].repoURL: chart repository \'http://charts.example.com\' must be an https:// Helm repository or an oci:// registry path.' },
  { name: 'managedNamespaceMetadata without CreateNamespace', mutate: (c) => editApp(c, 'duckdns', { syncOptions: [] }),
    stderr: 'The homelab config has 1 problem:\n  - argocd.applications.duckdns.managedNamespaceMetadata: managedNamespaceMetadata is set but the sync option \'CreateNamespace\' is not; Argo CD applies namespace metadata only to a namespace it creates. Add \'CreateNamespace\' to syncOptions or remove managedNamespaceMetadata.' },
  { name: 'namespace metadata on a Phase-0 namespace', mutate: (c) => editApp(c, 'cicd-config', { syncOptions: ['CreateNamespace'], managedNamespaceMetadata: { labels: { a: 'b' } } }),
    stderr: 'The homelab config has 1 problem:\n  - argocd.applications.cicd-config: namespace \'cicd\' is created in Phase 0 (namespaces.cicd), which owns its labels. Remove managedNamespaceMetadata and CreateNamespace from the Application, or remove the namespace from namespaces.' },
  { name: 'a path inside an unmanaged directory', mutate: (c) => ({ ...c, argocd: { ...c.argocd, unmanaged: ['k8s/apps'] } }),
    stderr: 'The homelab config has 7 problems:\n  - argocd.applications.cloudflared: path \'k8s/apps/cloudflared/values.yaml\' is inside \'k8s/apps\', which argocd.unmanaged declares experimental and unmanaged. Remove it from argocd.unmanaged or stop using the path.\n  - argocd.applications.duckdns: path \'k8s/apps/duckdns\' is inside \'k8s/apps\', which argocd.unmanaged declares experimental and unmanaged. Remove it from argocd.unmanaged or stop using the path.\n  - argocd.applications.homarr: path \'k8s/apps/homarr/values.yaml\' is inside \'k8s/apps\', which argocd.unmanaged declares experimental and unmanaged. Remove it from argocd.unmanaged or stop using the path.\n  - argocd.applications.kafka-cluster: path \'k8s/apps/messaging/kafka-cluster\' is inside \'k8s/apps\', which argocd.unmanaged declares experimental and unmanaged. Remove it from argocd.unmanaged or stop using the path.\n  - argocd.applications.management-service: path \'k8s/apps/messaging/management-service\' is inside \'k8s/apps\', which argocd.unmanaged declares experimental and unmanaged. Remove it from argocd.unmanaged or stop using the path.\n  - argocd.applications.portainer: path \'k8s/apps/portainer/values.yaml\' is inside \'k8s/apps\', which argocd.unmanaged declares experimental and unmanaged. Remove it from argocd.unmanaged or stop using the path.\n  - argocd.applications.queue-crd: path \'k8s/apps/messaging/queue-crd\' is inside \'k8s/apps\', which argocd.unmanaged declares experimental and unmanaged. Remove it from argocd.unmanaged or stop using the path.' },
  { name: 'an Application named like a generated one', mutate: (c) => withApps(c, { 'sops-secrets': gitApp('k8s/apps/sops') }),
    stderr: 'The homelab config has 1 problem:\n  - argocd.applications.sops-secrets: \'sops-secrets\' is the name of an Application the tree generates (root, projects, sops-secrets, data-schemas, backup-checks, forgejo-mirror, temporal). Rename it.' },
  { name: 'a Phase-0 component as an App', mutate: (c) => withApps(c, { longhorn: gitApp('k8s/infra/longhorn-app') }),
    stderr: 'The homelab config has 1 problem:\n  - argocd.applications.longhorn: \'longhorn\' is a Phase-0 component and must never be an Argo CD Application: Argo CD syncs from the git repository that Forgejo serves, and Forgejo needs CNPG and storage, so managing it from Argo CD re-creates the bootstrap circle. Remove the Application; the bootstrap runbook owns it.' },
  { name: 'the Forgejo chart under another Application name', mutate: (c) => withApps(c, { 'git-server': { syncWave: 3, namespace: 'apps', sources: [{ kind: 'helm-chart', repoURL: 'oci://code.forgejo.org/forgejo-helm', chart: 'forgejo', version: '12.5.1' }] } }),
    stderr: 'The homelab config has 1 problem:\n  - argocd.applications.git-server.sources[0]: application \'git-server\' deploys the Phase-0 component \'forgejo\' under another name: its chart \'forgejo\' from \'oci://code.forgejo.org/forgejo-helm\' matches the signature of \'forgejo\' (it serves the git repository Argo CD syncs from). Argo CD syncs from the git repository that Forgejo serves, and Forgejo needs CNPG and storage, so an Application that owns it re-creates the bootstrap circle. Remove this source; the bootstrap runbook installs \'forgejo\'.' },
  { name: 'the repository root read recursively (it holds the bootstrap tree)', mutate: (c) => withApps(c, { everything: gitApp('.', { sources: [{ kind: 'git-path', path: '.', recurse: true }] }) }),
    stderr: 'The homelab config has 1 problem:\n  - argocd.applications.everything.sources[0]: application \'everything\' deploys the Phase-0 component \'bootstrap\' under another name: its path \'.\' with recurse: true (which reads \'k8s/generated/bootstrap\') matches the signature of \'bootstrap\' (it is the runbook\'s own input: namespaces, the CNPG operator, forgejo-db, Forgejo, the Argo CD install and the root app). Argo CD syncs from the git repository that Forgejo serves, and Forgejo needs CNPG and storage, so an Application that owns it re-creates the bootstrap circle. Point the source at a directory outside \'k8s/generated/bootstrap\', or drop recurse: true and list the subdirectories as sources.' },
  { name: 'Temporal on Cassandra', mutate: (c) => ({ ...c, argocd: { ...c.argocd, temporal: { ...c.argocd.temporal!, valuesOverride: { cassandra: { enabled: true } } } } }),
    stderr: 'The homelab config has 1 problem:\n  - argocd.temporal.valuesOverride: top-level key \'cassandra\' is set (to {"enabled":true}). Temporal chart 1.6.0 has no subcharts and refuses any of cassandra, elasticsearch, grafana, mysql, postgresql, prometheus, even {enabled: false}; Temporal runs on PostgreSQL only. Remove it from the values override.' },
  { name: 'Temporal visibility moved off PostgreSQL', mutate: (c) => ({ ...c, argocd: { ...c.argocd, temporal: { ...c.argocd.temporal!, valuesOverride: { server: { config: { persistence: { visibilityStore: 'es-visibility' } } } } } } }),
    stderr: 'The homelab config has 1 problem:\n  - argocd.temporal.valuesOverride: server.config.persistence.visibilityStore is "es-visibility", which is not the PostgreSQL datastore \'visibility\'; visibility must stay on PostgreSQL (a datastore with sql settings). Remove it from the values override.' },
  { name: 'Temporal on the MySQL plugin', mutate: (c) => ({ ...c, argocd: { ...c.argocd, temporal: { ...c.argocd.temporal!, sqlPlugin: 'mysql8' as never } } }),
    // One problem from the schema's enum instead of four from the values guard (which still guards valuesOverride).
    stderr: 'The homelab config has 1 problem:\n  - argocd.temporal.sqlPlugin: \'mysql8\' is not allowed: Temporal runs on PostgreSQL only. Use one of \'postgres12\', \'postgres12_pgx\'.' },
  { name: 'a Temporal chart version the values are not written for', mutate: (c) => ({ ...c, argocd: { ...c.argocd, temporal: { ...c.argocd.temporal!, chartVersion: '1.7.0' } } }),
    stderr: 'The homelab config has 1 problem:\n  - argocd.temporal.chartVersion: chart version \'1.7.0\' differs from \'1.6.0\', the version the generated values are written for. Chart schema drift silently reverts persistence to Cassandra. Review lib/constructs/temporal/temporal-values.ts against the new chart and update TEMPORAL_VALUES_CHART_VERSION, or set the chart version back to \'1.6.0\'.' },
  { name: 'Temporal on a cluster without its databases', mutate: (c) => ({ ...c, argocd: { ...c.argocd, temporal: { ...c.argocd.temporal!, cluster: 'forgejo-db' } } }),
    stderr: 'The homelab config has 1 problem:\n  - argocd.temporal: databases \'temporal\' and \'temporal_visibility\' must both be keys of databases on cluster \'forgejo-db\'. Declare them under databases with cluster: \'forgejo-db\'.' },
  { name: 'Temporal databases with different owners', mutate: (c) => withDatabases(c, { temporal_visibility: { cluster: 'ddb-cluster', owner: 'authentik', deliveredBy: 'argocd' } }),
    stderr: 'The homelab config has 1 problem:\n  - databases.temporal_visibility.owner: database \'temporal_visibility\' is owned by \'authentik\', not by \'temporal\', the role Temporal logs in as; its schema Job could not create tables. Make \'temporal\' its owner.' },
  { name: 'a private key in config', mutate: (c) => ({ ...c, forgejo: { ...c.forgejo, databaseSecret: '-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----' } }),
    stderr: 'The homelab config has 1 problem:\n  - forgejo.databaseSecret: contains a PEM private key (OPENSSH PRIVATE KEY). Never put secrets in the homelab config: it is committed and rendered into dist/. Deliver it as a Secret (SOPS or a local file read at apply time) and reference the Secret by name.' },
  { name: 'a GitHub token in config', mutate: (c) => ({ ...c, git: { ...c.git, githubSeedUrl: `https://ghp_${'A1b2C3d4E5'.repeat(4)}@github.com/acme/homelab.git` } }),
    stderr: 'The homelab config has 1 problem:\n  - git.githubSeedUrl: contains a GitHub token (ghp_A1b2...). Never put secrets in the homelab config: it is committed and rendered into dist/. Revoke the token on GitHub, then deliver it as a Secret (SOPS or a local file read at apply time) and reference the Secret by name.' },
  { name: 'a base64-encoded private key in Temporal values', mutate: (c) => ({ ...c, argocd: { ...c.argocd, temporal: { ...c.argocd.temporal!, valuesOverride: { key: Buffer.from('-----BEGIN RSA PRIVATE KEY-----\nMIIB\n').toString('base64') } } } }),
    stderr: 'The homelab config has 1 problem:\n  - argocd.temporal.valuesOverride.key: contains a base64-encoded PEM private key (RSA PRIVATE KEY). Never put secrets in the homelab config: it is committed and rendered into dist/. Deliver it as a Secret (SOPS or a local file read at apply time) and reference the Secret by name.' },
  { name: 'a seed URL that is not GitHub over SSH', mutate: (c) => ({ ...c, git: { ...c.git, githubSeedUrl: 'https://gitlab.com/acme/homelab.git' } }),
    stderr: 'The homelab config has 1 problem:\n  - git.githubSeedUrl: \'https://gitlab.com/acme/homelab.git\' is not a GitHub SSH URL; write it like \'git@github.com:owner/homelab.git\' (the deploy key is an SSH key).' },
  { name: 'a dist path outside the repository', mutate: (c) => ({ ...c, git: { ...c.git, distPath: '../generated' } }),
    stderr: 'The homelab config has 1 problem:\n  - git.distPath: \'../generated\' must be a relative path inside the homelab repository, without \'..\' or a trailing \'/\', e.g. \'k8s/generated\'.' },
  { name: 'a memory limit of 400m', mutate: (c) => editCluster(c, 'forgejo-db', { memoryLimit: '400m' }),
    stderr: 'The homelab config has 1 problem:\n  - postgresClusters.forgejo-db.memoryLimit: memory \'400m\' is 0.4 bytes: the \'m\' suffix means thousandths for bytes; write \'400Mi\'.' },
  { name: 'a memory request above its limit', mutate: (c) => editCluster(c, 'ddb-cluster', { memoryRequest: '2Gi', memoryLimit: '1Gi' }),
    stderr: 'The homelab config has 1 problem:\n  - postgresClusters.ddb-cluster.memoryRequest: memory request \'2Gi\' is above its limit \'1Gi\'; the API server rejects it. Lower the request or raise the limit.' },
  { name: 'a CPU request that is not a quantity', mutate: (c) => editCluster(c, 'forgejo-db', { cpuRequest: 'half' }),
    stderr: 'The homelab config has 1 problem:\n  - postgresClusters.forgejo-db.cpuRequest: \'half\' is not a Kubernetes quantity; write it like \'100m\'.' },
  { name: 'zero instances', mutate: (c) => editCluster(c, 'forgejo-db', { instances: 0 }),
    stderr: 'The homelab config has 1 problem:\n  - postgresClusters.forgejo-db.instances: must be an integer of at least 1, got 0.' },
  { name: 'Forgejo on an undeclared database', mutate: (c) => ({ ...c, forgejo: { ...c.forgejo, database: 'gitea' } }),
    stderr: 'The homelab config has 1 problem:\n  - forgejo.database: no database \'gitea\' is declared: add it under \'databases\' or set it to the initdbDatabase of a cluster under \'postgresClusters\'.' },
];
