import backupExample from '../../examples/backup.config';
import { REFERENCE_HOMELAB } from '../../lib/config/defaults';
import { HomelabConfig } from '../../lib/config/homelab-config';
import { renderOverview } from '../../lib/plan/render-overview';
import { renderPlanText } from '../../lib/plan/render-plan-text';
import { parsePlanText, planFor } from './util';

const backedUp = planFor(backupExample).plan.dataProtection;

/** The reference homelab without any backup: what the plan says about unprotected data. */
const withoutBackups: HomelabConfig = {
  ...REFERENCE_HOMELAB,
  postgresClusters: Object.fromEntries(Object.entries(REFERENCE_HOMELAB.postgresClusters)
    .map(([name, c]) => [name, { ...c, backup: undefined, restoreFrom: undefined }])),
};

describe('the data-protection plan', () => {
  it('lists every cluster with its archive, schedule, retention, RPO and credentials', () => {
    expect(backedUp.clusters.map((c) => c.cluster)).toEqual(['ddb-cluster', 'forgejo-db']);
    const forgejo = backedUp.clusters.find((c) => c.cluster === 'forgejo-db')!;
    expect(forgejo.deliveredBy).toMatch(/^Phase 0, step \d\d-postgres-forgejo-db\.yaml$/);
    expect(forgejo.backup).toEqual({
      // The restored cluster archives under the next name of its lineage.
      archive: 's3://homelab-pg-backups/cnpg/forgejo-db-2/',
      endpoint: 'https://s3.eu-central-1.example.net',
      serverName: 'forgejo-db-2',
      walArchiving: true,
      schedule: '0 0 3 * * *',
      retentionPolicy: '30d',
      rpo: 'about 5 minutes (WAL is archived at least every 5 minutes while anything is written), plus the upload',
      credentials: 'cicd/forgejo-db-backup-s3',
      inClusterOnly: false,
    });
    expect(forgejo.restore).toEqual({
      archive: 's3://homelab-pg-backups/cnpg/forgejo-db/',
      serverName: 'forgejo-db',
      target: 'to 2026-11-30T23:00:00Z',
    });
    const ddb = backedUp.clusters.find((c) => c.cluster === 'ddb-cluster')!;
    expect(ddb.deliveredBy).toMatch(/^Argo CD, Application data-schemas \(wave \d\)$/);
    expect(ddb.backup).toMatchObject({ archive: 's3://homelab-pg-backups/cnpg/ddb-cluster/', schedule: '0 30 3 * * *', retentionPolicy: '4w' });
    expect(ddb.restore).toBeUndefined();
    expect(backedUp.unprotected).toEqual([]);
  });

  it('says a cluster without WAL archiving loses everything since its last base backup', () => {
    const config: HomelabConfig = {
      ...backupExample,
      postgresClusters: {
        ...backupExample.postgresClusters,
        'ddb-cluster': { ...backupExample.postgresClusters['ddb-cluster'], backup: { ...backupExample.postgresClusters['ddb-cluster'].backup!, walArchiving: false } },
      },
    };
    const ddb = planFor(config).plan.dataProtection.clusters.find((c) => c.cluster === 'ddb-cluster')!;
    expect(ddb.backup?.rpo).toBe('everything since the last base backup (schedule \'0 30 3 * * *\'): WAL is not archived');
  });

  it('describes the restore point: a time, a base backup, or the end of the archive', () => {
    const restoring = (restoreFrom: object) => planFor({
      ...backupExample,
      postgresClusters: { ...backupExample.postgresClusters, 'forgejo-db': { ...backupExample.postgresClusters['forgejo-db'], restoreFrom: { serverName: 'forgejo-db', database: 'forgejo', owner: 'forgejo', ...restoreFrom } } },
    }).plan.dataProtection.clusters.find((c) => c.cluster === 'forgejo-db')!.restore!.target;
    expect(restoring({})).toBe('to the end of the archived WAL, from the latest base backup');
    expect(restoring({ backupID: '20261130T030000' })).toBe('from base backup 20261130T030000 to the end of the archived WAL');
    expect(restoring({ backupID: '20261130T030000', targetTime: '2026-11-30T23:00:00Z' })).toBe('to 2026-11-30T23:00:00Z, from base backup 20261130T030000');
  });

  it('names the clusters a rebuild would lose', () => {
    const plan = planFor(withoutBackups).plan.dataProtection;
    expect(plan.unprotected).toEqual(['ddb-cluster', 'forgejo-db']);
    expect(plan.clusters.every((c) => c.backup === undefined && c.restore === undefined)).toBe(true);
  });

  it('lists the keys a rebuild needs from the operator\'s machine, never their content', () => {
    const where = backedUp.offClusterKeys.map((k) => k.where);
    expect(where).toContain('~/.config/sops/age/keys.txt (or $SOPS_AGE_KEY_FILE)');
    expect(where).toContain('~/.ssh/argocd_seed (or $SEED_DEPLOY_KEY)');
    expect(backedUp.offClusterKeys.find((k) => k.where.startsWith('~/.config/sops'))!.what).toBe('Secret argocd/sops-age');
  });
});

describe('the data-protection plan, rendered', () => {
  it('is the last section of the terminal plan, every line within 80 columns', () => {
    const text = renderPlanText(planFor(backupExample).plan);
    const section = parsePlanText(text).sections.dataProtection.join('\n');
    expect(section).toContain('forgejo-db (namespace cicd; Phase 0, step');
    expect(section).toMatch(/archive +s3:\/\/homelab-pg-backups\/cnpg\/forgejo-db-2\/ at/);
    expect(section).toMatch(/restores +when created, from s3:\/\/homelab-pg-backups\/cnpg\/forgejo-db\/ to\s+2026-11-30T23:00:00Z/);
    expect(section).toMatch(/CNPG bootstraps a\s+Cluster\s+once/);
    expect(text.split('\n').every((l) => l.length <= 80)).toBe(true);
  });

  it('warns in the terminal and in dist/README.md when a cluster has no backups', () => {
    const { plan } = planFor(withoutBackups);
    expect(parsePlanText(renderPlanText(plan)).sections.dataProtection.join('\n')).toContain('no backups: a rebuild loses this cluster\'s data');
    const readme = renderOverview(plan);
    const table = readme.slice(readme.indexOf('## Data protection'));
    expect(table).toContain('| `forgejo-db`<br>namespace cicd; Phase 0, step');
    expect(table).toContain('**none**: a rebuild loses its data | everything | — (a new, empty cluster) |');
  });

  it('shows the archive, RPO and restore source in dist/README.md', () => {
    const readme = renderOverview(planFor(backupExample).plan);
    const table = readme.slice(readme.indexOf('## Data protection'));
    expect(table).toContain('`s3://homelab-pg-backups/cnpg/forgejo-db-2/` at `https://s3.eu-central-1.example.net`');
    expect(table).toContain('from `s3://homelab-pg-backups/cnpg/forgejo-db/` to 2026-11-30T23:00:00Z');
    expect(table).toContain('credentials: Secret `cicd/forgejo-db-backup-s3`');
  });
});
