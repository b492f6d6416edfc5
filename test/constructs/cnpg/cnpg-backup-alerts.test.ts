import { Chart, Duration, Testing } from 'cdk8s';
import { BarmanObjectStore } from '../../../lib/constructs/cnpg/barman-object-store';
import { CnpgBackupAlerts, CnpgBackupAlertsProps, prometheusDuration } from '../../../lib/constructs/cnpg/cnpg-backup-alerts';
import { CnpgCluster } from '../../../lib/constructs/cnpg/cnpg-cluster';
import { find } from '../../util';
import { problemsOfObjects } from '../../validation/util';

function cluster(chart: Chart, options: { walArchiving?: boolean; serverName?: string; archive?: boolean } = {}): CnpgCluster {
  const store = new BarmanObjectStore(chart, 'Store', {
    name: 'forgejo-db-backup', namespace: 'cicd', endpointUrl: 'https://s3.example.net', bucket: 'homelab-pg',
    accessKeyId: { name: 'backup-s3', key: 'ACCESS_KEY_ID' }, secretAccessKey: { name: 'backup-s3', key: 'ACCESS_SECRET_KEY' },
  });
  return new CnpgCluster(chart, 'Db', {
    name: 'forgejo-db', namespace: 'cicd',
    walArchive: options.archive === false ? undefined : { objectStore: store, walArchiving: options.walArchiving, serverName: options.serverName },
  });
}

const release = { release: 'prometheus' };

function rules(chart: Chart): Record<string, any> {
  const rule = find(Testing.synth(chart), 'PrometheusRule', 'forgejo-db-backup-alerts');
  return Object.fromEntries(rule.spec.groups[0].rules.map((r: any) => [r.alert, r]));
}

