import { Testing } from 'cdk8s';
import { CnpgCluster } from '../../../lib/constructs/cnpg/cnpg-cluster';
import { CnpgDatabase } from '../../../lib/constructs/cnpg/cnpg-database';
import { HomelabApplication } from '../../../lib/constructs/argocd/homelab-application';
import { TemporalApplication, TemporalApplicationProps } from '../../../lib/constructs/temporal/temporal-application';
import { appProps, find, makeProjectChart, SEED_URL } from '../argocd/util';

function setup() {
  const base = makeProjectChart();
  const cluster = new CnpgCluster(base.chart, 'Cluster', { name: 'ddb-cluster', namespace: 'ddb', managedRoles: ['temporal', 'other'] });
  const defaultDatabase = new CnpgDatabase(base.chart, 'Temporal', { cluster, pgName: 'temporal', owner: 'temporal' });
  const visibilityDatabase = new CnpgDatabase(base.chart, 'Visibility', { cluster, pgName: 'temporal_visibility', owner: 'temporal' });
  return { ...base, cluster, defaultDatabase, visibilityDatabase };
}

function temporal(overrides: Partial<TemporalApplicationProps> = {}) {
  const s = setup();
  const app = new TemporalApplication(s.chart, 'Temporal-App', {
    project: s.project, repo: s.repo, defaultDatabase: s.defaultDatabase, visibilityDatabase: s.visibilityDatabase, ...overrides,
  });
  return { ...s, app };
}

test('defaults: chart 1.6.0 with generated values through $values, PostgreSQL on the cluster rw Service', () => {
  // WHEN
  const { app, chart } = temporal();
  // THEN
  expect(app.name).toBe('temporal');
  expect(app.namespace).toBe('temporal');
  expect(app.syncWave).toBe(8);
  expect(app.chartVersion).toBe('1.6.0');
  expect(app.user).toBe('temporal');
  expect(app.passwordSecretName).toBe('ddb-cluster-temporal');
  expect(app.sqlPlugin).toBe('postgres12_pgx');
  expect(app.numHistoryShards).toBe(512);
  expect(app.valuesFile).toBe('values/temporal.yaml');
  const persistence = (app.values as any).server.config.persistence;
  expect(persistence.datastores.default.sql).toMatchObject({ databaseName: 'temporal', connectAddr: 'ddb-cluster-rw.ddb.svc:5432', user: 'temporal' });
  expect(persistence.datastores.visibility.sql).toMatchObject({ databaseName: 'temporal_visibility', existingSecret: 'ddb-cluster-temporal' });
  const json = find(Testing.synth(chart), 'Application', 'temporal');
  expect(json.spec.sources).toEqual([
    {
      repoURL: 'https://go.temporal.io/helm-charts',
      chart: 'temporal',
      targetRevision: '1.6.0',
      helm: { releaseName: 'temporal', valueFiles: ['$values/k8s/generated/values/temporal.yaml'] },
    },
    { repoURL: SEED_URL, targetRevision: 'main', ref: 'values' },
  ]);
  expect(json.spec.syncPolicy.syncOptions).toEqual(['CreateNamespace=true']);
});

test('all props', () => {
  const s = setup();
  const schemas = new HomelabApplication(s.chart, 'Schemas', appProps(s, { name: 'data-schemas', syncWave: 6 }));
  const props: Required<TemporalApplicationProps> = {
    project: s.project,
    repo: s.repo,
    defaultDatabase: s.defaultDatabase,
    visibilityDatabase: s.visibilityDatabase,
    name: 'workflows',
    namespace: 'workflows',
    syncWave: 7,
    chartVersion: '1.6.0',
    user: 'temporal',
    passwordSecretName: 'temporal-db',
    sqlPlugin: 'postgres12',
    numHistoryShards: 128,
    valuesOverride: { server: { replicaCount: 2 } },
    dependsOn: [schemas],
    managedNamespaceMetadata: { labels: { a: 'b' } },
  };
  const app = new TemporalApplication(s.chart, 'Workflows', props);
  expect(app.dependsOn).toEqual([schemas]);
  expect(app.valuesFile).toBe('values/workflows.yaml');
  expect((app.values as any).server).toMatchObject({ replicaCount: 2, config: { persistence: { numHistoryShards: 128 } } });
  expect((app.values as any).server.config.persistence.datastores.default.sql).toMatchObject({ pluginName: 'postgres12', existingSecret: 'temporal-db' });
});

test('throws on a chart version other than the one the values were written for', () => {
  expect(() => temporal({ chartVersion: '1.7.0' })).toThrow(new Error(
    'temporal: chart version \'1.7.0\' differs from \'1.6.0\', the version the generated values are written for. Chart schema drift ' +
    'silently reverts persistence to Cassandra. Review lib/constructs/temporal/temporal-values.ts against the new chart and update ' +
    'TEMPORAL_VALUES_CHART_VERSION, or set the chart version back to \'1.6.0\'.'));
});

test.each(['cassandra', 'elasticsearch', 'mysql'])('throws on an override that enables %s', (key) => {
  expect(() => temporal({ valuesOverride: { [key]: { enabled: true } } })).toThrow(new Error(
    'temporal: the values would not run Temporal on PostgreSQL with chart 1.6.0:\n' +
    `  - top-level key '${key}' is set (to {"enabled":true}). Temporal chart 1.6.0 has no subcharts and refuses any of ` +
    'cassandra, elasticsearch, grafana, mysql, postgresql, prometheus, even {enabled: false}; Temporal runs on PostgreSQL only. ' +
    'Remove it from the values override.'));
});

test('throws on an override that moves visibility off PostgreSQL', () => {
  expect(() => temporal({ valuesOverride: { server: { config: { persistence: { visibilityStore: 'default-es' } } } } })).toThrow(
    'server.config.persistence.visibilityStore is "default-es", which is not the PostgreSQL datastore \'visibility\'; ' +
    'visibility must stay on PostgreSQL (a datastore with sql settings).');
});

test('throws on a MySQL plugin given through untyped config', () => {
  expect(() => temporal({ sqlPlugin: 'mysql8' as any })).toThrow(
    'server.config.persistence.datastores.default.sql.pluginName is "mysql8", but Temporal runs on PostgreSQL only.');
});

test('throws when a database is not owned by the role Temporal logs in as', () => {
  const s = setup();
  const other = new CnpgDatabase(s.chart, 'Other', { cluster: s.cluster, pgName: 'temporal_other', owner: 'other' });
  expect(() => new TemporalApplication(s.chart, 'T', { project: s.project, repo: s.repo, defaultDatabase: s.defaultDatabase, visibilityDatabase: other }))
    .toThrow(new Error('temporal: database \'temporal_other\' is owned by \'other\', not by \'temporal\', the role Temporal logs in as; ' +
      'its schema Job could not create tables. Make \'temporal\' its owner.'));
});
