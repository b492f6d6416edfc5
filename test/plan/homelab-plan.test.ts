import { repoUrlFor } from '../../lib/homelab/repo-url';
import { parseHomelabConfig } from '../../lib/config/parse';
import { allDependencies } from '../../lib/constructs/bootstrap/order-steps';
import { planSteps } from '../../lib/output/render-steps';
import { describeWait } from '../../lib/constructs/bootstrap/waits';
import { describePrecondition, describeSource } from '../../lib/plan/homelab-plan';
import ddbCluster from '../../examples/ddb-cluster.config';
import { planFor, withGit } from './util';

/** The reference homelab and its plan, built once for the file: the tests only read them. */
const reference = planFor();

describe('buildPlan, reference homelab', () => {
  const { config, bootstrap, argocd, plan, tree } = reference;

  test('steps are in planSteps order, with their files', () => {
    const planned = planSteps(bootstrap.steps);
    expect(plan.steps.map((s) => [s.index, s.stepName, s.fileName])).toEqual(planned.map((p) => [p.index, p.step.stepName, p.fileName]));
    for (const s of plan.steps) {
      const file = { 'manifest': '', 'kustomization': '/kustomization.yaml', 'helm-release': '/values.yaml' }[s.kind];
      expect(tree.has(`bootstrap/${s.fileName}${file}`)).toBe(true);
    }
    // the Helm release steps name their release; no other step does
    expect(plan.steps.filter((s) => s.kind === 'helm-release').map((s) => [s.stepName, s.helmRelease])).toEqual([
      ['cilium', 'kube-system/cilium: chart cilium 1.20.0 from https://helm.cilium.io'],
      ['longhorn', 'longhorn-system/longhorn: chart longhorn 1.12.1 from https://charts.longhorn.io'],
    ]);
    for (const s of plan.steps.filter((x) => x.kind !== 'helm-release')) {
      expect(s.helmRelease).toBeUndefined();
    }
  });

  test('each step carries every dependency with its reason, its preconditions and its waits', () => {
    for (const p of planSteps(bootstrap.steps)) {
      const s = plan.steps.find((x) => x.stepName === p.step.stepName)!;
      expect(s.dependencies).toEqual(allDependencies(p.step).map((d) => ({ stepName: d.step.stepName, reason: d.reason })));
      expect(s.waits).toEqual(p.step.waits.map(describeWait));
      expect(s.preconditions).toEqual(p.step.preconditions.map(describePrecondition));
    }
  });

  test('every Application sits in exactly one wave, its own; waves ascend', () => {
    const listed = plan.waves.flatMap((w) => w.applications.map((a) => [a.name, w.wave]));
    expect(listed.map(([n]) => n).sort()).toEqual([...argocd.applications.keys()].sort());
    for (const [name, wave] of listed) expect(wave).toBe(argocd.applications.get(name as string)!.syncWave);
    const waves = plan.waves.map((w) => w.wave);
    expect(waves).toEqual([...waves].sort((a, b) => a - b));
    expect(plan.waves.find((w) => w.wave === 0)?.role).toBe('substrate');
  });

  test('Applications carry their dependsOn, namespace, sources and file', () => {
    for (const app of argocd.applications.values()) {
      const planned = plan.waves.flatMap((w) => w.applications).find((a) => a.name === app.name)!;
      expect(planned.dependsOn).toEqual(app.dependsOn.map((d) => d.name));
      expect(planned.namespace).toBe(app.namespace);
      expect(planned.sources).toEqual(app.sources.map(describeSource));
      expect(tree.has(planned.file)).toBe(true);
    }
    const temporal = plan.waves.flatMap((w) => w.applications).find((a) => a.name === 'temporal')!;
    expect(temporal.dependsOn).toEqual(['data-schemas']);
  });

  test('the cutover names both URLs from repoUrlFor, and the files to re-apply', () => {
    const c = plan.cutover;
    expect(c.source).toBe('github');
    expect(c.githubUrl).toBe(config.git.githubSeedUrl);
    expect(c.forgejoUrl).toBe(repoUrlFor(parseHomelabConfig(withGit({ source: 'forgejo' })), bootstrap.forgejo));
    expect(c.forgejoUrl).toBe('http://forgejo-http.cicd.svc.cluster.local:3000/homelab-owner/homelab.git');
    // the files as the post-cutover runbook applies them: the GitHub seed first, then the verified flip
    expect(c.reapply).toEqual({
      seedCredential: '09-argocd-seed-credential',
      seedRoot: '10-argocd-seed-root.yaml',
      credential: '11-argocd-repo-credential',
      root: '12-argocd-root.yaml',
    });
    expect(c.branch).toBe('main');
    expect(tree.has(c.runbook)).toBe(true);
    expect(tree.has(c.rootApp.file)).toBe(true);
    expect(tree.has(c.project.file)).toBe(true);
    expect(c.flippedApplications).toEqual([...argocd.applications.keys()].sort());
    expect(c.unchangedApplications).toEqual([]);
  });

  test('the cutover credential: a Forgejo token Secret is added next to the seed deploy key, read from the bootstrap code', () => {
    const cred = plan.cutover.credential;
    expect(cred.namespace).toBe(bootstrap.repoCredential.namespace);
    expect(cred.github).toMatchObject({ name: bootstrap.repoCredential.name, auth: 'ssh', variable: 'SEED_DEPLOY_KEY', defaultPath: '~/.ssh/argocd_seed' });
    expect(cred.forgejo).toMatchObject({ name: 'homelab-repo-forgejo', auth: 'http-token', variable: 'FORGEJO_READ_TOKEN' });
    expect(cred.forgejo.name).not.toBe(cred.github.name);
  });
});

