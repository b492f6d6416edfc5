import { k8s } from 'cdk8s-plus-30';
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import { validateConfig } from '../../lib/config/validate-config';
import { isNotAppliedFile } from '../../lib/validation/manifest-documents';
import { Testing } from 'cdk8s';
import { parse, parseAllDocuments } from 'yaml';
import { buildArgoCdTree } from '../../lib/homelab/argocd-chart';
import { DEFAULT_ARGOCD } from '../../lib/config/default-catalog';
import { REFERENCE_HOMELAB } from '../../lib/config/defaults';
import { parseHomelabConfig } from '../../lib/config/parse';
import { writeTree } from '../../lib/output/output-tree';
import { validateOutput } from '../../lib/validation/validate-output';
import { config, FORGEJO, FORGEJO_REPO_URL, SEED_URL, tree } from '../constructs/argocd/util';
import { findTool, testWith } from '../tools';

const YAMLLINT = findTool('yamllint');

const forgejoSource = () => config({ git: { ...REFERENCE_HOMELAB.git, source: 'forgejo' } });

test('renders projects, root, one file per Application, and the generated files, sorted', () => {
  // WHEN
  const t = tree();
  const files = [...t.render().keys()];
  // THEN
  expect(files).toEqual([...files].sort());
  expect(files).toContain('argocd/projects/homelab.yaml');
  expect(files).toContain('argocd/root/root.yaml');
  expect(files).toContain('values/temporal.yaml');
  expect(files).toContain('data-schemas/ddb-cluster.yaml');
  expect(files).toContain('forgejo-mirror/forgejo-mirror.yaml');
  const apps = files.filter((f) => f.startsWith('argocd/apps/'));
  expect(apps).toEqual([...t.applications.keys()].map((n) => `argocd/apps/${n}.yaml`).sort());
  // + projects, root, and the generated data-schemas, forgejo-mirror, temporal values and backup-checks files, and the
  // delivery parts' own files (each part's objects and extra files, counted once per file)
  const deliveryFiles = new Set(t.delivery.flatMap((p) => [...p.files.map(([, file]) => file), ...(p.extraFiles?.keys() ?? [])]));
  expect(files).toHaveLength(apps.length + 6 + deliveryFiles.size);
  for (const name of ['projects', 'sops-secrets', 'data-schemas', 'forgejo-mirror', 'temporal']) expect(t.applications.has(name)).toBe(true);
});

test('each Application file holds exactly that Application, in project homelab, namespace argocd', () => {
  const files = tree().render();
  for (const [path, content] of files) {
    if (!path.startsWith('argocd/apps/')) continue;
    const docs = content.split('---\n').filter((d) => d.trim()).map((d) => parse(d));
    expect(docs).toHaveLength(1);
    expect(docs[0]).toMatchObject({ kind: 'Application', metadata: { namespace: 'argocd' }, spec: { project: 'homelab' } });
    expect(path).toBe(`argocd/apps/${docs[0].metadata.name}.yaml`);
  }
});

test('synthesizing twice gives the same bytes', () => {
  const a = tree().render();
  const b = tree().render();
  expect([...b.entries()]).toEqual([...a.entries()]);
});

test('every path an Application names is computed from git.distPath', () => {
  const t = tree(config({ git: { ...REFERENCE_HOMELAB.git, distPath: 'deploy/out' } }));
  const files = t.render();
  expect(parse(files.get('argocd/root/root.yaml')!).spec.source.path).toBe('deploy/out/argocd/apps');
  expect(parse(files.get('argocd/apps/projects.yaml')!).spec.source.path).toBe('deploy/out/argocd/projects');
  expect(parse(files.get('argocd/apps/data-schemas.yaml')!).spec.source.path).toBe('deploy/out/data-schemas');
  expect(parse(files.get('argocd/apps/forgejo-mirror.yaml')!).spec.source.path).toBe('deploy/out/forgejo-mirror');
  expect(parse(files.get('argocd/apps/temporal.yaml')!).spec.sources[0].helm.valueFiles).toEqual(['$values/deploy/out/values/temporal.yaml']);
});

test('the project contains exactly the repos the Applications use, plus the other URL of the homelab repo', () => {
  const t = tree();
  const used = new Set([...t.applications.values(), t.root].flatMap((a) => a.sourceRepoUrls));
  const project = parse(t.render().get('argocd/projects/homelab.yaml')!);
  // Both homelab URLs, so the cutover never strands an Application on a URL the project refuses.
  expect(new Set(project.spec.sourceRepos)).toEqual(new Set([...used, FORGEJO_REPO_URL]));
  expect(project.spec.sourceRepos).toHaveLength(used.size + 1);
  expect(project.spec.sourceRepos.slice(0, 2)).toEqual([SEED_URL, FORGEJO_REPO_URL]);
  expect(project.spec.sourceRepos).not.toContain('*');
});

