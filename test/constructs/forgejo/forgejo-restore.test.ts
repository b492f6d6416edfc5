import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { Chart, Testing } from 'cdk8s';
import { ForgejoRestore, ForgejoRestoreProps, RESTORE_SCRIPT } from '../../../lib/constructs/forgejo/forgejo-restore';
import { IMAGES } from '../../../lib/shared/pins';
import { find } from '../../util';
import { findTool, testWith } from '../../tools';
import { makeForgejo, STORE } from './dump-fixture';

const SHELLCHECK = findTool('shellcheck');
const BUSYBOX = findTool('busybox', ['busybox'], '--help');


const podOf = (chart: Chart) => find(Testing.synth(chart), 'Deployment', 'forgejo').spec.template.spec;

describe('ForgejoRestore', () => {
  test('defaults: the latest dump, restored by the first init container of Forgejo\'s pod', () => {
    // GIVEN
    const { chart, forgejo } = makeForgejo();

    // WHEN
    const restore = new ForgejoRestore(chart, 'Restore', { forgejo, store: STORE });

    // THEN
    expect(restore.dump).toBe('latest');
    expect(restore.remote).toBe('STORE:homelab-backups/homelab/forgejo');
    const pod = podOf(chart);
    expect(pod.initContainers.map((c: any) => c.name)).toEqual(['restore-data']);
    const init = pod.initContainers[0];
    expect(init.image).toBe(IMAGES.rclone);
    expect(init.command).toEqual(['/bin/sh', '-c', RESTORE_SCRIPT]);
    // It writes the data volume that Forgejo then mounts, as Forgejo's uid, under the restricted profile.
    expect(init.volumeMounts).toEqual(expect.arrayContaining([{ mountPath: '/var/lib/gitea', name: 'data' }, { mountPath: '/tmp', name: 'tmp' }]));
    expect(init.securityContext).toMatchObject({ runAsUser: 1000, runAsGroup: 1000, runAsNonRoot: true, allowPrivilegeEscalation: false,
      readOnlyRootFilesystem: true, capabilities: { drop: ['ALL'] } });
    expect(pod.containers.map((c: any) => c.name)).toEqual(['forgejo']);
  });

  test('credentials come from the Secret by optional reference, never as values or arguments', () => {
    const { chart, forgejo } = makeForgejo();
    new ForgejoRestore(chart, 'Restore', { forgejo, store: STORE, dump: 'forgejo-dump-20260115T020000Z.tar.gz' });
    const init = podOf(chart).initContainers[0];
    const env = Object.fromEntries(init.env.map((e: any) => [e.name, e.value ?? e.valueFrom]));
    expect(env.RCLONE_CONFIG_STORE_ACCESS_KEY_ID).toEqual({ secretKeyRef: { name: 'forgejo-backup-s3', key: 'ACCESS_KEY_ID', optional: true } });
    expect(env.RCLONE_CONFIG_STORE_SECRET_ACCESS_KEY).toEqual({ secretKeyRef: { name: 'forgejo-backup-s3', key: 'ACCESS_SECRET_KEY', optional: true } });
    expect(env).toMatchObject({ RCLONE_CONFIG_STORE_TYPE: 's3', RCLONE_CONFIG_STORE_ENDPOINT: 'https://s3.example.net',
      REMOTE: 'STORE:homelab-backups/homelab/forgejo', DUMP: 'forgejo-dump-20260115T020000Z.tar.gz', DATA_DIR: '/var/lib/gitea' });
    expect(JSON.stringify(init.command)).not.toMatch(/ACCESS_KEY|SECRET_ACCESS/);
  });

  test('the runbook checks the credential Secret before the step, with a hint that puts no key on a command line', () => {
    const { chart, forgejo } = makeForgejo();
    const restore = new ForgejoRestore(chart, 'Restore', { forgejo, store: STORE });
    expect(restore.bootstrapRequirements.preconditions).toEqual([{
      kind: 'secret-exists', namespace: 'cicd', name: 'forgejo-backup-s3',
      hint: 'Create Secret \'forgejo-backup-s3\' in namespace \'cicd\' with keys \'ACCESS_KEY_ID\', \'ACCESS_SECRET_KEY\' (the S3 credentials of ' +
        'Forgejo\'s restore: https://s3.example.net, bucket \'homelab-backups\'), from a file that is never committed: ' +
        'kubectl create secret generic forgejo-backup-s3 -n cicd --from-env-file=<file of KEY=value lines>.',
    }]);
  });

  test('a CA bundle is mounted from its Secret and named to rclone', () => {
    const { chart, forgejo } = makeForgejo();
    new ForgejoRestore(chart, 'Restore', { forgejo, store: { ...STORE, endpointCa: { name: 's3-ca', key: 'ca.pem' } } });
    const pod = podOf(chart);
    const init = pod.initContainers[0];
    expect(init.env).toContainEqual({ name: 'RCLONE_CA_CERT', value: '/etc/dump-store-ca/ca.crt' });
    expect(init.volumeMounts).toContainEqual({ mountPath: '/etc/dump-store-ca/ca.crt', name: 'restore-store-ca', subPath: 'ca.crt', readOnly: true });
    expect(pod.volumes).toContainEqual({ name: 'restore-store-ca', secret: { secretName: 's3-ca', items: [{ key: 'ca.pem', path: 'ca.crt' }] } });
  });

  test('throws for a dump name this project never writes', () => {
    const { chart, forgejo } = makeForgejo();
    expect(() => new ForgejoRestore(chart, 'Restore', { forgejo, store: STORE, dump: 'backup.zip' }))
      .toThrow('test/Restore: \'dump\' \'backup.zip\' is not a Forgejo dump of this project: write \'latest\' or a file name such as ' +
        '\'forgejo-dump-20260115T020000Z.tar.gz\' (list them with `rclone lsf` or your S3 console).');
  });

  test('throws for an endpoint with credentials, without repeating them', () => {
    const { chart, forgejo } = makeForgejo();
    const props: Required<ForgejoRestoreProps> = { forgejo, store: { ...STORE, endpointUrl: 'https://AKIA:hunter2@s3.example.net' }, dump: 'latest' };
    expect(() => new ForgejoRestore(chart, 'Restore', props)).toThrow('test/Restore: \'store\': \'endpointUrl\' contains credentials in a https:// URL ' +
      '(the part before \'@\'); put the keys in the Secret that \'accessKeyId\' and \'secretAccessKey\' name.');
    expect(() => new ForgejoRestore(chart, 'Restore2', props)).not.toThrow(/hunter2/);
  });
});

