import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { ConfigError } from '../../lib/shared/errors';
import { REFERENCE_HOMELAB } from '../../lib/config/defaults';
import { HomelabConfig } from '../../lib/config/homelab-config';
import { synthesizeHomelab } from '../../lib/synth/synthesize-homelab';
import { DependencyCycleError, orderSteps } from '../../lib/constructs/bootstrap/order-steps';
import ddbCluster from '../../examples/ddb-cluster.config';
import YAML from 'yaml';

function docs(content: string | undefined): any[] {
  if (content === undefined) throw new Error('no such file');
  return YAML.parseAllDocuments(content).map((d) => d.toJSON()).filter((d) => d);
}

describe('the reference homelab', () => {
  const { tree, bootstrap } = synthesizeHomelab(REFERENCE_HOMELAB);
  const stepFiles = [...tree.keys()].filter((p) => /^bootstrap\/\d\d-[^/]+(\.yaml|\/kustomization\.yaml|\/values\.yaml)$/.test(p));

  test('bootstrap order is derived from dependencies', () => {
    expect(stepFiles).toEqual([
      'bootstrap/01-namespaces.yaml',
      'bootstrap/02-cilium/values.yaml',
      'bootstrap/03-longhorn/values.yaml',
      'bootstrap/04-cnpg-operator/kustomization.yaml',
      // derived: after the CNPG operator, before the Cluster that archives through it
      'bootstrap/05-barman-cloud-plugin/kustomization.yaml',
      'bootstrap/06-postgres-forgejo-db.yaml',
      'bootstrap/07-forgejo.yaml',
      'bootstrap/08-argocd-install/kustomization.yaml',
      'bootstrap/09-argocd-repo-credential/kustomization.yaml',
      'bootstrap/10-argocd-root.yaml',
    ]);
  });

  test('no object carries an empty list the API server would drop (a re-apply would write it again)', () => {
    // kube-apiserver stores no empty `externalIPs`; test/cluster/runbook.test.ts caught every runbook run
    // rewriting Forgejo's Services because cdk8s-plus writes one.
    const emptyLists = [...tree.entries()].filter(([p, text]) => p.endsWith('.yaml') && /^\s+externalIPs: \[\]$/m.test(text)).map(([p]) => p);
    expect(emptyLists).toEqual([]);
  });

  test('Forgejo comes after the Job that proves its database exists', () => {
    const forgejoIndex = stepFiles.indexOf('bootstrap/07-forgejo.yaml');
    const waitStep = stepFiles.findIndex((f) => (tree.get(f) ?? '').includes('name: wait-for-forgejo-db'));
    expect(waitStep).toBeGreaterThanOrEqual(0);
    expect(waitStep).toBeLessThan(forgejoIndex);
    const forgejoDeps = bootstrap.forgejoStep.dependencies.map((d) => d.step.stepName);
    expect(forgejoDeps).toContain('postgres-forgejo-db');
  });

  test('the dedicated forgejo-db cluster is in Phase 0; the shared cluster is not', () => {
    const clusters = docs(tree.get('bootstrap/06-postgres-forgejo-db.yaml')).filter((d) => d.kind === 'Cluster');
    expect(clusters.map((c) => c.metadata.name)).toEqual(['forgejo-db']);
    expect(clusters[0].spec.bootstrap.initdb).toEqual({ database: 'forgejo', owner: 'forgejo' });
    expect([...tree.keys()].some((p) => p.startsWith('bootstrap/') && p.includes('ddb-cluster'))).toBe(false);
  });

  test('every CNPG Cluster and Database data-schemas delivers is neither pruned nor deleted by Argo CD', () => {
    const delivered = [...tree.entries()].filter(([p]) => p.startsWith('data-schemas/')).flatMap(([, text]) => docs(text))
      .filter((d) => d.apiVersion === 'postgresql.cnpg.io/v1' && (d.kind === 'Cluster' || d.kind === 'Database'));
    expect(delivered.map((d) => `${d.kind}/${d.metadata.name}`)).toEqual([
      'Cluster/ddb-cluster', 'Database/authentik', 'Database/temporal', 'Database/temporal-visibility',
    ]);
    for (const d of delivered) {
      expect([d.metadata.name, d.metadata.annotations['argocd.argoproj.io/sync-options']]).toEqual([d.metadata.name, 'Prune=false,Delete=false']);
    }
  });

  test('no secret material anywhere in the output', () => {
    for (const [path, content] of tree) {
      expect({ path, pem: /-----BEGIN [A-Z ]*PRIVATE KEY-----/.test(content) }).toEqual({ path, pem: false });
      expect({ path, token: /gh[pousr]_[A-Za-z0-9]{20,}/.test(content) }).toEqual({ path, token: false });
    }
  });

  test('the repository credential url is the root app repoURL', () => {
    const credential = YAML.parse(tree.get('bootstrap/09-argocd-repo-credential/kustomization.yaml') as string);
    expect(credential.secretGenerator[0].literals).toContain(`url=${REFERENCE_HOMELAB.git.githubSeedUrl}`);
  });

  test('the runbook installs the SOPS age key before Argo CD, because sops-secrets decrypts', () => {
    expect(bootstrap.argocdInstall.preconditions).toEqual([expect.objectContaining({
      kind: 'secret-from-file', name: 'sops-age', variable: 'SOPS_AGE_KEY_FILE', defaultPath: '~/.config/sops/age/keys.txt',
    })]);
    const script = tree.get('bootstrap/bootstrap.sh')!;
    const install = script.indexOf('\ninstall_secret_file argocd-install argocd sops-age keys.txt SOPS_AGE_KEY_FILE\n');
    expect(install).toBeGreaterThan(script.indexOf('\nstep 7 argocd-install '));
    expect(install).toBeLessThan(script.indexOf('\napply_staged argocd-install 08-argocd-install https://raw.githubusercontent.com/argoproj/argo-cd/'));
    expect(script).toContain('\nneed_file SOPS_AGE_KEY_FILE age-identity ');
  });

  test('the runbook pins the cluster the config names', () => {
    const cluster = { context: 'admin@homelab', apiServer: 'https://10.0.0.10:6443', kubeSystemUid: '0f1e2d3c-4b5a-4697-8877-665544332211' };
    const script = synthesizeHomelab({ ...REFERENCE_HOMELAB, cluster }).tree.get('bootstrap/bootstrap.sh')!;
    expect(script).toContain('\nEXPECTED_CONTEXT=admin@homelab\nEXPECTED_API_SERVER=https://10.0.0.10:6443\n'
      + 'EXPECTED_KUBE_SYSTEM_UID=0f1e2d3c-4b5a-4697-8877-665544332211\n');
    expect(tree.get('bootstrap/bootstrap.sh')).toContain("\nEXPECTED_CONTEXT=''\n");
  });

  test('synthesis is deterministic', () => {
    const again = synthesizeHomelab(REFERENCE_HOMELAB).tree;
    expect([...again.entries()]).toEqual([...tree.entries()]);
  });
});

