import YAML from 'yaml';
import backupExample from '../../examples/backup.config';
import { REFERENCE_HOMELAB } from '../../lib/config/defaults';
import { synthesizeHomelab } from '../../lib/synth/synthesize-homelab';
import ddbCluster from '../../examples/ddb-cluster.config';

function docs(content: string | undefined): any[] {
  if (content === undefined) throw new Error('no such file');
  return YAML.parseAllDocuments(content).map((d) => d.toJSON()).filter((d) => d);
}

describe('examples/backup.config.ts (synthesized here, never into dist/)', () => {
  // synthesizeHomelab validates every object against the pinned CRD schemas, or throws.
  const { tree, argocd } = synthesizeHomelab(backupExample);

  test('the Phase-0 forgejo-db is restored from server forgejo-db and archives under forgejo-db-2, in its bootstrap step', () => {
    const objects = docs(tree.get('bootstrap/06-postgres-forgejo-db.yaml'));
    expect(objects.map((o) => `${o.kind}/${o.metadata.name}`).slice(0, 3)).toEqual(['ObjectStore/forgejo-db-backup', 'Cluster/forgejo-db', 'ScheduledBackup/forgejo-db-backup']);
    const store = objects[0];
    expect(store.spec).toEqual({
      configuration: {
        destinationPath: 's3://homelab-pg-backups/cnpg/',
        endpointURL: 'https://s3.eu-central-1.example.net',
        s3Credentials: {
          accessKeyId: { name: 'forgejo-db-backup-s3', key: 'ACCESS_KEY_ID' },
          secretAccessKey: { name: 'forgejo-db-backup-s3', key: 'ACCESS_SECRET_KEY' },
        },
        wal: { compression: 'gzip' },
      },
      retentionPolicy: '30d',
    });
    const cluster = objects[1].spec;
    expect(cluster.bootstrap).toEqual({
      recovery: { source: 'forgejo-db', database: 'forgejo', owner: 'forgejo', recoveryTarget: { targetTime: '2026-11-30T23:00:00Z' } },
    });
    expect(cluster.externalClusters).toEqual([{
      name: 'forgejo-db',
      plugin: { name: 'barman-cloud.cloudnative-pg.io', enabled: true, isWALArchiver: false, parameters: { barmanObjectName: 'forgejo-db-backup', serverName: 'forgejo-db' } },
    }]);
    expect(cluster.plugins).toEqual([{
      name: 'barman-cloud.cloudnative-pg.io', enabled: true, isWALArchiver: true, parameters: { barmanObjectName: 'forgejo-db-backup', serverName: 'forgejo-db-2' },
    }]);
    expect(objects[2].spec).toEqual({
      cluster: { name: 'forgejo-db' }, schedule: '0 0 3 * * *', method: 'plugin',
      pluginConfiguration: { name: 'barman-cloud.cloudnative-pg.io' }, backupOwnerReference: 'self',
    });
  });

  test('the Argo CD-delivered ddb-cluster: ObjectStore, Cluster and ScheduledBackup in its data-schemas file, the Cluster kept on prune', () => {
    const objects = docs(tree.get('data-schemas/ddb-cluster.yaml'));
    expect(objects.map((o) => `${o.kind}/${o.metadata.name}@${o.metadata.annotations['argocd.argoproj.io/sync-wave']}`)).toEqual([
      'ObjectStore/ddb-cluster-backup@0', 'Cluster/ddb-cluster@0', 'ScheduledBackup/ddb-cluster-backup@1',
      'Database/authentik@1', 'Database/temporal@1', 'Database/temporal-visibility@1',
    ]);
    expect(objects[0].spec.retentionPolicy).toBe('4w');
    expect(objects[1].spec.bootstrap).toEqual({ initdb: { database: 'app', owner: 'app' } });
    expect(objects[1].spec.plugins[0].parameters).toEqual({ barmanObjectName: 'ddb-cluster-backup', serverName: 'ddb-cluster' });
    expect(objects[2].spec.schedule).toBe('0 30 3 * * *');
    expect(argocd.secretReferences).toContainEqual({
      namespace: 'ddb', name: 'ddb-cluster-backup-s3', keys: ['ACCESS_KEY_ID', 'ACCESS_SECRET_KEY'], usedBy: 'ObjectStore ddb-cluster-backup',
    });
  });
});

describe('backups are on in the reference homelab and the ddb example, through the plugin Phase 0 installs', () => {
  test.each([['the reference homelab', REFERENCE_HOMELAB, ['forgejo-db', 'ddb-cluster']], ['the ddb-cluster example', ddbCluster, ['ddb-cluster']]])(
    '%s: every cluster archives to the off-site store; the plugin step comes after the CNPG operator and before the Phase-0 cluster',
    (_, config, clusters) => {
      const { tree, bootstrap } = synthesizeHomelab(config);
      const all = [...tree.entries()].filter(([p]) => p.endsWith('.yaml')).flatMap(([, t]) => docs(t));
      const stores = all.filter((o) => o.kind === 'ObjectStore');
      // Each cluster's own store, and the copy its restore drill reads (in the drill's namespace, without retention).
      expect(stores.map((o) => o.metadata.name).sort()).toEqual(clusters.flatMap((c) => [`${c}-backup`, `${c}-drill-source`]).sort());
      for (const store of stores) expect(store.spec.configuration.endpointURL).toBe('https://s3.example.net');
      for (const c of clusters) {
        const cluster = all.find((o) => o.kind === 'Cluster' && o.metadata.name === c);
        expect(cluster.spec.plugins).toEqual([expect.objectContaining({ name: 'barman-cloud.cloudnative-pg.io', isWALArchiver: true })]);
        expect(all.some((o) => o.kind === 'ScheduledBackup' && o.spec.cluster.name === c)).toBe(true);
      }
      const order = bootstrap.steps.map((st) => st.stepName);
      const files = [...tree.keys()].filter((p) => p.startsWith('bootstrap/') && /^bootstrap\/\d+-/.test(p)).map((p) => p.split('/')[1]);
      const number = (stepName: string) => Number(files.find((f) => f.replace(/\.yaml$/, '').slice(3) === stepName)!.slice(0, 2));
      expect(order).toContain('barman-cloud-plugin');
      expect(number('barman-cloud-plugin')).toBe(number('cnpg-operator') + 1);
      const phase0 = bootstrap.steps.filter((st) => st.stepName.startsWith('postgres-'));
      expect(phase0.length).toBeGreaterThan(0);
      for (const st of phase0) {
        expect(number(st.stepName)).toBeGreaterThan(number('barman-cloud-plugin'));
        expect(st.dependencies.map((d) => [d.step.stepName, d.reason])).toContainEqual(['barman-cloud-plugin',
          expect.stringMatching(/^a Cluster naming an unregistered plugin stops reconciling/)]);
      }
    });
});
