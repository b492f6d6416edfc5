import { Testing } from 'cdk8s';
import { CnpgCluster } from '../../../lib/constructs/cnpg/cnpg-cluster';
import { CnpgDatabase } from '../../../lib/constructs/cnpg/cnpg-database';
import { find } from '../../util';

describe('CnpgDatabase', () => {
  test('derives the Kubernetes name and lives in the cluster namespace, after the cluster', () => {
    const chart = Testing.chart();
    const cluster = new CnpgCluster(chart, 'Db', { name: 'ddb-cluster', namespace: 'ddb', managedRoles: ['temporal'] });
    const db = new CnpgDatabase(chart, 'Vis', { cluster, pgName: 'temporal_visibility', owner: 'temporal' });
    expect(db.name).toBe('temporal-visibility');
    expect(db.reclaimPolicy).toBe('retain');
    const manifests = Testing.synth(chart);
    const json = find(manifests, 'Database', 'temporal-visibility');
    expect(json.metadata.namespace).toBe('ddb');
    expect(json.spec).toEqual({
      name: 'temporal_visibility', owner: 'temporal', cluster: { name: 'ddb-cluster' }, databaseReclaimPolicy: 'retain',
    });
    expect(manifests.indexOf(json)).toBeGreaterThan(manifests.findIndex((m) => m.kind === 'Cluster'));
  });

  test('throws when the owner is not a role of the cluster', () => {
    const chart = Testing.chart();
    const cluster = new CnpgCluster(chart, 'Db', { name: 'ddb-cluster', namespace: 'ddb' });
    expect(() => new CnpgDatabase(chart, 'T', { cluster, pgName: 'temporal', owner: 'temporal' })).toThrow(
      'test/T: \'owner\' (\'temporal\') is not a role of cluster \'ddb-cluster\' (roles: app). CNPG never creates the owner, ' +
      'so the database would never be applied. Add \'temporal\' to the cluster\'s \'managedRoles\', or choose one of its roles.');
  });
});
