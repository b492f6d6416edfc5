// An upgrade as a homelab lives it: the previous release of the output is on the cluster, the new one is
// applied over it. The server must accept every object; and a deliberately immutable change (a Deployment
// selector, a Job template, a PVC shrink) must be refused with a message that names the object and the field,
// which is what the PR review has to predict before merge.
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as YAML from 'yaml';
import { CnpgWebhook } from './harness/cnpg-webhook';
import { ControlPlane } from './harness/control-plane';
import { applyUnits, describeWithShared, offlineCopy, ROOT, SHARED, walk } from './harness/output-tree';
import { StatusWriter } from './harness/status-writer';
import { catalogCrdFiles } from './harness/catalog-crds';

function git(...args: string[]): string {
  const r = spawnSync('git', args, { cwd: ROOT, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`git ${args.join(' ')}: ${r.stderr.trim()}`);
  return r.stdout.trim();
}

/**
 * The previous release of the committed output: dist/ as it was before the last commit that changed it. Needs
 * the repository's history (a shallow clone fails here, naming the fix).
 */
function previousRelease(): { commit: string; dist: string } {
  const lastChange = git('log', '-1', '--format=%H', '--', 'dist/');
  let commit: string;
  try {
    commit = git('rev-parse', '--verify', `${lastChange}^`);
  } catch (e) {
    throw new Error(`no commit before ${lastChange} (a shallow clone? run git fetch --unshallow): ${(e as Error).message}`, { cause: e });
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'homelab-previous-'));
  const archive = spawnSync('git', ['archive', '--format=tar', commit, 'dist'], { cwd: ROOT, maxBuffer: 512 * 1024 * 1024 });
  if (archive.status !== 0) throw new Error(`git archive ${commit} dist failed: ${archive.stderr}`);
  const untar = spawnSync('tar', ['-x', '-C', dir], { input: archive.stdout });
  if (untar.status !== 0) throw new Error(`tar failed: ${untar.stderr}`);
  return { commit, dist: path.join(dir, 'dist') };
}

function manager(unit: string): string {
  return `--field-manager=homelab-test-${unit.replace(/[^a-z0-9]+/gi, '-')}`;
}