describe('CnpgBackupAlerts', () => {
  test('all props: the threshold is the schedule\'s longest gap plus the margin', () => {
    const chart = Testing.chart();
    const props: Required<CnpgBackupAlertsProps> = {
      cluster: cluster(chart), backupSchedule: '0 0 */6 * * *', selectorLabels: release, backupMargin: Duration.minutes(30), runbook: 'the wiki',
    };
    const alerts = new CnpgBackupAlerts(chart, 'Alerts', props);
    expect(alerts.backupAgeThresholdSeconds).toBe(6 * 3600 + 1800);
    const r = rules(chart);
    expect(r.CnpgBackupTooOld.expr).toContain('> 23400 and');
    expect(r.CnpgNoRecoverabilityPoint.for).toBe('390m');
    expect(r.CnpgBackupTooOld.annotations.description).toMatch(/see the wiki\.$/);
  });

  test('a daily schedule allows 26 h, the default margin being 2 h', () => {
    const chart = Testing.chart();
    const alerts = new CnpgBackupAlerts(chart, 'Alerts', { cluster: cluster(chart), backupSchedule: '0 0 3 * * *', selectorLabels: release });
    expect(alerts.backupMargin.toSeconds()).toBe(7200);
    expect(alerts.backupAgeThresholdSeconds).toBe(26 * 3600);
    expect(rules(chart).CnpgBackupTooOld.annotations.summary).toBe('CNPG cluster cicd/forgejo-db: the last base backup is older than 26h');
  });

  test('the expressions read CNPG\'s pg_stat_archiver and the plugin\'s metrics of this cluster only, by its cnpg_io_cluster label', () => {
    const chart = Testing.chart();
    new CnpgBackupAlerts(chart, 'Alerts', { cluster: cluster(chart), backupSchedule: '0 0 3 * * *', selectorLabels: release });
    const r = rules(chart);
    expect(Object.keys(r)).toEqual(['CnpgWalArchivingFailing', 'CnpgBackupTooOld', 'CnpgNoRecoverabilityPoint', 'CnpgBackupMetricsAbsent']);
    const sel = '{namespace="cicd", cnpg_io_cluster="forgejo-db"}';
    expect(r.CnpgWalArchivingFailing.expr).toBe(`max by (namespace, cnpg_io_cluster) (cnpg_pg_stat_archiver_last_failed_time${sel} > ` +
      `cnpg_pg_stat_archiver_last_archived_time${sel})`);
    expect(r.CnpgBackupTooOld.expr).toBe('time() - max by (namespace, cnpg_io_cluster) ' +
      `(barman_cloud_cloudnative_pg_io_last_available_backup_timestamp${sel}) > 93600 and max by (namespace, cnpg_io_cluster) ` +
      `(barman_cloud_cloudnative_pg_io_last_available_backup_timestamp${sel}) > 0`);
    expect(r.CnpgNoRecoverabilityPoint.expr).toBe(`max by (namespace, cnpg_io_cluster) (barman_cloud_cloudnative_pg_io_first_recoverability_point${sel}) == 0`);
    expect(r.CnpgBackupMetricsAbsent.expr).toBe(`absent(cnpg_collector_collections_total${sel})`);
    expect(Object.values(r).map((x: any) => x.labels.severity)).toEqual(['critical', 'warning', 'critical', 'warning']);
    for (const x of Object.values(r) as any[]) {
      expect(x.annotations.summary).toContain('cicd/forgejo-db');
      expect(x.annotations.description).toContain('README.md, "Alerts and restore drill"');
    }
  });

  test('the alerts name the server name the cluster archives under', () => {
    const chart = Testing.chart();
    new CnpgBackupAlerts(chart, 'Alerts', { cluster: cluster(chart, { serverName: 'forgejo-db-2' }), backupSchedule: '0 0 3 * * *', selectorLabels: release });
    expect(rules(chart).CnpgWalArchivingFailing.annotations.description).toContain("server name 'forgejo-db-2' in ObjectStore cicd/forgejo-db-backup");
  });

  test('no WAL archiving alert when the cluster keeps only base backups', () => {
    const chart = Testing.chart();
    new CnpgBackupAlerts(chart, 'Alerts', { cluster: cluster(chart, { walArchiving: false }), backupSchedule: '0 0 3 * * *', selectorLabels: release });
    expect(Object.keys(rules(chart))).toEqual(['CnpgBackupTooOld', 'CnpgNoRecoverabilityPoint', 'CnpgBackupMetricsAbsent']);
  });

  test('PodMonitor and PrometheusRule carry the labels the Prometheus selects; the PodMonitor selects what CNPG\'s own would', () => {
    const chart = Testing.chart();
    new CnpgBackupAlerts(chart, 'Alerts', { cluster: cluster(chart), backupSchedule: '0 0 3 * * *', selectorLabels: release });
    const manifests = Testing.synth(chart);
    const pm = find(manifests, 'PodMonitor', 'forgejo-db');
    const rule = find(manifests, 'PrometheusRule', 'forgejo-db-backup-alerts');
    expect(pm.metadata.labels.release).toBe('prometheus');
    expect(rule.metadata.labels.release).toBe('prometheus');
    expect(pm.metadata.namespace).toBe('cicd');
    expect(pm.spec).toEqual({
      selector: { matchLabels: { 'cnpg.io/cluster': 'forgejo-db', 'cnpg.io/podRole': 'instance' } },
      podMetricsEndpoints: [{ port: 'metrics' }],
      podTargetLabels: ['cnpg.io/cluster'],
    });
    // Both validate against the pinned prometheus-operator v0.93.1 CRDs.
    expect(problemsOfObjects(pm, rule)).toEqual([]);
  });

  test('throws for a cluster without walArchive', () => {
    const chart = Testing.chart();
    expect(() => new CnpgBackupAlerts(chart, 'Alerts', { cluster: cluster(chart, { archive: false }), backupSchedule: '0 0 3 * * *', selectorLabels: release }))
      .toThrow("Alerts: cluster 'forgejo-db' has no 'walArchive', so it has no backups to alert on. Give the cluster a walArchive, or drop its alerts.");
  });

  test('throws for a five-field schedule', () => {
    const chart = Testing.chart();
    expect(() => new CnpgBackupAlerts(chart, 'Alerts', { cluster: cluster(chart), backupSchedule: '0 3 * * *', selectorLabels: release }))
      .toThrow("Alerts: 'backupSchedule' '0 3 * * *' has 5 fields");
  });

  test('throws without selector labels: no Prometheus would read the rules', () => {
    const chart = Testing.chart();
    expect(() => new CnpgBackupAlerts(chart, 'Alerts', { cluster: cluster(chart), backupSchedule: '0 0 3 * * *', selectorLabels: {} }))
      .toThrow("Alerts: 'selectorLabels' is empty");
  });
});

test('prometheusDuration uses the largest unit that divides', () => {
  expect(prometheusDuration(93600)).toBe('26h');
  expect(prometheusDuration(5400)).toBe('90m');
  expect(prometheusDuration(61)).toBe('61s');
});
