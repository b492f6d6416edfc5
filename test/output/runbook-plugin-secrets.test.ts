import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { Testing } from 'cdk8s';
import { BootstrapStep } from '../../lib/constructs/bootstrap/bootstrap-step';
import { BarmanCloudPlugin } from '../../lib/constructs/cnpg/barman-cloud-plugin';
import { planSteps } from '../../lib/output/render-steps';
import { RunbookSandbox, RunResult, stubManifests, writeRunbook } from '../fixtures/runbook-fixture';
import { BARMAN_CLOUD_PLUGIN_MANIFEST_URL } from '../../lib/shared/pins';
import { findTool, testWith } from '../tools';

const OPENSSL = findTool('openssl', ['openssl'], 'version');
const withOpenssl = testWith(OPENSSL);
const YES = ['--yes'];

/**
 * A kubectl that keeps the TLS and credential Secrets the runbook applies in a folder ($FAKE_SECRETS) and hands every
 * other call to the recording kubectl of the other runbook tests. `create secret ... --dry-run=client -o yaml` copies
 * the files it is given (and the mode of the folder that holds them) and prints a stand-in manifest without their
 * content; `get secret NAME -o jsonpath={.data.tls\.crt}` answers from the folder, or NotFound.
 */
const SECRET_KUBECTL = `#!/bin/sh
set -eu
args="$*"
case "$1" in --request-timeout=*) shift ;; esac
if [ "$1" = get ] && [ "$2" = secret ] && [ -n "\${FAKE_SECRETS:-}" ]; then
  printf '%s\\n' "$args" >>"$KUBECTL_LOG"
  if [ -f "$FAKE_SECRETS/$3/tls.crt" ]; then base64 -w0 <"$FAKE_SECRETS/$3/tls.crt"; exit 0; fi
  echo "Error from server (NotFound): secrets \\"$3\\" not found" >&2
  exit 1
fi
if [ "$1" = create ] && [ "$2" = secret ]; then
  printf '%s\\n' "$args" >>"$KUBECTL_LOG"
  name="$4"
  mkdir -p "$FAKE_SECRETS/$name"
  for arg in "$@"; do
    case "$arg" in
      --from-file=*=*) file="\${arg#*=*=}"; key="\${arg#--from-file=}"; key="\${key%%=*}"
        cp "$file" "$FAKE_SECRETS/$name/$key"; stat -c %a "$(dirname "$file")" >"$FAKE_SECRETS/$name/folder-mode" ;;
      --from-env-file=*) cp "\${arg#--from-env-file=}" "$FAKE_SECRETS/$name/env" ;;
      --type=*) echo "\${arg#--type=}" >"$FAKE_SECRETS/$name/type" ;;
    esac
  done
  printf 'apiVersion: v1\\nkind: Secret\\nmetadata:\\n  name: %s\\n' "$name"
  exit 0
fi
if [ "$1" = apply ] && [ "$*" != "\${*%-f -}" ]; then
  printf '%s\\n' "$args" >>"$KUBECTL_LOG"
  cat >>"$KUBECTL_LOG.applied"
  echo "secret serverside-applied"
  exit 0
fi
exec "$RECORDING_KUBECTL" "$@"
`;