describeWithShared('an upgrade from the previous release', () => {
  let plane: ControlPlane;
  let webhook: CnpgWebhook;
  let writer: StatusWriter;
  let previous: { commit: string; dist: string };
  let previousTree: string;
  let currentTree: string;

  beforeAll(async () => {
    previous = previousRelease();
    previousTree = offlineCopy(previous.dist);
    currentTree = offlineCopy(path.join(ROOT, 'dist'));
    plane = await ControlPlane.start();
    webhook = new CnpgWebhook(plane);
    await webhook.start();
    writer = new StatusWriter(plane, { readyAfterMs: 0, controllers: [() => webhook.injectCaBundle()] }).start();
    // Longhorn's default StorageClass (its chart sets allowVolumeExpansion: true), so claims bind and may grow.
    const storageClass = {
      apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass',
      metadata: { name: 'longhorn', annotations: { 'storageclass.kubernetes.io/is-default-class': 'true' } },
      provisioner: 'driver.longhorn.io', allowVolumeExpansion: true,
    };
    expect((await plane.kubectl(['apply', '--server-side', '-f', '-'], JSON.stringify(storageClass))).status).toBe(0);
    // The CRDs the catalog's own Applications install (prometheus-crds), which backup-checks' objects need.
    // And the delivery controllers' CRDs (Image Updater, Kyverno, Rollouts), which their Applications install before the app tier.
    const catalog = await catalogCrdFiles();
    const delivery = ['image-updater', 'kyverno', 'rollouts'].flatMap((d) => walk(path.join(SHARED, 'crds', d)));
    expect((await plane.kubectl(['apply', '--server-side', ...[...delivery, ...catalog.files].flatMap((f) => ['-f', f])])).status).toBe(0);
    fs.rmSync(catalog.dir, { recursive: true, force: true });
    expect((await plane.waitCrdsEstablished(60)).status).toBe(0);
  }, 900_000);
  afterAll(async () => {
    await writer?.stop();
    await webhook?.stop();
    await plane?.stop();
    for (const dir of [previousTree, currentTree, previous?.dist && path.dirname(previous.dist)]) {
      if (dir) fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  async function applyTree(tree: string): Promise<string[]> {
    const rejections: string[] = [];
    for (const unit of applyUnits(tree)) {
      const r = await plane.kubectl(['apply', '--server-side', '--force-conflicts', manager(unit.name), unit.flag, unit.path]);
      if (r.status !== 0) rejections.push(`${unit.name}: ${r.stderr.trim()}`);
      if (r.stdout.includes('customresourcedefinition')) await plane.waitCrdsEstablished(120);
      if (r.stdout.includes('cnpg-validating-webhook-configuration')) await webhook.injectCaBundle();
    }
    return rejections;
  }

  test('the previous release applies, then the current one over it: zero rejections', async () => {
    expect({ release: previous.commit, rejections: await applyTree(previousTree) }).toEqual({ release: previous.commit, rejections: [] });
    expect(await applyTree(currentTree)).toEqual([]);
  });

  /** The object of `kind`/`name` in a YAML file, changed by `change`, as JSON for kubectl. */
  function changedObject(file: string, kind: string, name: string, change: (o: any) => void): string {
    const o = YAML.parseAllDocuments(fs.readFileSync(file, 'utf8')).map((d) => d.toJSON()).find((x) => x?.kind === kind && x.metadata.name === name);
    if (o === undefined) throw new Error(`${kind} ${name} not in ${file}`);
    change(o);
    return JSON.stringify(o);
  }

  describe('a deliberately immutable change is refused, naming the object and the field', () => {
    const forgejo = (): string => path.join(currentTree, 'bootstrap', fs.readdirSync(path.join(currentTree, 'bootstrap')).find((n) => /^\d+-forgejo\.yaml$/.test(n))!);

    test('the Forgejo Deployment selector', async () => {
      const o = changedObject(forgejo(), 'Deployment', 'forgejo', (d) => {
        d.spec.selector.matchLabels['app.kubernetes.io/component'] = 'server';
        d.spec.template.metadata.labels['app.kubernetes.io/component'] = 'server';
      });
      const r = await plane.kubectl(['apply', '--server-side', '--force-conflicts', '-f', '-'], o);
      expect(r.status).not.toBe(0);
      expect(r.stderr).toContain('The Deployment "forgejo" is invalid: spec.selector');
      expect(r.stderr).toContain('field is immutable');
    });

    test("the provisioning Job's template (why the runbook deletes a Job before re-applying it)", async () => {
      const o = changedObject(forgejo(), 'Job', 'forgejo-provision', (j) => {
        j.spec.template.spec.containers[0].env = [...(j.spec.template.spec.containers[0].env ?? []), { name: 'CHANGED', value: '1' }];
      });
      const r = await plane.kubectl(['apply', '--server-side', '--force-conflicts', '-f', '-'], o);
      expect(r.status).not.toBe(0);
      expect(r.stderr).toContain('The Job "forgejo-provision" is invalid: spec.template');
      expect(r.stderr).toContain('field is immutable');
    });

    test("the Forgejo data claim shrunk (bound, so growth would pass: Longhorn's class allows expansion)", async () => {
      for (let i = 0; i < 50 && JSON.parse((await plane.kubectl(['get', 'pvc', 'forgejo-data', '-n', 'cicd', '-o', 'json'])).stdout).status?.phase !== 'Bound'; i++) {
        await new Promise((r) => setTimeout(r, 100));
      }
      const grow = changedObject(forgejo(), 'PersistentVolumeClaim', 'forgejo-data', (p) => { p.spec.resources.requests.storage = '40Gi'; });
      expect(await plane.kubectl(['apply', '--server-side', '--force-conflicts', '--dry-run=server', '-f', '-'], grow)).toMatchObject({ status: 0 });
      const shrink = changedObject(forgejo(), 'PersistentVolumeClaim', 'forgejo-data', (p) => { p.spec.resources.requests.storage = '1Gi'; });
      const r = await plane.kubectl(['apply', '--server-side', '--force-conflicts', '-f', '-'], shrink);
      expect(r.status).not.toBe(0);
      expect(r.stderr).toContain('The PersistentVolumeClaim "forgejo-data" is invalid: spec.resources.requests.storage');
      expect(r.stderr).toContain('field can not be less than previous value');
    });

    test("the Forgejo database's storage shrunk: refused by CloudNativePG's own webhook", async () => {
      const file = path.join(currentTree, 'bootstrap', fs.readdirSync(path.join(currentTree, 'bootstrap')).find((n) => /^\d+-postgres-forgejo-db\.yaml$/.test(n))!);
      const o = changedObject(file, 'Cluster', 'forgejo-db', (c) => { c.spec.storage.size = '1Gi'; });
      const r = await plane.kubectl(['apply', '--server-side', '--force-conflicts', '-f', '-'], o);
      expect(r.status).not.toBe(0);
      // No CRD rule says this: the message is CNPG's webhook's (internal/webhook/v1/cluster_webhook.go, storage
      // validation), returned as a field error, so kubectl prints it like the API server's own.
      expect(r.stderr).toContain('The Cluster "forgejo-db" is invalid: spec.storage: Invalid value: "1Gi": can\'t shrink existing storage from 10Gi to 1Gi');
    });
  });
});
