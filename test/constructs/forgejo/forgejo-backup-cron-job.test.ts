import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { Duration, Testing } from 'cdk8s';
import {
  DUMP_SCRIPT, ForgejoBackupCronJob, ForgejoBackupCronJobProps, UPLOAD_SCRIPT,
} from '../../../lib/constructs/forgejo/forgejo-backup-cron-job';
import { IMAGES } from '../../../lib/shared/pins';
import { find } from '../../util';
import { findTool, testWith } from '../../tools';
import { makeForgejo, STORE } from './dump-fixture';

const SHELLCHECK = findTool('shellcheck');


const envOf = (c: any) => Object.fromEntries(c.env.map((e: any) => [e.name, e.value ?? e.valueFrom]));

describe('ForgejoBackupCronJob', () => {
  test('defaults: 02:00 daily, 30 days, never two at once', () => {
    // GIVEN
    const { chart, forgejo } = makeForgejo();

    // WHEN
    const backup = new ForgejoBackupCronJob(chart, 'Backup', { forgejo, store: STORE });

    // THEN
    expect([backup.name, backup.namespace, backup.schedule, backup.retentionDays]).toEqual(['forgejo-backup', 'cicd', '0 2 * * *', 30]);
    expect(backup.activeDeadline.toSeconds()).toBe(10800);
    expect(backup.remote).toBe('STORE:homelab-backups/homelab/forgejo');
    const cronJob = find(Testing.synth(chart), 'CronJob', 'forgejo-backup');
    expect(cronJob.spec).toMatchObject({ schedule: '0 2 * * *', concurrencyPolicy: 'Forbid', startingDeadlineSeconds: 3600 });
    expect(cronJob.spec.jobTemplate.spec).toMatchObject({ backoffLimit: 2, activeDeadlineSeconds: 10800 });
  });

  test('all props', () => {
    const { chart, forgejo } = makeForgejo();
    const props: Required<ForgejoBackupCronJobProps> = {
      forgejo, store: STORE, schedule: '15 4 * * 1-5', retentionDays: 7, activeDeadline: Duration.minutes(45), name: 'nightly-dump',
    };
    new ForgejoBackupCronJob(chart, 'Backup', props);
    const cronJob = find(Testing.synth(chart), 'CronJob', 'nightly-dump');
    expect(cronJob.spec.schedule).toBe('15 4 * * 1-5');
    expect(cronJob.spec.jobTemplate.spec.activeDeadlineSeconds).toBe(2700);
    expect(envOf(cronJob.spec.jobTemplate.spec.template.spec.containers[0]).RETENTION_DAYS).toBe('7');
  });

  test('runs on Forgejo\'s node with the data volume read-only, under the restricted profile', () => {
    const { chart, forgejo } = makeForgejo();
    new ForgejoBackupCronJob(chart, 'Backup', { forgejo, store: STORE });
    const pod = find(Testing.synth(chart), 'CronJob', 'forgejo-backup').spec.jobTemplate.spec.template.spec;
    const deployment = find(Testing.synth(chart), 'Deployment', 'forgejo');

    expect(pod.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution).toEqual([{
      labelSelector: { matchLabels: deployment.spec.selector.matchLabels },
      topologyKey: 'kubernetes.io/hostname',
    }]);
    expect(pod.volumes).toContainEqual({ name: 'data', persistentVolumeClaim: { claimName: 'forgejo-data', readOnly: true } });
    const [dump] = pod.initContainers;
    expect(dump.image).toBe(IMAGES.forgejo);
    expect(dump.volumeMounts).toContainEqual({ name: 'data', mountPath: '/var/lib/gitea', readOnly: true });
    expect(envOf(dump).APP_INI).toBe('/var/lib/gitea/custom/conf/app.ini');
    const [upload] = pod.containers;
    expect(upload.image).toBe(IMAGES.rclone);
    // Only the dump reads the data volume.
    expect(upload.volumeMounts.map((m: any) => m.name)).toEqual(['dump', 'tmp']);
    for (const c of [dump, upload]) {
      expect(c.securityContext).toEqual({ runAsNonRoot: true, runAsUser: 1000, runAsGroup: 1000, allowPrivilegeEscalation: false, privileged: false,
        readOnlyRootFilesystem: true, capabilities: { drop: ['ALL'] }, seccompProfile: { type: 'RuntimeDefault' } });
      expect(c.resources.limits.memory).toBeDefined();
    }
    expect(pod).toMatchObject({ restartPolicy: 'Never', automountServiceAccountToken: false, securityContext: { runAsNonRoot: true } });
    expect(pod.volumes).toContainEqual({ name: 'dump', emptyDir: { sizeLimit: '20Gi' } });
  });

  test('credentials reach rclone from the Secret only; no key is in a command or argument', () => {
    const { chart, forgejo } = makeForgejo();
    new ForgejoBackupCronJob(chart, 'Backup', { forgejo, store: { ...STORE, region: { name: 'forgejo-backup-s3', key: 'REGION' } } });
    const pod = find(Testing.synth(chart), 'CronJob', 'forgejo-backup').spec.jobTemplate.spec.template.spec;
    const env = envOf(pod.containers[0]);
    expect(env.RCLONE_CONFIG_STORE_ACCESS_KEY_ID).toEqual({ secretKeyRef: { name: 'forgejo-backup-s3', key: 'ACCESS_KEY_ID' } });
    expect(env.RCLONE_CONFIG_STORE_SECRET_ACCESS_KEY).toEqual({ secretKeyRef: { name: 'forgejo-backup-s3', key: 'ACCESS_SECRET_KEY' } });
    expect(env.RCLONE_CONFIG_STORE_REGION).toEqual({ secretKeyRef: { name: 'forgejo-backup-s3', key: 'REGION' } });
    expect(env).toMatchObject({ RCLONE_CONFIG_STORE_TYPE: 's3', RCLONE_CONFIG_STORE_PROVIDER: 'Other', RCLONE_CONFIG_STORE_NO_CHECK_BUCKET: 'true' });
    for (const c of [...pod.initContainers, ...pod.containers]) {
      expect(c.args).toBeUndefined();
      expect(c.command.join(' ')).not.toMatch(/ACCESS_KEY|SECRET_ACCESS|--s3-(access|secret)/);
    }
  });

  test('dumps with forgejo dump as tar.gz, without logs or archive caches, into the shared emptyDir', () => {
    expect(DUMP_SCRIPT).toContain('forgejo --config "$APP_INI" dump --quiet --type tar.gz \\\n  --skip-log --skip-repo-archives \\\n' +
      '  --tempdir "$TMPDIR" --file "$DUMP_DIR/$name"');
    expect(DUMP_SCRIPT).toContain('name="forgejo-dump-$(date -u +%Y%m%dT%H%M%SZ).tar.gz"');
  });

  test('the runbook checks the credential Secret exists before the step', () => {
    const { chart, forgejo } = makeForgejo();
    const backup = new ForgejoBackupCronJob(chart, 'Backup', { forgejo, store: STORE });
    expect(backup.bootstrapRequirements.preconditions).toEqual([expect.objectContaining({ kind: 'secret-exists', namespace: 'cicd', name: 'forgejo-backup-s3' })]);
    expect(backup.node.dependencies).toContain(forgejo);
  });

  test('a CA bundle in a Secret of its own is checked with a hint for a PEM file, and mounted for rclone', () => {
    const { chart, forgejo } = makeForgejo();
    const backup = new ForgejoBackupCronJob(chart, 'Backup', { forgejo, store: { ...STORE, endpointCa: { name: 's3-ca', key: 'ca.crt' } } });
    expect(backup.bootstrapRequirements.preconditions?.map((p) => p.kind === 'secret-exists' && [p.name, p.hint])).toEqual([
      ['forgejo-backup-s3', expect.stringContaining('--from-env-file=<file of KEY=value lines>')],
      ['s3-ca', 'Create Secret \'s3-ca\' in namespace \'cicd\' with key \'ca.crt\' (the CA bundle of https://s3.example.net, for Forgejo\'s ' +
        'backups): kubectl create secret generic s3-ca -n cicd --from-file=ca.crt=<PEM file>.'],
    ]);
    const pod = find(Testing.synth(chart), 'CronJob', 'forgejo-backup').spec.jobTemplate.spec.template.spec;
    expect(pod.containers[0].volumeMounts).toContainEqual({ name: 'store-ca', mountPath: '/etc/dump-store-ca/ca.crt', subPath: 'ca.crt', readOnly: true });
    expect(envOf(pod.containers[0]).RCLONE_CA_CERT).toBe('/etc/dump-store-ca/ca.crt');
  });

  test('throws for a six-field (CNPG) schedule, naming the five-field one', () => {
    const { chart, forgejo } = makeForgejo();
    expect(() => new ForgejoBackupCronJob(chart, 'Backup', { forgejo, store: STORE, schedule: '0 0 2 * * *' }))
      .toThrow('test/Backup: \'schedule\' \'0 0 2 * * *\' has 6 fields, like CNPG\'s ScheduledBackup (seconds first); a Kubernetes CronJob ' +
        'schedule has 5, minutes first: write \'0 2 * * *\'.');
  });

  test('throws for a retention that is not a whole number of days', () => {
    const { chart, forgejo } = makeForgejo();
    expect(() => new ForgejoBackupCronJob(chart, 'Backup', { forgejo, store: STORE, retentionDays: 0 }))
      .toThrow('test/Backup: \'retentionDays\' must be a whole number of at least 1, got 0.');
  });

  test('throws for a bucket folder with a leading slash', () => {
    const { chart, forgejo } = makeForgejo();
    expect(() => new ForgejoBackupCronJob(chart, 'Backup', { forgejo, store: { ...STORE, folder: '/forgejo' } }))
      .toThrow('test/Backup: \'store\': \'folder\' must be a folder without leading or trailing \'/\', such as \'homelab/forgejo\', got \'/forgejo\'.');
  });
});