describe('the ddb-cluster example (the older layout, by config alone)', () => {
  const { tree } = synthesizeHomelab(ddbCluster);

  test('one ddb-cluster with 3 instances and the four databases, all in Phase 0', () => {
    const objects = docs(tree.get('bootstrap/06-postgres-ddb-cluster.yaml'));
    const cluster = objects.find((d) => d.kind === 'Cluster');
    expect(cluster.metadata).toEqual({ name: 'ddb-cluster', namespace: 'ddb' });
    expect(cluster.spec.instances).toBe(3);
    const databases = objects.filter((d) => d.kind === 'Database').map((d) => [d.metadata.name, d.spec.name, d.spec.owner]);
    expect(databases).toEqual([
      ['authentik', 'authentik', 'app'],
      ['forgejo', 'forgejo', 'app'],
      ['temporal', 'temporal', 'app'],
      ['temporal-visibility', 'temporal_visibility', 'app'],
    ]);
    const job = objects.find((d) => d.kind === 'Job');
    expect(job.spec.template.spec.containers[0].args.slice(-4)).toEqual([
      'databases.postgresql.cnpg.io/authentik', 'databases.postgresql.cnpg.io/forgejo',
      'databases.postgresql.cnpg.io/temporal', 'databases.postgresql.cnpg.io/temporal-visibility',
    ]);
  });

  test('Forgejo reads its credentials from the provided Secret, checked before apply', () => {
    const forgejo = docs(tree.get('bootstrap/07-forgejo.yaml')).find((d) => d.kind === 'Deployment' && d.metadata.name === 'forgejo');
    const env = forgejo.spec.template.spec.containers[0].env;
    expect(env.find((e: any) => e.name === 'FORGEJO__database__PASSWD').valueFrom.secretKeyRef.name).toBe('forgejo-db-credentials');
    expect(env.find((e: any) => e.name === 'FORGEJO__database__HOST').value).toBe('ddb-cluster-rw.ddb.svc:5432');
    expect(tree.get('bootstrap/bootstrap.sh')).toContain('forgejo-db-credentials');
  });
});

