import { ChildProcess, execFileSync, spawn } from 'child_process';
import * as fs from 'fs';
import * as https from 'https';
import * as net from 'net';
import * as os from 'os';
import * as path from 'path';
import { JsonPatch } from 'cdk8s';
import YAML from 'yaml';
import { REFERENCE_HOMELAB } from '../../lib/config/defaults';
import { synthesizeHomelab } from '../../lib/synth/synthesize-homelab';
import ddbCluster from '../../examples/ddb-cluster.config';
import { findTool, testWith, Tool } from '../tools';
const { helperPath } = require('../../scripts/build-cnpg-webhook.js') as { helperPath: () => string };

// CNPG keeps some of its admission rules in its operator's webhook, not in its CRDs (issue 13). These tests
// send AdmissionReview v1 requests, over HTTPS and checked against the CA, to tools/cnpg-webhook: CNPG
// v1.30.0's own internal/webhook/v1, registered with a controller-runtime manager exactly as the operator
// registers it (internal/cmd/manager/controller/controller.go, setupWebhooks), and nothing else. .ci/run builds
// it (node scripts/build-cnpg-webhook.js); without it, openssl or the release manifest, these tests are
// skipped, with the reason in their names. No API server is needed: the webhooks have no client (see the
// package comment of tools/cnpg-webhook/main.go).
const HELPER = findTool('cnpg-webhook (node scripts/build-cnpg-webhook.js; needs Go)', [helperPath()], '--version');
const OPENSSL = findTool('openssl', ['openssl'], 'version');
const MANIFEST_PATH = path.resolve(__dirname, '../../../shared/manifests/cnpg-1.30.0.yaml');
const MANIFEST: Tool = {
  name: '../shared/manifests/cnpg-1.30.0.yaml',
  command: fs.existsSync(MANIFEST_PATH) ? MANIFEST_PATH : undefined,
};
const webhookTest = testWith(HELPER, OPENSSL, MANIFEST);

// The name the API server would verify: the webhook Service of the release manifest.
const SERVICE_DNS = 'cnpg-webhook-service.cnpg-system.svc';

interface Status { code?: number; message?: string; reason?: string }
interface Response { uid: string; allowed: boolean; status?: Status; patchType?: string; patch?: string; warnings?: string[] }
interface Patch { op: string; path: string; value?: unknown }