testWith(SHELLCHECK)('the restore script is shellcheck-clean as POSIX sh', () => {
  const r = spawnSync(SHELLCHECK.command!, ['--shell=sh', '--severity=style', '-'], { input: RESTORE_SCRIPT, encoding: 'utf8' });
  expect(r.stdout).toBe('');
  expect(r.status).toBe(0);
});

/**
 * The restore script run for real against a temporary data volume, with a fake `rclone` on PATH that serves a folder
 * of real `.tar.gz` dumps laid out as `forgejo dump` lays them out, and records its arguments. `tar` is the shell's.
 */
describe.each([
  ['bash', undefined],
  ['busybox sh (the rclone image\'s Alpine shell and tar)', BUSYBOX],
])('the restore script, under %s', (_label, busybox) => {
  const maybe = busybox === undefined ? test : testWith(busybox);
  const FAKE_RCLONE = `#!/bin/sh
echo "$*" >> "$FAKE_DIR/rclone-argv"
case "$1" in
  lsf) ls "$FAKE_DIR/store" ;;
  cat) cat "$FAKE_DIR/store/\${2##*/}" ;;
  *) exit 2 ;;
esac
`;

  /** A dump as forgejo cmd/dump.go lays it out: repos/, data/{lfs,attachments,packages}, the rest of APP_DATA_PATH under data/. */
  function makeDump(dir: string, name: string, marker: string) {
    const src = fs.mkdtempSync(path.join(os.tmpdir(), 'dump-src-'));
    const files: Record<string, string> = {
      'app.ini': '[database]\nPASSWD = old\n',
      'forgejo-db.sql': 'CREATE TABLE repository ();\n',
      'repos/acme/homelab.git/HEAD': `ref: refs/heads/main ${marker}\n`,
      'data/lfs/ab/cd/abcdef': 'lfs object\n',
      'data/attachments/1/2/12345': 'attachment\n',
      'data/packages/ef/01/ef01': 'package blob\n',
      'data/custom/conf/app.ini': '[security]\nINTERNAL_TOKEN = keep\n',
      'data/ssh/gitea.rsa': 'host key\n',
      'data/data/avatars/1': 'avatar\n',
      'data/git/.gitconfig': '[user]\n',
      'data/lost+found/.keep': '',
    };
    for (const [f, content] of Object.entries(files)) {
      fs.mkdirSync(path.dirname(path.join(src, f)), { recursive: true });
      fs.writeFileSync(path.join(src, f), content);
    }
    const r = spawnSync('tar', ['-czf', path.join(dir, 'store', name), '-C', src, '.'], { encoding: 'utf8' });
    expect(r.status).toBe(0);
  }

  function setUp(dumps: Record<string, string>) {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'forgejo-restore-'));
    for (const d of ['bin', 'store', 'data']) fs.mkdirSync(path.join(dir, d));
    fs.writeFileSync(path.join(dir, 'bin', 'rclone'), FAKE_RCLONE, { mode: 0o755 });
    for (const [name, marker] of Object.entries(dumps)) makeDump(dir, name, marker);
    return dir;
  }

  function run(dir: string, dump = 'latest') {
    // An absolute path: PATH below holds only the fake rclone and the applets.
    const box = busybox?.command ? spawnSync('sh', ['-c', `command -v ${busybox.command}`], { encoding: 'utf8' }).stdout.trim() : undefined;
    const shell = box ? [box, 'sh'] : ['bash'];
    const bin = path.join(dir, 'bin');
    if (box) {
      // Only BusyBox's applets (and the fake rclone): the same sh, tar, ls, mv and sort as the Alpine image.
      for (const applet of ['tar', 'ls', 'mv', 'rm', 'mkdir', 'sort', 'tail', 'cat', 'touch', 'dirname', 'gzip']) {
        const link = path.join(bin, applet);
        if (!fs.existsSync(link)) fs.symlinkSync(box, link);
      }
    }
    const result = spawnSync(shell[0], [...shell.slice(1), '-c', RESTORE_SCRIPT], {
      encoding: 'utf8',
      // No stdin: Debian's bash reads ~/.bashrc when stdin is a socket, as Node's pipes are.
      stdio: ['ignore', 'pipe', 'pipe'],
      env: {
        PATH: box ? bin : `${bin}:${process.env.PATH}`,
        FAKE_DIR: dir, DATA_DIR: path.join(dir, 'data'), DUMP: dump, DUMP_GLOB: 'forgejo-dump-*.tar.gz', REMOTE: 'STORE:bucket/homelab/forgejo',
      },
    });
    const read = (f: string) => fs.readFileSync(path.join(dir, 'data', f), 'utf8');
    const exists = (f: string) => fs.existsSync(path.join(dir, 'data', f));
    const argv = () => (fs.existsSync(path.join(dir, 'rclone-argv')) ? fs.readFileSync(path.join(dir, 'rclone-argv'), 'utf8') : '');
    return { ...result, read, exists, argv };
  }

  maybe('an empty volume is restored from the latest dump, each part where the rootless image reads it', () => {
    // GIVEN
    const dir = setUp({ 'forgejo-dump-20260101T020000Z.tar.gz': 'old', 'forgejo-dump-20260102T020000Z.tar.gz': 'newest' });
    fs.mkdirSync(path.join(dir, 'data', 'lost+found'));

    // WHEN
    const r = run(dir);

    // THEN
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('restoring forgejo-dump-20260102T020000Z.tar.gz from STORE:bucket/homelab/forgejo');
    expect(r.read('git/repositories/acme/homelab.git/HEAD')).toContain('newest');
    expect(r.read('git/lfs/ab/cd/abcdef')).toBe('lfs object\n');
    expect(r.read('data/attachments/1/2/12345')).toBe('attachment\n');
    expect(r.read('packages/ef/01/ef01')).toBe('package blob\n');
    expect(r.read('custom/conf/app.ini')).toContain('INTERNAL_TOKEN = keep');
    expect(r.read('ssh/gitea.rsa')).toBe('host key\n');
    expect(r.read('data/avatars/1')).toBe('avatar\n');
    expect(r.read('git/.gitconfig')).toBe('[user]\n');
    // The database comes from CNPG; the top-level app.ini copy is not Forgejo's config path.
    expect(r.exists('forgejo-db.sql')).toBe(false);
    expect(r.exists('app.ini')).toBe(false);
    expect(r.exists('lost+found/.keep')).toBe(false);
    expect(r.exists('.forgejo-restore')).toBe(false);
    expect(r.exists('.forgejo-restore-incomplete')).toBe(false);
    expect(r.argv()).toBe('lsf --files-only --max-depth 1 --include forgejo-dump-*.tar.gz STORE:bucket/homelab/forgejo\n' +
      'cat STORE:bucket/homelab/forgejo/forgejo-dump-20260102T020000Z.tar.gz\n');
  });

  maybe('a named dump is restored without listing the folder', () => {
    const dir = setUp({ 'forgejo-dump-20260101T020000Z.tar.gz': 'chosen', 'forgejo-dump-20260102T020000Z.tar.gz': 'newest' });
    const r = run(dir, 'forgejo-dump-20260101T020000Z.tar.gz');
    expect(r.status).toBe(0);
    expect(r.read('git/repositories/acme/homelab.git/HEAD')).toContain('chosen');
    expect(r.argv()).toBe('cat STORE:bucket/homelab/forgejo/forgejo-dump-20260101T020000Z.tar.gz\n');
  });

  for (const [what, file] of [
    ['a repository', 'git/repositories/someone/own.git/HEAD'],
    ['an LFS object', 'git/lfs/00/00/0000'],
    ['an attachment', 'data/attachments/9/9/999'],
    ['a package', 'packages/00/00/0000'],
  ]) maybe(`a volume holding ${what} is skipped and left untouched`, () => {
    // GIVEN
    const dir = setUp({ 'forgejo-dump-20260102T020000Z.tar.gz': 'newest' });
    fs.mkdirSync(path.dirname(path.join(dir, 'data', file)), { recursive: true });
    fs.writeFileSync(path.join(dir, 'data', file), 'live data\n');
    const before = spawnSync('ls', ['-laR', path.join(dir, 'data')], { encoding: 'utf8' }).stdout;

    // WHEN
    const r = run(dir);

    // THEN
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/restore skipped: .* is not empty; a restore never overwrites data on the volume/);
    expect(r.read(file)).toBe('live data\n');
    expect(spawnSync('ls', ['-laR', path.join(dir, 'data')], { encoding: 'utf8' }).stdout).toBe(before);
    expect(r.argv()).toBe('');
  });

  maybe('a restore that did not finish is removed and done again', () => {
    // GIVEN: a marker and half of an earlier restore
    const dir = setUp({ 'forgejo-dump-20260102T020000Z.tar.gz': 'newest' });
    fs.writeFileSync(path.join(dir, 'data', '.forgejo-restore-incomplete'), '');
    fs.mkdirSync(path.join(dir, 'data', 'git', 'lfs', 'half'), { recursive: true });
    fs.writeFileSync(path.join(dir, 'data', 'git', 'lfs', 'half', 'partial'), 'x');
    fs.mkdirSync(path.join(dir, 'data', '.forgejo-restore', 'repos'), { recursive: true });

    // WHEN
    const r = run(dir);

    // THEN
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('an earlier restore did not finish; removing what it unpacked');
    expect(r.exists('git/lfs/half/partial')).toBe(false);
    expect(r.read('git/repositories/acme/homelab.git/HEAD')).toContain('newest');
    expect(r.exists('.forgejo-restore-incomplete')).toBe(false);
  });

  maybe('fails, restoring nothing, when the folder holds no dump', () => {
    const dir = setUp({});
    const r = run(dir);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('no dump named forgejo-dump-*.tar.gz in STORE:bucket/homelab/forgejo to restore');
    expect(fs.readdirSync(path.join(dir, 'data'))).toEqual([]);
  });

  maybe('fails, leaving the marker for the next try, when the download breaks', () => {
    const dir = setUp({});
    fs.writeFileSync(path.join(dir, 'store', 'forgejo-dump-20260102T020000Z.tar.gz'), 'not gzip');
    const r = run(dir);
    expect(r.status).not.toBe(0);
    expect(r.exists('.forgejo-restore-incomplete')).toBe(true);
    expect(r.exists('git/repositories')).toBe(false);
  });
});