describe('after the cutover: the seed tree a rebuild starts from', () => {
  const GITHUB = 'git@github.com:homelab-owner/homelab.git';
  const FORGEJO = 'http://forgejo-http.cicd.svc.cluster.local:3000/homelab-owner/homelab.git';
  const { tree } = synthesizeHomelab({ ...REFERENCE_HOMELAB, git: { ...REFERENCE_HOMELAB.git, source: 'forgejo' } });
  const files = (prefix: string) => [...tree.keys()].filter((f) => f.startsWith(prefix)).map((f) => f.slice(prefix.length));

  test('every Application has a seed copy reading GitHub, identical but for the URL', () => {
    expect(files('argocd/seed-apps/')).toEqual(files('argocd/apps/'));
    for (const name of files('argocd/apps/')) {
      const app = tree.get(`argocd/apps/${name}`)!;
      const seed = tree.get(`argocd/seed-apps/${name}`)!;
      expect(seed).not.toContain(FORGEJO);
      expect(seed).toBe(app.split(FORGEJO).join(GITHUB));
    }
  });

  test('the seed root app syncs the seed tree from GitHub; the flipped root syncs the Applications from Forgejo', () => {
    const seedRoot = tree.get('bootstrap/10-argocd-seed-root.yaml')!;
    expect(seedRoot).toContain('path: k8s/generated/argocd/seed-apps\n');
    expect(seedRoot).toContain(`repoURL: ${GITHUB}\n`);
    const root = tree.get('bootstrap/12-argocd-root.yaml')!;
    expect(root).toContain('path: k8s/generated/argocd/apps\n');
    expect(root).toContain(`repoURL: ${FORGEJO}\n`);
  });

  test('before the cutover there is no seed tree', () => {
    expect([...synthesizeHomelab(REFERENCE_HOMELAB).tree.keys()].filter((f) => f.includes('seed'))).toEqual([]);
  });
});

describe('cycles', () => {
  test('throws naming the circle when Forgejo is delivered by the root app it serves', () => {
    // GIVEN the Phase-2 cutover (the root app reads Forgejo)
    const config: HomelabConfig = { ...REFERENCE_HOMELAB, git: { ...REFERENCE_HOMELAB.git, source: 'forgejo' } };
    const { bootstrap } = synthesizeHomelab(config);
    // WHEN Forgejo also waits for the root app, as it would if Argo CD deployed it
    bootstrap.forgejoStep.dependsOn(bootstrap.argocdRoot, 'Forgejo would be an Application of the root app');
    // THEN
    expect(() => orderSteps(bootstrap.steps)).toThrow(DependencyCycleError);
    expect(() => orderSteps(bootstrap.steps)).toThrow(/dependency cycle: forgejo -> argocd-root -> forgejo\n/);
  });
});

describe('git.repoRoot', () => {
  test('fails synthesis for an Application path missing from the checkout, naming the config field', () => {
    // GIVEN a checkout that only has cilium's values file
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'repo-root-'));
    fs.mkdirSync(path.join(root, 'k8s/bootstrap/cilium'), { recursive: true });
    fs.writeFileSync(path.join(root, 'k8s/bootstrap/cilium/values.yaml'), '{}\n');
    const config: HomelabConfig = { ...REFERENCE_HOMELAB, git: { ...REFERENCE_HOMELAB.git, repoRoot: root } };
    // WHEN
    let error: unknown;
    try {
      synthesizeHomelab(config);
    } catch (e) {
      error = e;
    }
    // THEN
    expect(error).toBeInstanceOf(ConfigError);
    const problems = (error as ConfigError).problems;
    expect(problems.some((p) => p.path.startsWith('argocd.applications.coredns.sources[0]'))).toBe(true);
    expect(problems.some((p) => p.path.startsWith('argocd.applications.cilium.sources[0]'))).toBe(false);
    expect(problems.find((p) => p.path === 'argocd.applications.coredns.sources[0].valueFiles[0]')?.message).toBe(
      `application 'coredns' reads the values file 'k8s/bootstrap/coredns/values.yaml' in ${root} through $values, which does not exist; ` +
      'the sync would fail. Add the file, or point valueFiles at an existing one.');
    expect(problems.find((p) => p.path === 'argocd.applications.iam-jobs.sources[0].path')?.message).toContain('"app path does not exist"');
    fs.rmSync(root, { recursive: true, force: true });
  });
});
