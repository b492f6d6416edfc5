import { Testing } from 'cdk8s';
import { CnpgCluster } from '../../../lib/constructs/cnpg/cnpg-cluster';
import { CnpgDatabase } from '../../../lib/constructs/cnpg/cnpg-database';
import { DataSchemas, DataSchemasProps } from '../../../lib/constructs/argocd/data-schemas';
import { HomelabApplication } from '../../../lib/constructs/argocd/homelab-application';
import { BarmanObjectStore } from '../../../lib/constructs/cnpg/barman-object-store';
import { CnpgScheduledBackup } from '../../../lib/constructs/cnpg/cnpg-scheduled-backup';
import { appProps, find, makeProjectChart } from './util';

function setup() {
  const base = makeProjectChart();
  const cluster = new CnpgCluster(base.chart, 'Cluster', { name: 'ddb-cluster', namespace: 'ddb', managedRoles: ['temporal'] });
  const temporal = new CnpgDatabase(base.chart, 'Temporal', { cluster, pgName: 'temporal', owner: 'temporal' });
  const visibility = new CnpgDatabase(base.chart, 'Visibility', { cluster, pgName: 'temporal_visibility', owner: 'temporal' });
  return { ...base, cluster, temporal, visibility };
}

test('delivers the Cluster before its Databases, one file per cluster, at <distPath>/data-schemas', () => {
  // GIVEN
  const s = setup();
  // WHEN
  const app = new DataSchemas(s.chart, 'DataSchemas', { project: s.project, repo: s.repo, clusters: [s.cluster], databases: [s.visibility, s.temporal] });
  const files = app.fileOfObjects();
  // THEN
  expect(app.name).toBe('data-schemas');
  expect(app.syncWave).toBe(6);
  expect(app.namespace).toBe('ddb');
  expect(app.syncOptions).toEqual([]);
  expect([...new Set(files.map(([, file]) => file))]).toEqual(['data-schemas/ddb-cluster.yaml']);
  const docs = files.map(([obj]) => obj.toJson());
  expect(docs.map((d: any) => `${d.kind}/${d.metadata.name}@${d.metadata.annotations['argocd.argoproj.io/sync-wave']}`))
    .toEqual(['Cluster/ddb-cluster@0', 'Database/temporal@1', 'Database/temporal-visibility@1']);
  const json = find(Testing.synth(s.chart), 'Application', 'data-schemas');
  expect(json.spec.source).toEqual(expect.objectContaining({ path: 'k8s/generated/data-schemas' }));
});

test('Databases of a Phase-0 cluster carry no resource wave and the cluster is not delivered', () => {
  const s = setup();
  const app = new DataSchemas(s.chart, 'DataSchemas', { project: s.project, repo: s.repo, databases: [s.temporal] });
  const docs = app.fileOfObjects().map(([obj, file]) => ({ file, json: obj.toJson() }));
  expect(docs.map((d) => `${d.file}: ${d.json.kind}/${d.json.metadata.name}`)).toEqual(['data-schemas/ddb-cluster.yaml: Database/temporal']);
  expect(docs[0].json.metadata.annotations).toEqual({ 'argocd.argoproj.io/sync-options': 'Prune=false,Delete=false' });
});

test('every delivered Cluster and Database is neither pruned nor deleted by Argo CD', () => {
  // GIVEN
  const s = setup();
  // WHEN
  const app = new DataSchemas(s.chart, 'DataSchemas', { project: s.project, repo: s.repo, clusters: [s.cluster], databases: [s.temporal, s.visibility] });
  // THEN
  const docs = app.fileOfObjects().map(([obj]) => obj.toJson());
  expect(docs.map((d: any) => `${d.kind}/${d.metadata.name}: ${d.metadata.annotations['argocd.argoproj.io/sync-options']}`)).toEqual([
    'Cluster/ddb-cluster: Prune=false,Delete=false',
    'Database/temporal: Prune=false,Delete=false',
    'Database/temporal-visibility: Prune=false,Delete=false',
  ]);
  // The Application itself still prunes everything else automatically.
  expect(find(Testing.synth(s.chart), 'Application', 'data-schemas').spec.syncPolicy.automated).toEqual(expect.objectContaining({ prune: true }));
});