test('the project\'s destinations are the namespaces the Applications deploy to', () => {
  const t = tree();
  const project = parse(t.render().get('argocd/projects/homelab.yaml')!);
  const namespaces = [...new Set([...t.applications.values(), t.root].flatMap((a) => a.namespaces))].sort();
  expect(project.spec.destinations).toEqual(namespaces.map((namespace) => ({ namespace, server: 'https://kubernetes.default.svc' })));
});

test('the Phase-2 cutover flips every repoURL, and nothing else', () => {
  // GIVEN
  const github = tree().render();
  // WHEN
  const forgejo = tree(forgejoSource()).render();
  // THEN
  expect([...forgejo.keys()]).toEqual([...github.keys()]);
  let flipped = 0;
  for (const [path, before] of github) {
    const a = before.split('\n');
    const b = forgejo.get(path)!.split('\n');
    expect(b).toHaveLength(a.length);
    a.forEach((line, i) => {
      if (line === b[i]) return;
      flipped += 1;
      // Only URL lines differ, and only by the repository URL.
      expect(line).toMatch(/^\s*(-\s+)?(repoURL: )?git@github\.com:homelab-owner\/homelab\.git$/);
      expect(b[i]).toBe(line.replace(SEED_URL, FORGEJO_REPO_URL));
    });
  }
  expect(flipped).toBeGreaterThan(0);
  expect(forgejo.get('argocd/root/root.yaml')).toContain(`repoURL: ${FORGEJO_REPO_URL}`);
  // The project permits both URLs before and after, so it does not change at all.
  expect(forgejo.get('argocd/projects/homelab.yaml')).toBe(github.get('argocd/projects/homelab.yaml'));
  const rest = [...forgejo.entries()].filter(([p]) => p !== 'argocd/projects/homelab.yaml').map(([, c]) => c);
  expect(rest.join('\n')).not.toContain(SEED_URL);
});

test('no token or secret value reaches the output', () => {
  const all = [...tree().render().values()].join('\n');
  expect(all).not.toMatch(/^kind: Secret$/m);
  expect(all).toContain('secretKeyRef');
});

test('references the Secrets it needs, for the bootstrap to check', () => {
  expect(tree().secretReferences.map((s) => `${s.namespace}/${s.name}`)).toEqual([
    // Argo CD Image Updater's registry read and git write credentials (delivery.imageUpdater)
    'argocd/forgejo-registry-read', 'argocd/image-updater-github',
    'cicd/forgejo-admin-token', 'cicd/forgejo-github-mirror-token', 'ddb/ddb-cluster-authentik', 'ddb/ddb-cluster-temporal',
    // the object-store credentials of the Argo CD-delivered ddb-cluster's backups (sops-secrets delivers them)
    'ddb/homelab-backup-s3',
    // the E2E journeys' artifacts store and SSO test user, in each namespace a journey runs in
    'e2e-smoke/e2e-artifacts-s3', 'e2e-smoke/e2e-sso-user', 'e2e-smoke/e2e-suite-git',
    // the build runner's registration token (delivery.build)
    'forgejo-runner/forgejo-runner-registration',
    'hello/e2e-artifacts-s3', 'hello/e2e-suite-git',
    // the cosign public key and the registry credential of Kyverno's signature policies
    'kyverno/cosign-public-key', 'kyverno/forgejo-registry-read',
    // the same credentials, read by the restore drills' ObjectStores in their own namespace
    'restore-drill/homelab-backup-s3',
    'status/e2e-artifacts-s3', 'status/e2e-sso-user', 'status/e2e-suite-git',
    'temporal/ddb-cluster-temporal',
  ]);
});