testWith(SHELLCHECK)('the backup scripts are shellcheck-clean as POSIX sh', () => {
  for (const script of [DUMP_SCRIPT, UPLOAD_SCRIPT]) {
    const r = spawnSync(SHELLCHECK.command!, ['--shell=sh', '--severity=style', '-'], { input: script, encoding: 'utf8' });
    expect(r.stdout).toBe('');
    expect(r.status).toBe(0);
  }
});

describe('the upload script, against a fake rclone', () => {
  const FAKE_RCLONE = `#!/bin/sh
echo "$*" >> "$FAKE_DIR/rclone-argv"
[ "$1" = copyto ] && [ -n "\${FAIL_UPLOAD:-}" ] && exit 1
exit 0
`;
  function run(dumps: string[], env: Record<string, string> = {}) {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'forgejo-upload-'));
    for (const d of ['bin', 'dump']) fs.mkdirSync(path.join(dir, d));
    fs.writeFileSync(path.join(dir, 'bin', 'rclone'), FAKE_RCLONE, { mode: 0o755 });
    for (const d of dumps) fs.writeFileSync(path.join(dir, 'dump', d), 'dump');
    const r = spawnSync('sh', ['-c', UPLOAD_SCRIPT], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
      env: {
        PATH: `${path.join(dir, 'bin')}:${process.env.PATH}`, FAKE_DIR: dir, DUMP_DIR: path.join(dir, 'dump'),
        DUMP_GLOB: 'forgejo-dump-*.tar.gz', RETENTION_DAYS: '30', REMOTE: 'STORE:bucket/homelab/forgejo', ...env,
      },
    });
    const argv = fs.existsSync(path.join(dir, 'rclone-argv')) ? fs.readFileSync(path.join(dir, 'rclone-argv'), 'utf8') : '';
    return { ...r, argv };
  }

  test('uploads the dump, then prunes dumps older than the retention in that folder only', () => {
    const r = run(['forgejo-dump-20260102T020000Z.tar.gz']);
    expect(r.status).toBe(0);
    expect(r.argv).toBe('copyto forgejo-dump-20260102T020000Z.tar.gz STORE:bucket/homelab/forgejo/forgejo-dump-20260102T020000Z.tar.gz\n' +
      'delete STORE:bucket/homelab/forgejo --max-depth 1 --include forgejo-dump-*.tar.gz --min-age 30d --verbose\n');
  });

  test('prunes nothing when the upload fails', () => {
    const r = run(['forgejo-dump-20260102T020000Z.tar.gz'], { FAIL_UPLOAD: '1' });
    expect(r.status).toBe(1);
    expect(r.argv).not.toContain('delete');
  });

  test('fails without a dump to upload', () => {
    const r = run([]);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('expected one dump in');
    expect(r.argv).toBe('');
  });
});