/** A plugin step (its TLS Secrets) and a database step that reads object-store credentials from a local env file. */
function pluginSandbox(): RunbookSandbox {
  const app = Testing.app();
  const plugin = new BootstrapStep(app, 'Plugin', { stepName: 'barman-cloud-plugin', summary: 'the plugin' });
  plugin.addComponent(new BarmanCloudPlugin(plugin, 'Plugin'));
  const db = new BootstrapStep(app, 'Db', { stepName: 'postgres-db', summary: 'a cluster that archives' });
  db.addPrecondition({
    kind: 'secret-from-env-file', namespace: 'cicd', name: 'homelab-backup-s3', variable: 'HOMELAB_BACKUP_S3_ENV_FILE',
    defaultPath: '~/.config/homelab/homelab-backup-s3.env', format: 'env-file', envKeys: ['ACCESS_KEY_ID', 'ACCESS_SECRET_KEY'],
    hint: 'Save the keys in ~/.config/homelab/homelab-backup-s3.env',
  });
  db.dependsOn(plugin, 'the Cluster names the plugin');
  const manifests = stubManifests([BARMAN_CLOUD_PLUGIN_MANIFEST_URL]);
  const box = new RunbookSandbox(writeRunbook(planSteps([plugin, db]), { minKubectlVersion: '1.29', manifestSha256: manifests.pins }));
  box.serve(manifests.files);
  const bin = path.join(path.dirname(box.dir), 'bin');
  fs.renameSync(path.join(bin, 'kubectl'), path.join(bin, 'recording-kubectl'));
  fs.writeFileSync(path.join(bin, 'kubectl'), SECRET_KUBECTL, { mode: 0o755 });
  return box;
}

const ACCESS_KEY = 'AKIAFAKEACCESSKEY0001';
const SECRET_KEY = 'fake/secret+access/key0000000000000000001';

function env(box: RunbookSandbox, secrets: string): Record<string, string> {
  return { FAKE_SECRETS: secrets, RECORDING_KUBECTL: path.join(path.dirname(box.dir), 'bin', 'recording-kubectl') };
}

/** A self-signed certificate valid for `days`, written as `<secrets>/<name>/tls.crt`, as a Secret the cluster holds. */
function existingCertificate(secrets: string, name: string, days: number): string {
  const dir = path.join(secrets, name);
  fs.mkdirSync(dir, { recursive: true });
  const r = spawnSync(OPENSSL.command!, ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', String(days), '-subj', `/CN=${name}`,
    '-keyout', path.join(dir, 'tls.key'), '-out', path.join(dir, 'tls.crt')], { encoding: 'utf8' });
  expect(r.status).toBe(0);
  return fs.readFileSync(path.join(dir, 'tls.crt'), 'utf8');
}

function x509(file: string, ...args: string[]): string {
  return spawnSync(OPENSSL.command!, ['x509', '-in', file, '-noout', ...args], { encoding: 'utf8' }).stdout;
}

function noKeyMaterial(r: RunResult, secrets: string): void {
  const output = r.stdout + r.stderr;
  expect(output).not.toMatch(/PRIVATE KEY|BEGIN CERTIFICATE/);
  for (const name of fs.readdirSync(secrets)) {
    const key = path.join(secrets, name, 'tls.key');
    if (!fs.existsSync(key)) continue;
    const body = fs.readFileSync(key, 'utf8').split('\n').filter((l) => l !== '' && !l.startsWith('-----'));
    for (const line of body) expect(output).not.toContain(line);
  }
  expect(output).not.toContain(ACCESS_KEY);
  expect(output).not.toContain(SECRET_KEY);
}