describe('buildPlan after the cutover', () => {
  const before = reference.plan;
  const { plan, bootstrap } = planFor(withGit({ source: 'forgejo' }));

  test('names the same two URLs and the same credentials, with status forgejo', () => {
    expect(plan.cutover.source).toBe('forgejo');
    expect(plan.cutover.githubUrl).toBe(before.cutover.githubUrl);
    expect(plan.cutover.forgejoUrl).toBe(before.cutover.forgejoUrl);
    expect(plan.cutover.credential).toEqual(before.cutover.credential);
    expect(bootstrap.repoCredential.url).toBe(plan.cutover.forgejoUrl);
  });

  test('the root step now also needs Forgejo', () => {
    const root = plan.steps.find((s) => s.stepName === 'argocd-root')!;
    expect(root.dependencies.map((d) => d.stepName)).toContain('forgejo');
  });

  test('the GitHub seed comes first, then the mirror is verified, then the root app flips', () => {
    expect(plan.steps.map((s) => s.stepName).slice(-4)).toEqual(['argocd-seed-credential', 'argocd-seed-root', 'argocd-repo-credential', 'argocd-root']);
    const flip = plan.steps.find((s) => s.stepName === 'argocd-repo-credential')!;
    expect(flip.dependencies.map((d) => d.stepName)).toEqual(expect.arrayContaining(['forgejo', 'argocd-seed-root']));
    expect(flip.preconditions).toEqual([
      expect.stringMatching(/^local file ~\/\.config\/homelab\/forgejo-read-token \(or \$FORGEJO_READ_TOKEN\)/),
      expect.stringMatching(/^the Forgejo pull-mirror homelab-owner\/homelab exists and its branch main is at the commit git@github\.com:homelab-owner\/homelab\.git has/),
    ]);
    expect(plan.steps.find((s) => s.stepName === 'argocd-root')!.dependencies.map((d) => d.stepName)).toContain('argocd-repo-credential');
  });
});

describe('describePrecondition and describeSource', () => {
  test('describe each kind in one line', () => {
    expect(describePrecondition({ kind: 'secret-exists', namespace: 'cicd', name: 'db', hint: 'Create it.' }))
      .toBe('Secret cicd/db exists. Create it.');
    expect(describePrecondition({ kind: 'local-file', variable: 'KEY', defaultPath: '~/k', hint: 'Make it.' }))
      .toBe('local file ~/k (or $KEY) exists. Make it.');
    expect(describePrecondition({ kind: 'secret-from-file', namespace: 'argocd', name: 's', key: 'k.txt', variable: 'KEY', defaultPath: '~/k', hint: 'Make it.' }))
      .toBe('Secret argocd/s (key k.txt) applied from local file ~/k (or $KEY). Make it.');
    expect(describePrecondition({
      kind: 'skip-when', resource: 'applications.argoproj.io/root', namespace: 'argocd', jsonPath: '{.spec.source.repoURL}', equals: 'http://f/o/r.git',
      reason: 'the root app already reads the mirror',
    })).toBe('skipped when {.spec.source.repoURL} of applications.argoproj.io/root in argocd is http://f/o/r.git '
      + '(the root app already reads the mirror); otherwise applied. An answer other than that value or NotFound stops the runbook.');
    expect(describePrecondition({
      kind: 'note-when-exists', resource: 'clusters.postgresql.cnpg.io/db', namespace: 'cicd', description: 'Cluster cicd/db',
      whenExists: 'its bootstrap ran when it was created', whenAbsent: 'it is restored now',
    })).toBe('before applying, the runbook says whether Cluster cicd/db exists: if it does, its bootstrap ran when it was created; '
      + 'if not, it is restored now. An answer other than the object or NotFound stops the runbook.');
    expect(describeSource({ kind: 'git-path', path: 'k8s/a', exclude: '*-values.yaml' })).toBe('git k8s/a (exclude *-values.yaml)');
    expect(describeSource({ kind: 'plugin', path: '.', pluginName: 'sops' })).toBe('plugin sops at .');
    expect(describeSource({ kind: 'helm-chart', repoURL: 'oci://ghcr.io/x', chart: 'c', version: '1.0.0' })).toBe('helm c 1.0.0 from oci://ghcr.io/x/c');
  });
});

test('the ddb-cluster example plans its shared cluster step', () => {
  const { plan } = planFor(ddbCluster);
  expect(plan.steps.map((s) => s.stepName)).toContain('postgres-ddb-cluster');
});