let dir = '';
let child: ChildProcess | undefined;
let address = { host: '127.0.0.1', port: 0 };
let ca: Buffer;
let stdout = '';
let stderr = '';
let exited: Promise<number | null>;

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.on('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

beforeAll(async () => {
  if (HELPER.command === undefined || OPENSSL.command === undefined || MANIFEST.command === undefined) return;
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cnpg-webhook-'));
  // A self-signed certificate for the Service's DNS name, as the harness owns certificate and caBundle.
  execFileSync(OPENSSL.command, ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1',
    '-keyout', path.join(dir, 'tls.key'), '-out', path.join(dir, 'tls.crt'),
    '-subj', `/CN=${SERVICE_DNS}`, '-addext', `subjectAltName=DNS:${SERVICE_DNS}`], { stdio: 'ignore' });
  ca = fs.readFileSync(path.join(dir, 'tls.crt'));
  address = { host: '127.0.0.1', port: await freePort() };
  const proc = spawn(HELPER.command, ['--listen', `${address.host}:${address.port}`, '--cert-dir', dir],
    { stdio: ['ignore', 'pipe', 'pipe'] });
  child = proc;
  exited = new Promise((resolve) => proc.on('exit', (code) => resolve(code)));
  proc.stderr.on('data', (d: Buffer) => { stderr += d.toString(); });
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no "ready" line in 30 s; stderr:\n${stderr}`)), 30_000);
    proc.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
      if (/^ready /m.test(stdout)) { clearTimeout(timer); resolve(); }
    });
    proc.on('exit', (code) => { clearTimeout(timer); reject(new Error(`exited with ${code}; stderr:\n${stderr}`)); });
  });
}, 40_000);

afterAll(async () => {
  if (child !== undefined && child.exitCode === null && child.signalCode === null) {
    child.kill('SIGKILL');
    await exited;
  }
  if (dir !== '') fs.rmSync(dir, { recursive: true, force: true });
});

/** POSTs an AdmissionReview v1 for `kind` to `webhookPath`, verifying the server against the CA. */
function review(webhookPath: string, operation: 'CREATE' | 'UPDATE', object: any, oldObject?: any): Promise<Response> {
  const kind = object.kind as string;
  const uid = `uid-${kind}-${operation}-${Math.random().toString(16).slice(2)}`;
  const body = JSON.stringify({
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    request: {
      uid,
      kind: { group: 'postgresql.cnpg.io', version: 'v1', kind },
      resource: { group: 'postgresql.cnpg.io', version: 'v1', resource: `${kind.toLowerCase()}s` },
      requestKind: { group: 'postgresql.cnpg.io', version: 'v1', kind },
      requestResource: { group: 'postgresql.cnpg.io', version: 'v1', resource: `${kind.toLowerCase()}s` },
      name: object.metadata.name,
      namespace: object.metadata.namespace,
      operation,
      userInfo: { username: 'system:admin' },
      object,
      oldObject: oldObject ?? null,
      dryRun: false,
      options: { apiVersion: 'meta.k8s.io/v1', kind: operation === 'CREATE' ? 'CreateOptions' : 'UpdateOptions' },
    },
  });
  return new Promise((resolve, reject) => {
    const req = https.request({
      host: address.host, port: address.port, servername: SERVICE_DNS, ca, method: 'POST', path: webhookPath,
      headers: { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) },
    }, (res) => {
      let data = '';
      res.on('data', (d: Buffer) => { data += d.toString(); });
      res.on('end', () => {
        try {
          const parsed = JSON.parse(data) as { response: Response };
          expect(parsed.response.uid).toBe(uid);
          resolve(parsed.response);
        } catch (e) {
          reject(new Error(`${webhookPath}: HTTP ${res.statusCode}: ${data} (${(e as Error).message})`));
        }
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}

function patchOf(r: Response): Patch[] {
  return r.patch === undefined ? [] : JSON.parse(Buffer.from(r.patch, 'base64').toString()) as Patch[];
}

/** Every CNPG Cluster and Database this program writes, for the reference homelab and the ddb example. */
function cnpgObjects(kind: 'Cluster' | 'Database'): { where: string; object: any }[] {
  const out: { where: string; object: any }[] = [];
  for (const [config, name] of [[REFERENCE_HOMELAB, 'reference'], [ddbCluster, 'ddb example']] as const) {
    for (const [file, content] of synthesizeHomelab(config).tree) {
      if (!file.endsWith('.yaml')) continue;
      for (const doc of YAML.parseAllDocuments(content)) {
        const o = doc.toJSON();
        if (o?.apiVersion === 'postgresql.cnpg.io/v1' && o.kind === kind) out.push({ where: `${name}: ${file} ${o.metadata.namespace}/${o.metadata.name}`, object: o });
      }
    }
  }
  return out;
}
const CLUSTERS = cnpgObjects('Cluster');
const DATABASES = cnpgObjects('Database');
const forgejoDb = CLUSTERS.find((c) => c.object.metadata.name === 'forgejo-db')!.object;

/** The object after `r`'s JSONPatch, as the API server applies it before the validating webhooks run. */
function patched(object: any, r: Response): any {
  expect(r.allowed).toBe(true);
  const ops = patchOf(r).map((p) => {
    if (p.op === 'add') return JsonPatch.add(p.path, p.value);
    if (p.op === 'replace') return JsonPatch.replace(p.path, p.value);
    if (p.op === 'remove') return JsonPatch.remove(p.path);
    throw new Error(`unexpected patch op ${p.op}`);
  });
  return JsonPatch.apply(structuredClone(object), ...ops);
}

/**
 * An update through the API server's admission chain as CNPG's webhook configurations wire it: the mutating
 * webhook defaults the new object (mcluster.cnpg.io), then the validating webhook judges it against the stored
 * one (vcluster.cnpg.io). Its ValidateUpdate expects a defaulted new object: it re-defaults only the old one.
 */
async function update(stored: any, next: any): Promise<Response> {
  const mutated = patched(next, await review('/mutate-postgresql-cnpg-io-v1-cluster', 'UPDATE', next, stored));
  return review('/validate-postgresql-cnpg-io-v1-cluster', 'UPDATE', mutated, stored);
}

/** The forgejo-db Cluster as the API server holds it once CNPG ran it: defaulted at create, with CNPG's status. */
async function runningForgejoDb(): Promise<any> {
  const stored = patched(forgejoDb, await review('/mutate-postgresql-cnpg-io-v1-cluster', 'CREATE', forgejoDb));
  return {
    ...stored,
    metadata: { ...stored.metadata, uid: '00000000-0000-0000-0000-000000000001', generation: 1 },
    // status.pgDataImageInfo is what CNPG's major-version rule compares with (cluster_webhook.go
    // validateImageChange reads old.Status.PGDataImageInfo.MajorVersion); the operator writes it once the
    // data directory exists. Without it the rule does not apply.
    status: { pgDataImageInfo: { image: forgejoDb.spec.imageName, majorVersion: 18 } },
  };
}

describe('CNPG v1.30.0 admission webhooks (tools/cnpg-webhook)', () => {
  webhookTest('serves exactly the paths of the release manifest\'s webhook configurations', () => {
    const configured: string[] = [];
    for (const doc of YAML.parseAllDocuments(fs.readFileSync(MANIFEST_PATH, 'utf8'))) {
      const o = doc.toJSON();
      if (o?.kind !== 'MutatingWebhookConfiguration' && o?.kind !== 'ValidatingWebhookConfiguration') continue;
      for (const w of o.webhooks) {
        expect(w.clientConfig.service).toMatchObject({ name: 'cnpg-webhook-service', namespace: 'cnpg-system' });
        configured.push(w.clientConfig.service.path);
      }
    }
    const served = [...stdout.matchAll(/^serving (\S+)$/gm)].map((m) => m[1]);
    expect(configured).toHaveLength(9);
    expect(served.sort()).toEqual(configured.sort());
    expect(stdout).toMatch(new RegExp(`^ready ${address.host}:${address.port}$`, 'm'));
  });

  webhookTest('every Cluster and Database this program writes is allowed by CNPG\'s validating webhooks', async () => {
    expect(CLUSTERS.map((c) => c.object.metadata.name).sort()).toEqual(['ddb-cluster', 'ddb-cluster', 'forgejo-db']);
    expect(DATABASES).toHaveLength(7);
    for (const { where, object } of [...CLUSTERS, ...DATABASES]) {
      const plural = object.kind.toLowerCase();
      const mutated = patched(object, await review(`/mutate-postgresql-cnpg-io-v1-${plural}`, 'CREATE', object));
      const r = await review(`/validate-postgresql-cnpg-io-v1-${plural}`, 'CREATE', mutated);
      expect({ where, allowed: r.allowed, message: r.status?.message, warnings: r.warnings })
        .toEqual({ where, allowed: true, message: undefined, warnings: undefined });
    }
  });

  webhookTest('a valid Cluster create is allowed, and the mutating path answers with CNPG\'s defaults as a JSONPatch', async () => {
    const r = await review('/mutate-postgresql-cnpg-io-v1-cluster', 'CREATE', forgejoDb);
    expect(r.allowed).toBe(true);
    expect(r.patchType).toBe('JSONPatch');
    const patch = patchOf(r);
    // api/v1/cluster_defaults.go: logLevel "info" when empty, and the operator's MONITORING_QUERIES_CONFIGMAP
    // (cnpg-default-monitoring, from the release manifest's Deployment env) in spec.monitoring.
    expect(patch).toContainEqual({ op: 'add', path: '/spec/logLevel', value: 'info' });
    expect(patch.find((p) => p.path.startsWith('/spec/monitoring'))?.value).toEqual(expect.objectContaining(
      { customQueriesConfigMap: [{ key: 'queries', name: 'cnpg-default-monitoring' }] }));
    // The imageName we pin is kept: CNPG defaults it only when empty.
    expect(patch.some((p) => p.path === '/spec/imageName')).toBe(false);

    const noImage = { ...forgejoDb, spec: { ...forgejoDb.spec, imageName: undefined } };
    const defaulted = patchOf(await review('/mutate-postgresql-cnpg-io-v1-cluster', 'CREATE', noImage));
    // pkg/versions/versions.go: DefaultImageName = "ghcr.io/cloudnative-pg/postgresql:18.4-system-trixie"
    expect(defaulted).toContainEqual(
      { op: 'add', path: '/spec/imageName', value: 'ghcr.io/cloudnative-pg/postgresql:18.4-system-trixie' });
  });

  webhookTest('a Cluster update that shrinks spec.storage.size is denied with CNPG\'s message', async () => {
    const old = await runningForgejoDb();
    const shrunk = { ...old, spec: { ...old.spec, storage: { size: '5Gi' } } };
    const r = await update(old, shrunk);
    expect(r.allowed).toBe(false);
    expect(r.status?.code).toBe(422);
    // internal/webhook/v1/cluster_webhook.go, validateStorageConfigurationChange:
    //   fmt.Sprintf("can't shrink existing storage from %v to %v", oldSize, newSize)),
    expect(r.status?.message).toContain('spec.storage: Invalid value: "5Gi": can\'t shrink existing storage from 10Gi to 5Gi');
    // Growing is allowed.
    const grown = { ...old, spec: { ...old.spec, storage: { size: '20Gi' } } };
    expect((await update(old, grown)).allowed).toBe(true);
  });

  webhookTest('a Cluster update to an imageName of a lower PostgreSQL major is denied', async () => {
    const old = await runningForgejoDb();
    const downgraded = { ...old, spec: { ...old.spec, imageName: 'ghcr.io/cloudnative-pg/postgresql:17.6-system-trixie' } };
    const r = await update(old, downgraded);
    expect(r.allowed).toBe(false);
    // internal/webhook/v1/cluster_webhook.go, validateImageChange:
    //   fmt.Sprintf("can't downgrade from major %v to %v", oldVersion, newVersion)))
    expect(r.status?.message).toContain('spec.imageName: Invalid value: "17": can\'t downgrade from major 18 to 17');
    // A minor update within the major is allowed.
    const minor = { ...old, spec: { ...old.spec, imageName: 'ghcr.io/cloudnative-pg/postgresql:18.5-system-trixie' } };
    expect((await update(old, minor)).allowed).toBe(true);
  });

  webhookTest('a Cluster update to an image below PostgreSQL 16 is denied even as an upgrade', async () => {
    const running = await runningForgejoDb();
    const old = { ...running, spec: { ...running.spec, imageName: 'ghcr.io/cloudnative-pg/postgresql:13.20' },
      status: { pgDataImageInfo: { image: 'ghcr.io/cloudnative-pg/postgresql:13.20', majorVersion: 13 } } };
    const upgraded = { ...old, spec: { ...old.spec, imageName: 'ghcr.io/cloudnative-pg/postgresql:15.14' } };
    const r = await update(old, upgraded);
    expect(r.allowed).toBe(false);
    // internal/webhook/v1/cluster_webhook.go, validateImageChange: "major upgrades are only supported to version 16 or higher"))
    expect(r.status?.message).toContain('major upgrades are only supported to version 16 or higher');
  });

  webhookTest('a Database with a duplicated extension, or a server naming an undeclared fdw, is denied', async () => {
    const ours = DATABASES[0].object;
    const duplicated = { ...ours, spec: { ...ours.spec, extensions: [{ name: 'pg_trgm' }, { name: 'pg_trgm' }] } };
    const r = await review('/validate-postgresql-cnpg-io-v1-database', 'CREATE', duplicated);
    expect(r.allowed).toBe(false);
    // internal/webhook/v1/database_webhook.go, validateExtensions:
    //   field.Duplicate(field.NewPath("spec", "extensions").Index(i).Child("name"), name)
    expect(r.status?.message).toContain('spec.extensions[1].name: Duplicate value: "pg_trgm"');

    const server = { ...ours, spec: { ...ours.spec, servers: [{ name: 'remote', fdw: 'postgres_fdw' }] } };
    const s = await review('/validate-postgresql-cnpg-io-v1-database', 'CREATE', server);
    expect(s.allowed).toBe(false);
    // internal/webhook/v1/database_webhook.go, validateServerFDWReference: "referenced fdw not defined in spec.fdws",
    expect(s.status?.message).toContain('spec.servers[0].fdw: Invalid value: "postgres_fdw": referenced fdw not defined in spec.fdws');
  });

  webhookTest('stops cleanly on SIGTERM', async () => {
    child!.kill('SIGTERM');
    expect(await exited).toBe(0);
  });
});