describe('bootstrap.sh: the Barman Cloud plugin\'s TLS Secrets and the object-store credentials', () => {
  let box: RunbookSandbox;
  let secrets: string;
  beforeEach(() => {
    box = pluginSandbox();
    secrets = path.join(path.dirname(box.dir), 'secrets');
    fs.mkdirSync(secrets);
    box.writeHomeFile('.config/homelab/homelab-backup-s3.env', `# off-site store\nACCESS_KEY_ID=${ACCESS_KEY}\nACCESS_SECRET_KEY=${SECRET_KEY}\n`);
  });

  withOpenssl('creates both TLS Secrets when they are missing: self-signed, as cert-manager would, the key never shown', () => {
    // WHEN
    const r = box.run(YES, env(box, secrets));

    // THEN
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('made TLS Secret cnpg-system/barman-cloud-server-tls (self-signed server certificate, CN barman-cloud), ' +
      'valid 730 days (it did not exist)');
    expect(r.stdout).toContain('made TLS Secret cnpg-system/barman-cloud-client-tls (self-signed client certificate, CN barman-cloud-client)');
    const server = path.join(secrets, 'barman-cloud-server-tls');
    expect(fs.readFileSync(path.join(server, 'type'), 'utf8').trim()).toBe('kubernetes.io/tls');
    // ca.crt is the certificate itself (cert-manager's selfSigned issuer); CNPG trusts the server's tls.crt.
    expect(fs.readFileSync(path.join(server, 'ca.crt'), 'utf8')).toBe(fs.readFileSync(path.join(server, 'tls.crt'), 'utf8'));
    expect(x509(path.join(server, 'tls.crt'), '-subject')).toMatch(/CN ?= ?barman-cloud$/m);
    const serverText = x509(path.join(server, 'tls.crt'), '-text');
    expect(serverText).toContain('DNS:barman-cloud');
    expect(serverText).toContain('TLS Web Server Authentication');
    expect(serverText).toMatch(/CA:FALSE/);
    const client = path.join(secrets, 'barman-cloud-client-tls');
    expect(x509(path.join(client, 'tls.crt'), '-text')).toContain('TLS Web Client Authentication');
    // valid for 730 days: not expiring within 729, expiring within 731
    expect(spawnSync(OPENSSL.command!, ['x509', '-in', path.join(client, 'tls.crt'), '-noout', '-checkend', String(729 * 86400)]).status).toBe(0);
    expect(spawnSync(OPENSSL.command!, ['x509', '-in', path.join(client, 'tls.crt'), '-noout', '-checkend', String(731 * 86400)]).status).toBe(1);
    // the key matches the certificate
    const pub = (args: string[]) => spawnSync(OPENSSL.command!, args, { encoding: 'utf8' }).stdout;
    expect(pub(['pkey', '-in', path.join(server, 'tls.key'), '-pubout'])).toBe(pub(['x509', '-in', path.join(server, 'tls.crt'), '-noout', '-pubkey']));
    // made in a folder only the user can read, removed afterwards
    expect(fs.readFileSync(path.join(server, 'folder-mode'), 'utf8').trim()).toBe('700');
    expect(fs.readdirSync(path.dirname(box.dir)).filter((f) => f.startsWith('tmp.'))).toEqual([]);
    noKeyMaterial(r, secrets);
    // applied server-side by the plugin step's field manager, before the step's kustomization
    const calls = r.calls.filter((c) => /secret|apply/.test(c));
    expect(calls.indexOf('apply --server-side --force-conflicts --field-manager=homelab-bootstrap-barman-cloud-plugin -f -'))
      .toBeLessThan(calls.findIndex((c) => c.endsWith('-k <staging>/01-barman-cloud-plugin')));
  });

  withOpenssl('keeps a TLS Secret whose certificate is valid for more than 30 more days', () => {
    // GIVEN
    const before = existingCertificate(secrets, 'barman-cloud-server-tls', 400);
    existingCertificate(secrets, 'barman-cloud-client-tls', 31 + 1);

    // WHEN
    const r = box.run(YES, env(box, secrets));

    // THEN
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/✓ TLS Secret cnpg-system\/barman-cloud-server-tls \(self-signed server certificate, CN barman-cloud\) kept: valid until .+ \(more than 30 days\)/);
    expect(r.stdout).toMatch(/barman-cloud-client-tls .* kept/);
    expect(r.calls.filter((c) => c.startsWith('create secret generic barman-cloud'))).toEqual([]);
    expect(fs.readFileSync(path.join(secrets, 'barman-cloud-server-tls', 'tls.crt'), 'utf8')).toBe(before);
  });

  withOpenssl('makes a certificate again when it expires within 30 days', () => {
    // GIVEN
    const before = existingCertificate(secrets, 'barman-cloud-server-tls', 10);
    existingCertificate(secrets, 'barman-cloud-client-tls', 400);

    // WHEN
    const r = box.run(YES, env(box, secrets));

    // THEN
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('made TLS Secret cnpg-system/barman-cloud-server-tls (self-signed server certificate, CN barman-cloud), ' +
      'valid 730 days (its certificate is missing or expires within 30 days)');
    expect(fs.readFileSync(path.join(secrets, 'barman-cloud-server-tls', 'tls.crt'), 'utf8')).not.toBe(before);
    expect(r.calls.filter((c) => c.startsWith('create secret generic')).map((c) => c.split(' ')[3])).toEqual(['barman-cloud-server-tls', 'homelab-backup-s3']);
    noKeyMaterial(r, secrets);
  });

  test('a dry run plans the TLS Secrets and the credentials, never showing a value', () => {
    // WHEN (a dry run reads no Secret and runs no openssl)
    const r = box.run(['--dry-run'], env(box, secrets));

    // THEN the plan names the file and the Secret, never the values
    expect(r.status).toBe(0);
    expect(r.stdout).toContain(`HOMELAB_BACKUP_S3_ENV_FILE=${box.home}/.config/homelab/homelab-backup-s3.env (present)`);
    expect(r.stdout).toContain('install Secret cicd/homelab-backup-s3 from the env file $HOMELAB_BACKUP_S3_ENV_FILE');
    expect(r.stdout).toContain('check   TLS Secret cnpg-system/barman-cloud-server-tls (self-signed server certificate, CN barman-cloud) ' +
      'valid for more than 30 days, else made with openssl, valid 730 days');
    expect(r.stdout + r.stderr).not.toContain(SECRET_KEY);
  });

  withOpenssl('installs the env file as the Secret, with the file\'s keys', () => {
    const r = box.run(YES, env(box, secrets));
    expect(r.status).toBe(0);
    expect(r.calls).toContain(`create secret generic homelab-backup-s3 -n cicd --from-env-file=${box.home}/.config/homelab/homelab-backup-s3.env --dry-run=client -o yaml`);
    expect(fs.readFileSync(path.join(secrets, 'homelab-backup-s3', 'env'), 'utf8')).toContain(`ACCESS_SECRET_KEY=${SECRET_KEY}`);
    expect(r.stdout).toContain('applied Secret cicd/homelab-backup-s3 from the env file $HOMELAB_BACKUP_S3_ENV_FILE');
    noKeyMaterial(r, secrets);
  });

  test('refuses to start when the env file is missing, or lacks a key, before any change', () => {
    fs.rmSync(path.join(box.home, '.config/homelab/homelab-backup-s3.env'));
    const missing = box.run(YES, env(box, secrets));
    expect(missing.status).toBe(1);
    expect(missing.stderr).toContain(`✗ FAILED: HOMELAB_BACKUP_S3_ENV_FILE: no file at ${box.home}/.config/homelab/homelab-backup-s3.env`);
    expect(missing.calls.filter((c) => c.startsWith('apply') || c.startsWith('create'))).toEqual([]);

    box.writeHomeFile('.config/homelab/homelab-backup-s3.env', `ACCESS_KEY_ID=${ACCESS_KEY}\nACCESS_SECRET_KEY=\n`);
    const empty = box.run(YES, env(box, secrets));
    expect(empty.status).toBe(1);
    expect(empty.stderr).toContain('homelab-backup-s3.env sets no ACCESS_SECRET_KEY (a line ACCESS_SECRET_KEY=value, the value without quotes)');
    expect(empty.stderr + empty.stdout).not.toContain(ACCESS_KEY);

    box.writeHomeFile('.config/homelab/homelab-backup-s3.env', `export ACCESS_KEY_ID ${ACCESS_KEY}\n`);
    const malformed = box.run(YES, env(box, secrets));
    expect(malformed.stderr).toContain('homelab-backup-s3.env line 1 is neither KEY=value, a # comment nor blank');
    expect(malformed.stderr + malformed.stdout).not.toContain(ACCESS_KEY);
  });
});