describe('config errors', () => {
  test('fails config validation for an Application named like a Phase-0 component', () => {
    const cfg = { ...REFERENCE_HOMELAB, argocd: { ...DEFAULT_ARGOCD, applications: { ...DEFAULT_ARGOCD.applications, 'forgejo-db': DEFAULT_ARGOCD.applications.duckdns } } };
    expect(validateConfig(cfg).all.map((p) => p.path)).toEqual(['argocd.applications.forgejo-db']);
  });

  test('throws on an unknown dependency', () => {
    // a tree without the cilium Application: Cilium stays the runbook's (cilium.adoptedBy: null)
    const cfg = config({
      cilium: { adoptedBy: null },
      argocd: { project: 'homelab', applications: { demo: { syncWave: 8, namespace: 'demo', sources: [{ kind: 'git-path', path: 'd' }], dependsOn: ['nope'] } } },
      // without the catalog's Prometheus, the reference delivery's canary could not be analysed
      delivery: undefined,
    });
    expect(() => tree(cfg)).toThrow('argocd.applications.demo.dependsOn: \'nope\' is not an Application of the tree. ' +
      'Use a key of argocd.applications or a generated Application.');
  });

  test('throws on the default project', () => {
    expect(() => tree(config({ argocd: { ...DEFAULT_ARGOCD, project: 'default' } }))).toThrow(/^AppProject name 'default' is not allowed/);
  });

  test('throws on an Application using an unmanaged directory', () => {
    const cfg = config({ argocd: { ...DEFAULT_ARGOCD, applications: { ...DEFAULT_ARGOCD.applications, llm: { syncWave: 8, namespace: 'llm', sources: [{ kind: 'git-path', path: 'k8s/apps/llm/ollama' }] } } } });
    expect(() => tree(cfg)).toThrow('argocd.applications.llm: path \'k8s/apps/llm/ollama\' is inside \'k8s/apps/llm\', which argocd.unmanaged ' +
      'declares experimental and unmanaged. Remove it from argocd.unmanaged or stop using the path.');
  });

  test('throws on namespace metadata for a Phase-0 namespace', () => {
    const cfg = config({ argocd: { ...DEFAULT_ARGOCD, applications: { ...DEFAULT_ARGOCD.applications, 'cicd-config': {
      ...DEFAULT_ARGOCD.applications['cicd-config'], syncOptions: ['CreateNamespace'], managedNamespaceMetadata: { labels: { a: 'b' } },
    } } } });
    expect(() => tree(cfg)).toThrow('argocd.applications.cicd-config: namespace \'cicd\' is created in Phase 0 (namespaces.cicd), which owns ' +
      'its labels. Remove managedNamespaceMetadata and CreateNamespace from the Application, or remove the namespace from namespaces.');
  });

  test('render fails when two Applications use the same path', () => {
    const cfg = config({ argocd: { ...DEFAULT_ARGOCD, applications: { ...DEFAULT_ARGOCD.applications, 'duckdns-2': DEFAULT_ARGOCD.applications.duckdns } } });
    expect(() => tree(cfg).render()).toThrow('applications \'duckdns\' and \'duckdns-2\' both use path \'k8s/apps/duckdns\'');
  });

  test('throws on a Temporal chart version drift from the config', () => {
    const cfg = config({ argocd: { ...DEFAULT_ARGOCD, temporal: { ...DEFAULT_ARGOCD.temporal!, chartVersion: '1.7.0' } } });
    expect(() => tree(cfg)).toThrow(/^temporal: chart version '1\.7\.0' differs from '1\.6\.0'/);
  });
});

test('the entry point defines the ArgoCd chart in the given app', () => {
  const app = Testing.app();
  const t = buildArgoCdTree(app, { config: parseHomelabConfig(REFERENCE_HOMELAB), forgejo: FORGEJO });
  expect(t.node.id).toBe('ArgoCd');
  expect(t.root.name).toBe('root');
  expect(t.project.name).toBe('homelab');
});

test('every rendered object passes the strict schemas of its pinned API and the output rules', () => {
  // GIVEN the tree of the cutover side (the default side is validated by every synth)
  const t = tree(forgejoSource());
  const rendered = t.render();
  // WHEN validated as synthesis validates dist/ (schemas/: Kubernetes 1.30 and the pinned CRDs, strict), with the one Pod
  // Security exception synthesis passes (the build runner's rootless BuildKit container)
  const problems = validateOutput(rendered, { podSecurityExceptions: t.delivery.flatMap((p) => p.podSecurityExceptions ?? []) });
  // THEN nothing is wrong, and there was plenty to check
  expect(problems).toEqual([]);
  const objects = [...rendered].filter(([file]) => !file.startsWith('values/') && !isNotAppliedFile(file))
    .flatMap(([, content]) => parseAllDocuments(content).map((d) => d.toJS()));
  expect(objects.length).toBeGreaterThan(30);
  expect(new Set(objects.map((o) => o.kind))).toEqual(new Set(['AppProject', 'Application', 'Cluster', 'ConfigMap', 'CronJob', 'Database', 'Job', 'ObjectStore', 'PodMonitor',
    'PrometheusRule', 'Role', 'RoleBinding', 'ScheduledBackup', 'ServiceAccount',
    // the app tier (delivery.apps) and the kustomizations of the delivery folders
    'AnalysisTemplate', 'Deployment', 'Kustomization', 'Rollout', 'Service',
    // Kyverno's signature policies
    'ImageValidatingPolicy',
    // Argo CD Image Updater's per-app CRs
    'ImageUpdater']));
});

testWith(YAMLLINT)('the rendered files pass yamllint (relaxed, strict), as lint:dist runs it', () => {
  const dir = fs.mkdtempSync(`${os.tmpdir()}/argocd-tree-`);
  writeTree(tree().render(), `${dir}/dist`);
  const r = spawnSync(YAMLLINT.command!, ['-d', '{extends: relaxed, rules: {line-length: disable}}', '-s', `${dir}/dist`], { encoding: 'utf8' });
  fs.rmSync(dir, { recursive: true, force: true });
  expect(r.stdout).toBe('');
  expect(r.status).toBe(0);
});

test('throws when the chart defines an object that no file receives: every object is output', () => {
  // GIVEN the tree, and an object nobody placed
  const t = tree();
  new k8s.KubeConfigMap(t, 'Stray', { metadata: { name: 'stray', namespace: 'argocd' } });
  // THEN
  expect(() => t.render()).toThrow("ArgoCd/Stray: ConfigMap 'stray' is defined in the Argo CD tree but written to no file");
});