test('all props', () => {
  const s = setup();
  const sops = new HomelabApplication(s.chart, 'Sops', appProps(s, { name: 'sops-secrets', syncWave: 0 }));
  const props: Required<DataSchemasProps> = {
    project: s.project,
    repo: s.repo,
    clusters: [s.cluster],
    databases: [s.temporal],
    scheduledBackups: [],
    name: 'schemas',
    syncWave: 5,
    createNamespace: true,
    managedNamespaceMetadata: { labels: { 'pod-security.kubernetes.io/enforce': 'restricted' } },
    dependsOn: [sops],
  };
  const app = new DataSchemas(s.chart, 'Schemas', props);
  expect(app.syncOptions).toEqual(['CreateNamespace']);
  expect(app.dependsOn).toEqual([sops]);
  expect(find(Testing.synth(s.chart), 'Application', 'schemas').metadata.annotations['argocd.argoproj.io/sync-wave']).toBe('5');
});

test('throws when there is nothing to deliver', () => {
  const s = setup();
  expect(() => new DataSchemas(s.chart, 'DataSchemas', { project: s.project, repo: s.repo, databases: [] })).toThrow(new Error(
    'application \'data-schemas\': has nothing to deliver; pass at least one of \'clusters\' or \'databases\', or drop the Application.'));
});

test('a backed-up cluster: its ObjectStore syncs with it (wave 0), its ScheduledBackup after it (wave 1), all in its file', () => {
  // GIVEN
  const s = setup();
  const store = new BarmanObjectStore(s.chart, 'Store', {
    name: 'pg-backup', namespace: 'ddb', endpointUrl: 'https://s3.example.net', bucket: 'pg',
    accessKeyId: { name: 's3', key: 'id' }, secretAccessKey: { name: 's3', key: 'secret' },
  });
  const cluster = new CnpgCluster(s.chart, 'Pg', { name: 'pg', namespace: 'ddb', walArchive: { objectStore: store } });
  const backup = new CnpgScheduledBackup(s.chart, 'Backup', { cluster });
  // WHEN
  const app = new DataSchemas(s.chart, 'DataSchemas', { project: s.project, repo: s.repo, clusters: [cluster], databases: [], scheduledBackups: [backup] });
  // THEN
  expect(app.objectStores).toEqual([store]);
  const docs = app.fileOfObjects().map(([obj, file]) => `${file}: ${obj.kind}/${obj.name}@${obj.toJson().metadata.annotations['argocd.argoproj.io/sync-wave']}`);
  expect(docs).toEqual(['data-schemas/pg.yaml: ObjectStore/pg-backup@0', 'data-schemas/pg.yaml: Cluster/pg@0', 'data-schemas/pg.yaml: ScheduledBackup/pg-backup@1']);
});

test('throws for a ScheduledBackup of a cluster it does not deliver', () => {
  const s = setup();
  const store = new BarmanObjectStore(s.chart, 'Store', {
    name: 'pg-backup', namespace: 'ddb', endpointUrl: 'https://s3.example.net', bucket: 'pg',
    accessKeyId: { name: 's3', key: 'id' }, secretAccessKey: { name: 's3', key: 'secret' },
  });
  const backup = new CnpgScheduledBackup(s.chart, 'Backup', { cluster: new CnpgCluster(s.chart, 'Pg', { name: 'pg', namespace: 'ddb', walArchive: { objectStore: store } }) });
  expect(() => new DataSchemas(s.chart, 'DataSchemas', { project: s.project, repo: s.repo, databases: [s.temporal], scheduledBackups: [backup] })).toThrow(
    'application \'data-schemas\': ScheduledBackup \'pg-backup\' backs up cluster \'pg\', which this Application does not deliver; pass the cluster ' +
    'in \'clusters\' or deliver the schedule with it.');
});
