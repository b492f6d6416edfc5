import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { Testing } from 'cdk8s';
import { k8s } from 'cdk8s-plus-30';
import { BootstrapStep } from '../../lib/constructs/bootstrap/bootstrap-step';
import { StepWait } from '../../lib/constructs/bootstrap/waits';
import { helmValuesFile, planSteps, stepFiles } from '../../lib/output/render-steps';
import { FIELD_MANAGER_PREFIX, fieldManagerFor, renderRunbook, RunbookOptions } from '../../lib/output/render-runbook';
import { buildSteps, OPERATOR_MANIFEST, OPERATOR_PIN } from '../fixtures/runbook-fixture';
import { findTool, testWith } from '../tools';

const SHELLCHECK = findTool('shellcheck');

const OPTIONS: RunbookOptions = { minKubectlVersion: '1.29', manifestSha256: OPERATOR_PIN };

/** The lines of the runbook's main part, after the helpers. */
function runbookCalls(script: string): string[] {
  return script.slice(script.indexOf('\n# The runbook\n')).split('\n').filter((l) => l !== '' && !l.startsWith('#'));
}

/** One step named `name` that defines a single Namespace. */
function namespaceStep(app: ReturnType<typeof Testing.app>, name: string): BootstrapStep {
  const step = new BootstrapStep(app, name, { stepName: name, summary: `${name} summary` });
  new k8s.KubeNamespace(step, 'Ns', { metadata: { name } });
  return step;
}

describe('renderRunbook', () => {
  test('renders one call per action, in step order, each step with its own field manager', () => {
    // GIVEN
    const planned = buildSteps();

    // WHEN
    const script = renderRunbook(planned, OPTIONS);

    // THEN
    expect(planned.map(fieldManagerFor)).toEqual([
      'homelab-bootstrap-namespaces', 'homelab-bootstrap-operator', 'homelab-bootstrap-database', 'homelab-bootstrap-repo-credential',
    ]);
    expect(runbookCalls(script).filter((l) => /^(step|apply|apply_staged|delete_job|need_\w+|wait_\w+) /.test(l))).toEqual([
      "need_file SEED_DEPLOY_KEY ssh-private-key 'Create a deploy key: ssh-keygen -t ed25519 -f ~/.ssh/seed_key'",
      'step 1 namespaces namespaces',
      'apply namespaces -f 01-namespaces.yaml',
      "step 2 operator 'the widget operator (release manifest)'",
      `apply_staged operator 02-operator ${OPERATOR_MANIFEST.url}`,
      'wait_crds 120 widgets.example.com gadgets.example.com',
      'wait_rollout operator-system deployment/operator 120',
      "wait_webhook 120 'widget webhooks answer a dry-run create' " +
        '\'{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"probe","namespace":"operator-system"},' +
        '"spec":{"note":"it\'\\\'\'s"}}\'',
      "step 3 database 'a database and a Job that waits for it'",
      'delete_job demo wait-for-db',
      'apply database -f 03-database.yaml',
      "wait_condition demo clusters.example.com/db Ready '{.status.phase}' 600",
      "wait_job demo wait-for-db 900 clusters.example.com/db '{.status.phase}' databases.example.com/app '{.status.message}'",
      "step 4 repo-credential 'Argo CD repository credential'",
      "need_secret argocd argocd-secret 'Apply the Argo CD step first.'",
      'apply_staged repo-credential 04-repo-credential SEED_DEPLOY_KEY=sshPrivateKey',
    ]);
  });

  test('applies with --server-side, --force-conflicts and the step field manager', () => {
    const script = renderRunbook(buildSteps(), OPTIONS);
    expect(FIELD_MANAGER_PREFIX).toBe('homelab-bootstrap');
    expect(script).toContain('kubectl apply --server-side --force-conflicts "--field-manager=homelab-bootstrap-$1" "$2" "$3"');
  });

  test('default options: title, poll interval, request timeout, no cluster pinned', () => {
    const script = renderRunbook(buildSteps(), OPTIONS);
    expect(script.split('\n').slice(0, 2)).toEqual(['#!/usr/bin/env bash', '# Homelab Phase-0 bootstrap']);
    expect(script).toContain("\nTITLE='Homelab Phase-0 bootstrap'\n");
    expect(script).toContain('\nPOLL_SECONDS=5\n');
    expect(script).toContain('\nREQUEST_TIMEOUT=60s\n');
    expect(script).toContain("\nEXPECTED_CONTEXT=''\nEXPECTED_API_SERVER=''\nEXPECTED_KUBE_SYSTEM_UID=''\n");
  });

  test('all options', () => {
    // GIVEN
    const options: Required<RunbookOptions> = {
      minKubectlVersion: '1.31.2',
      minHelmVersion: '3.14',
      title: "Lab's bootstrap",
      pollIntervalSeconds: 2,
      requestTimeoutSeconds: 20,
      expectedCluster: { context: 'admin@lab', apiServer: 'https://10.0.0.1:6443', kubeSystemUid: '0f1e2d3c-4b5a-4697-8877-665544332211' },
      manifestSha256: { [OPERATOR_MANIFEST.url]: 'unpinned' },
    };

    // WHEN
    const script = renderRunbook(buildSteps(), options);

    // THEN
    expect(script).toContain("\n# Lab's bootstrap\n");
    expect(script).toContain("\nTITLE='Lab'\\''s bootstrap'\n");
    expect(script).toContain('\nMIN_KUBECTL_VERSION=1.31.2\n');
    expect(script).toContain('\nPOLL_SECONDS=2\n');
    expect(script).toContain('\nREQUEST_TIMEOUT=20s\n');
    expect(script).toContain('\nEXPECTED_CONTEXT=admin@lab\nEXPECTED_API_SERVER=https://10.0.0.1:6443\n'
      + 'EXPECTED_KUBE_SYSTEM_UID=0f1e2d3c-4b5a-4697-8877-665544332211\n');
    expect(script).toContain(`\nfetch_manifest operator ${OPERATOR_MANIFEST.url} unpinned\n`);
  });

  test('every kubectl the script runs goes through kube(), which bounds it with --request-timeout', () => {
    const script = renderRunbook(buildSteps({ ageKeySecret: true, generatedSecret: true }), OPTIONS);
    // the only kubectl invocation is inside kube(); the others are `command -v kubectl` and text
    const code = script.slice(script.indexOf('\nUSAGE\n}\n'));
    const invocations = code.split('\n').filter((l) => /(^|[\s(|])kubectl\s/.test(l) && !/^\s*#/.test(l)
      && !/(printf|plan|failed|inspect|quote|waiting|passed) /.test(l) && !l.includes('command -v kubectl'));
    expect(invocations).toEqual(['  kubectl "--request-timeout=$REQUEST_TIMEOUT" "$@"']);
  });

  test('local files are checked, then the cluster is confirmed, before the first step', () => {
    const calls = runbookCalls(renderRunbook(buildSteps({ ageKeySecret: true }), OPTIONS));
    const first = calls.findIndex((l) => l.startsWith('step '));
    expect(calls.slice(first - 5, first)).toEqual([
      'check_kubectl',
      'check_manifest_tools 0 operator.yaml',
      "need_file SEED_DEPLOY_KEY ssh-private-key 'Create a deploy key: ssh-keygen -t ed25519 -f ~/.ssh/seed_key'",
      "need_file SOPS_AGE_KEY_FILE age-identity 'Create an age identity: age-keygen -o ~/.config/sops/age/keys.txt'",
      'confirm_cluster',
    ]);
    expect(calls).toContain('default_path SOPS_AGE_KEY_FILE "$HOME"/.config/sops/age/keys.txt');
  });

  test('a Secret from a local file is applied before the step, after its other checks', () => {
    const calls = runbookCalls(renderRunbook(buildSteps({ ageKeySecret: true }), OPTIONS));
    const step = calls.indexOf("step 4 repo-credential 'Argo CD repository credential'");
    expect(calls.slice(step + 1)).toEqual([
      "need_secret argocd argocd-secret 'Apply the Argo CD step first.'",
      'install_secret_file repo-credential argocd sops-age keys.txt SOPS_AGE_KEY_FILE',
      'apply_staged repo-credential 04-repo-credential SEED_DEPLOY_KEY=sshPrivateKey',
      'finish',
    ]);
  });

  test('throws on a request timeout that is not a whole number of seconds of at least 1', () => {
    for (const bad of [0, 1.5, -3]) {
      expect(() => renderRunbook(buildSteps(), { ...OPTIONS, requestTimeoutSeconds: bad }))
        .toThrow(`runbook: requestTimeoutSeconds must be a whole number of seconds of at least 1, got ${bad}`);
    }
  });

  test('throws on an expected cluster field that is empty or has spaces', () => {
    expect(() => renderRunbook(buildSteps(), { ...OPTIONS, expectedCluster: { context: 'my lab' } }))
      .toThrow('runbook: expectedCluster.context must be non-empty, without spaces or control characters, got "my lab"');
    expect(() => renderRunbook(buildSteps(), { ...OPTIONS, expectedCluster: { kubeSystemUid: '' } }))
      .toThrow('runbook: expectedCluster.kubeSystemUid must be non-empty');
  });

  test('throws when two steps read one variable in different formats', () => {
    const app = Testing.app();
    const [a, b] = [namespaceStep(app, 'a'), namespaceStep(app, 'b')];
    a.addPrecondition({ kind: 'local-file', variable: 'KEY', defaultPath: '~/k', hint: 'h', format: 'token' });
    b.addPrecondition({ kind: 'secret-from-file', namespace: 'b', name: 's', key: 'k', variable: 'KEY', defaultPath: '~/k', hint: 'h' });
    expect(() => renderRunbook(planSteps([a, b]), OPTIONS))
      .toThrow("bootstrap steps 'a' and 'b' both read KEY but expect different formats (token and any)");
  });

  test('throws on a Secret from a file whose key is not a plain Secret key', () => {
    const app = Testing.app();
    const a = namespaceStep(app, 'a');
    a.addPrecondition({ kind: 'secret-from-file', namespace: 'a', name: 's', key: '../k', variable: 'KEY', defaultPath: '~/k', hint: 'h' });
    expect(() => renderRunbook(planSteps([a]), OPTIONS))
      .toThrow("bootstrap step 'a': Secret a/s from KEY needs a plain key (letters, digits, '-', '_', '.'), got '../k'");
  });

  test('a generated Secret names its encoding only when it is hex; the default call keeps its four arguments', () => {
    const app = Testing.app();
    const a = namespaceStep(app, 'a');
    a.addPrecondition({ kind: 'generated-secret', namespace: 'a', name: 'plain', key: 'k', bytes: 32 });
    a.addPrecondition({ kind: 'generated-secret', namespace: 'a', name: 'b64', key: 'k', bytes: 32, encoding: 'base64' });
    a.addPrecondition({ kind: 'generated-secret', namespace: 'a', name: 'url-safe', key: 'password', bytes: 32, encoding: 'hex' });
    const calls = runbookCalls(renderRunbook(planSteps([a]), OPTIONS));
    expect(calls.filter((c) => c.startsWith('ensure_secret'))).toEqual([
      'ensure_secret a plain k 32',
      'ensure_secret a b64 k 32',
      'ensure_secret a url-safe password 32 hex',
    ]);
  });

  test('throws on a generated Secret with an unknown encoding, naming it and the allowed ones', () => {
    const app = Testing.app();
    const a = namespaceStep(app, 'a');
    a.addPrecondition({ kind: 'generated-secret', namespace: 'a', name: 's', key: 'k', bytes: 32, encoding: 'base32' as 'hex' });
    expect(() => renderRunbook(planSteps([a]), OPTIONS))
      .toThrow("bootstrap step 'a': generated Secret a/s has encoding 'base32'; use 'base64' or 'hex'");
  });

  test('the header states what the script needs, lists the steps and the local files', () => {
    const script = renderRunbook(buildSteps(), OPTIONS);
    const header = script.slice(0, script.indexOf('set -euo pipefail'));
    expect(header).toContain('# Needs: bash, coreutils, sed, grep, kubectl >= 1.29 and curl (downloads the pinned release manifests, '
      + 'unless $HOMELAB_MANIFESTS has them).\n');
    expect(header).toContain('# Every kubectl request gives up after 60s (--request-timeout); waits have their own timeouts.');
    expect(header).toContain('# Usage: bootstrap.sh [--dry-run] [--yes] [--help]');
    // The file that writes the script, so a reader of dist/ knows where to change it.
    expect(header).toContain('# Generated by lib/output/render-runbook.ts when the homelab is synthesized; do not edit by hand.');
    expect(header).toContain('#    3. database: a database and a Job that waits for it\n');
    expect(header).toContain('#   SEED_DEPLOY_KEY      Create a deploy key: ssh-keygen -t ed25519 -f ~/.ssh/seed_key (default: ~/.ssh/seed_key)');
    expect(script).toContain('\nset -euo pipefail\n');
  });

  test('a default path under ~ is expanded through $HOME, other paths are quoted', () => {
    // GIVEN
    const app = Testing.app();
    const a = namespaceStep(app, 'a');
    a.addPrecondition({ kind: 'local-file', variable: 'HOME_KEY', defaultPath: '~/keys/a b', hint: 'h' });
    a.addPrecondition({ kind: 'local-file', variable: 'ABS_KEY', defaultPath: '/etc/key', hint: 'h' });

    // WHEN
    const calls = runbookCalls(renderRunbook(planSteps([a]), OPTIONS));

    // THEN
    expect(calls).toContain('default_path HOME_KEY "$HOME"/\'keys/a b\'');
    expect(calls).toContain('default_path ABS_KEY /etc/key');
    // without copyAs the file is only checked, and the step is applied from the output folder
    expect(calls).toContain('apply a -f 01-a.yaml');
  });

  test('a local file read by two steps is checked once', () => {
    const app = Testing.app();
    const [a, b] = [namespaceStep(app, 'a'), namespaceStep(app, 'b')];
    for (const s of [a, b]) s.addPrecondition({ kind: 'local-file', variable: 'KEY', defaultPath: '~/k', hint: 'h' });
    const calls = runbookCalls(renderRunbook(planSteps([a, b]), OPTIONS));
    expect(calls.filter((l) => l.startsWith('need_file '))).toEqual(['need_file KEY any h']);
    expect(calls.filter((l) => l.startsWith('default_path '))).toEqual(['default_path KEY "$HOME"/k']);
  });

  test('deletes a Job in the namespace kustomize puts it in', () => {
    // GIVEN
    const app = Testing.app();
    const step = new BootstrapStep(app, 'S', { stepName: 'jobs', summary: 'jobs' });
    step.useKustomization({ remoteResources: [], namespace: 'target' });
    new k8s.KubeJob(step, 'J', { metadata: { name: 'migrate', namespace: 'ignored' }, spec: { template: { spec: { containers: [] } } } });

    // WHEN
    const calls = runbookCalls(renderRunbook(planSteps([step]), OPTIONS));

    // THEN
    expect(calls).toContain('delete_job target migrate');
  });

  test('is deterministic and carries no date', () => {
    const first = renderRunbook(buildSteps(), OPTIONS);
    const second = renderRunbook(buildSteps(), OPTIONS);
    expect(second).toBe(first);
    expect(first).not.toMatch(/\b20\d\d-\d\d-\d\d\b/);
    expect(first).not.toMatch(/\bdate\b/);
  });

  test('throws on a malformed minKubectlVersion', () => {
    expect(() => renderRunbook(buildSteps(), { minKubectlVersion: 'v1.29' }))
      .toThrow("runbook: minKubectlVersion must be MAJOR.MINOR or MAJOR.MINOR.PATCH (e.g. '1.29'), got 'v1.29'");
  });

  test('throws on a poll interval below 0.1 s or with more than 3 decimals; takes fractions sleep understands', () => {
    const message = (n: number) =>
      `runbook: pollIntervalSeconds must be a number of seconds of at least 0.1 with at most 3 decimals (e.g. 5 or 0.25), got ${n}`;
    for (const bad of [0, 0.05, -1, NaN, 0.1234, 1e21]) {
      expect(() => renderRunbook(buildSteps(), { ...OPTIONS, pollIntervalSeconds: bad })).toThrow(message(bad));
    }
    expect(renderRunbook(buildSteps(), { ...OPTIONS, pollIntervalSeconds: 0.25 })).toContain('\nPOLL_SECONDS=0.25\n');
  });

  test('throws when copyAs is used on a manifest-file step', () => {
    const app = Testing.app();
    const a = namespaceStep(app, 'a');
    a.addPrecondition({ kind: 'local-file', variable: 'KEY', defaultPath: '~/k', hint: 'h', copyAs: 'key' });
    expect(() => renderRunbook(planSteps([a]), OPTIONS))
      .toThrow("bootstrap step 'a': local file KEY has copyAs 'key', but the step is a single manifest file.");
  });

  test('throws when copyAs is not a plain file name', () => {
    const app = Testing.app();
    const a = new BootstrapStep(app, 'a', { stepName: 'a', summary: 's' });
    a.useKustomization({ remoteResources: [] });
    a.addPrecondition({ kind: 'local-file', variable: 'KEY', defaultPath: '~/k', hint: 'h', copyAs: '../key' });
    expect(() => renderRunbook(planSteps([a]), OPTIONS))
      .toThrow("bootstrap step 'a': copyAs of local file KEY must be a plain file name, got '../key'");
  });

  test('throws when two steps default one variable to different files', () => {
    const app = Testing.app();
    const [a, b] = [namespaceStep(app, 'a'), namespaceStep(app, 'b')];
    a.addPrecondition({ kind: 'local-file', variable: 'KEY', defaultPath: '~/one', hint: 'h' });
    b.addPrecondition({ kind: 'local-file', variable: 'KEY', defaultPath: '~/two', hint: 'h' });
    expect(() => renderRunbook(planSteps([a, b]), OPTIONS))
      .toThrow("bootstrap steps 'a' and 'b' both read KEY but default it to different files ('~/one' and '~/two')");
  });

  test('throws on a local-file variable that is not a shell variable name', () => {
    const app = Testing.app();
    const a = namespaceStep(app, 'a');
    a.addPrecondition({ kind: 'local-file', variable: 'seed-key', defaultPath: '~/k', hint: 'h' });
    expect(() => renderRunbook(planSteps([a]), OPTIONS))
      .toThrow("bootstrap step 'a': local-file variable 'seed-key' must be an upper-case shell variable name");
  });

  test('throws on a Job without a namespace', () => {
    const app = Testing.app();
    const step = new BootstrapStep(app, 'S', { stepName: 'jobs', summary: 'jobs' });
    new k8s.KubeJob(step, 'J', { metadata: { name: 'migrate' }, spec: { template: { spec: { containers: [] } } } });
    expect(() => renderRunbook(planSteps([step]), OPTIONS))
      .toThrow("bootstrap step 'jobs': Job 'migrate' has no namespace.");
  });

  test('throws on a wait timeout that is not a whole number of seconds', () => {
    const app = Testing.app();
    const a = namespaceStep(app, 'a');
    a.addWait({ kind: 'rollout', namespace: 'a', deployment: 'd', timeoutSeconds: 0.5 });
    expect(() => renderRunbook(planSteps([a]), OPTIONS))
      .toThrow('runbook: a wait timeout must be a whole number of seconds of at least 1, got 0.5');
  });

  testWith(SHELLCHECK)('the script is shellcheck-clean', () => {
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'runbook-lint-')), 'bootstrap.sh');
    fs.writeFileSync(file, renderRunbook(buildSteps({ ageKeySecret: true, generatedSecret: true }), OPTIONS));
    const r = spawnSync(SHELLCHECK.command!, ['--shell=bash', '--severity=style', file], { encoding: 'utf8' });
    expect(r.stdout + r.stderr).toBe('');
    expect(r.status).toBe(0);
  });
});

describe('renderRunbook: local files checked at their step, and the mirror check', () => {
  const MIRROR = {
    kind: 'git-mirror-current' as const,
    seedUrl: 'git@github.com:o/r.git',
    seedKeyVariable: 'SEED_DEPLOY_KEY',
    branch: 'main',
    forgejoNamespace: 'cicd',
    forgejoDeployment: 'forgejo',
    forgejoPort: 3000,
    repoOwner: 'o',
    repoName: 'r',
    tokenVariable: 'TOKEN',
    timeoutSeconds: 60,
    hint: 'the mirror Application creates it',
  };
  function flipSteps(mirror: Partial<typeof MIRROR> = {}) {
    const app = Testing.app();
    const seed = namespaceStep(app, 'seed');
    seed.addPrecondition({ kind: 'local-file', variable: 'SEED_DEPLOY_KEY', defaultPath: '~/.ssh/seed', hint: 'make a key', format: 'ssh-private-key' });
    const flip = namespaceStep(app, 'flip');
    flip.addPrecondition({ kind: 'local-file', variable: 'TOKEN', defaultPath: '~/token', hint: 'make a token', format: 'token', checkedAt: 'step' });
    flip.addPrecondition({ ...MIRROR, ...mirror });
    flip.dependsOn(seed, 'the seed first');
    return planSteps([seed, flip]);
  }

  test('a file checked at its step is not needed in the preflight, and is checked before the mirror, in its step', () => {
    const calls = runbookCalls(renderRunbook(flipSteps(), OPTIONS));
    expect(calls).toContain('default_path TOKEN "$HOME"/token');
    expect(calls.filter((c) => c.startsWith('need_file'))).toEqual([
      'need_file SEED_DEPLOY_KEY ssh-private-key \'make a key\'',
      'need_file TOKEN token \'make a token\'',
    ]);
    const at = (prefix: string) => calls.findIndex((c) => c.startsWith(prefix));
    expect(at('need_file SEED_DEPLOY_KEY')).toBeLessThan(at('confirm_cluster'));
    expect(at('step 2 flip')).toBeLessThan(at('need_file TOKEN'));
    expect(at('need_file TOKEN')).toBeLessThan(at('verify_mirror'));
    expect(at('verify_mirror')).toBeLessThan(at('apply flip'));
    expect(calls[at('verify_mirror')]).toBe("verify_mirror 60 git@github.com:o/r.git SEED_DEPLOY_KEY main cicd forgejo 3000 o r TOKEN 'the mirror Application creates it'");
  });

  test('throws when the mirror check reads a file no step declares', () => {
    expect(() => renderRunbook(flipSteps({ tokenVariable: 'OTHER' }), OPTIONS))
      .toThrow("bootstrap step 'flip': the mirror check reads $OTHER, but no step declares that local file.");
  });

  test('throws when the mirror check is not given a branch', () => {
    expect(() => renderRunbook(flipSteps({ branch: 'HEAD' }), OPTIONS))
      .toThrow("bootstrap step 'flip': the mirror check compares a branch, got 'HEAD'. After the cutover git.targetRevision must name a branch");
  });
});

describe('Helm release steps', () => {
  const RELEASE = {
    releaseName: 'cni', chart: 'cilium', repoURL: 'https://helm.cilium.io', version: '1.20.0', namespace: 'kube-system',
    createNamespace: true, values: { ipam: { mode: 'kubernetes' } }, timeoutSeconds: 300,
  };

  /** namespaces, then a Helm release step `cni` with `release` and `waits`. */
  function helmSteps(release: Partial<typeof RELEASE> = {}, waits: StepWait[] = []) {
    const app = Testing.app();
    const ns = namespaceStep(app, 'namespaces');
    const cni = new BootstrapStep(app, 'Cni', { stepName: 'cni', summary: 'the CNI' });
    cni.useHelmRelease({ ...RELEASE, ...release });
    for (const w of waits) cni.addWait(w);
    cni.dependsOn(ns, 'test');
    return { planned: planSteps([ns, cni]), cni };
  }

  test('the step is a folder holding only its values.yaml, which helm_release installs; helm is checked in the preflight', () => {
    // GIVEN
    const { planned } = helmSteps({}, [
      { kind: 'daemonset-rollout', namespace: 'kube-system', daemonSet: 'cilium', timeoutSeconds: 300 },
      { kind: 'object-exists', resource: 'storageclass/x', jsonPath: '{.a}', equals: 'true', description: "x's default", timeoutSeconds: 60 },
      { kind: 'object-exists', resource: 'configmap/y', namespace: 'ns', description: 'y exists', timeoutSeconds: 60 },
    ]);
    // WHEN
    const script = renderRunbook(planned, OPTIONS);
    // THEN
    expect(planned[1]).toMatchObject({ fileName: '02-cni', applyFlag: 'helm' });
    expect(helmValuesFile(planned[1])).toBe('02-cni/values.yaml');
    expect([...stepFiles(planned, 'bootstrap/').keys()]).toEqual(['bootstrap/01-namespaces.yaml', 'bootstrap/02-cni/values.yaml']);
    expect(stepFiles(planned, 'bootstrap/').get('bootstrap/02-cni/values.yaml')).toEqual([RELEASE.values]);
    const calls = runbookCalls(script);
    expect(calls.indexOf('check_helm')).toBe(calls.indexOf('check_kubectl') + 1);
    expect(calls.indexOf('check_helm')).toBeLessThan(calls.indexOf('confirm_cluster'));
    expect(calls.slice(calls.findIndex((l) => l.startsWith('step 2 ')) + 1)).toEqual([
      'helm_release cni cni cilium https://helm.cilium.io 1.20.0 kube-system 1 02-cni/values.yaml 300',
      'wait_rollout kube-system daemonset/cilium 300',
      "wait_object 60 storageclass/x '' '{.a}' true 'x'\\''s default'",
      "wait_object 60 configmap/y ns '' '' 'y exists'",
      'finish',
    ]);
    expect(script).toContain('\nMIN_HELM_VERSION=3.8\n');
    expect(script).toContain(' and helm >= 3.8.\n');
  });

  test('a runbook without a Helm release step neither needs nor checks helm', () => {
    const script = renderRunbook(buildSteps(), OPTIONS);
    expect(runbookCalls(script)).not.toContain('check_helm');
    expect(script).not.toContain('MIN_HELM_VERSION=');
  });

  test('throws on a chart repository that is not https://', () => {
    expect(() => renderRunbook(helmSteps({ repoURL: 'oci://ghcr.io/x' }).planned, OPTIONS))
      .toThrow("bootstrap step 'cni': the chart repository must be an https:// Helm repository URL, got 'oci://ghcr.io/x'");
  });

  test('throws on a chart version that is not exact', () => {
    expect(() => renderRunbook(helmSteps({ version: '1.20.x' }).planned, OPTIONS))
      .toThrow("bootstrap step 'cni': the chart version must be exact (e.g. 1.20.0), got '1.20.x'");
  });

  test('throws on a malformed minHelmVersion', () => {
    expect(() => renderRunbook(helmSteps().planned, { ...OPTIONS, minHelmVersion: 'v3' }))
      .toThrow("runbook: minHelmVersion must be MAJOR.MINOR or MAJOR.MINOR.PATCH (e.g. '3.8'), got 'v3'");
  });

  test('throws on an object wait with a jsonPath but no value to compare', () => {
    const { planned } = helmSteps({}, [{ kind: 'object-exists', resource: 'storageclass/x', jsonPath: '{.a}', description: 'x', timeoutSeconds: 60 }]);
    expect(() => renderRunbook(planned, OPTIONS)).toThrow("runbook: the wait 'x' needs both jsonPath and equals, or neither");
  });

  test('throws when a Helm release step also defines objects', () => {
    const app = Testing.app();
    const cni = new BootstrapStep(app, 'Cni', { stepName: 'cni', summary: 'the CNI' });
    cni.useHelmRelease(RELEASE);
    new k8s.KubeConfigMap(cni, 'Cm', { metadata: { name: 'extra', namespace: 'kube-system' } });
    expect(() => stepFiles(planSteps([cni]), ''))
      .toThrow("bootstrap step 'cni' is a Helm release and cannot also define objects (ConfigMap extra); give them a step of their own");
  });

  test('helmValuesFile throws for a step that is not a Helm release', () => {
    expect(() => helmValuesFile(buildSteps()[0])).toThrow("bootstrap step 'namespaces' is not a Helm release; it has no values file");
  });
});

describe('renderRunbook: a step skipped when the cluster is already past it', () => {
  const SKIP = {
    kind: 'skip-when' as const,
    resource: 'applications.argoproj.io/root',
    namespace: 'argocd',
    jsonPath: '{.spec.source.repoURL}',
    equals: 'http://forgejo.example:3000/o/r.git',
    reason: 'the root app already reads the mirror',
  };
  /** A step `seed` with a Job, a generated Secret and a wait, skipped per `skip`, between two plain steps. */
  function skipSteps(...skips: Partial<typeof SKIP>[]) {
    const app = Testing.app();
    const before = namespaceStep(app, 'before');
    const seed = namespaceStep(app, 'seed');
    new k8s.KubeJob(seed, 'Job', {
      metadata: { name: 'seed-job', namespace: 'before' },
      spec: { template: { spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'i' }] } } },
    });
    seed.addPrecondition({ kind: 'generated-secret', namespace: 'before', name: 'seed-key', key: 'key', bytes: 32 });
    for (const s of skips) seed.addPrecondition({ ...SKIP, ...s });
    seed.addWait({ kind: 'rollout', namespace: 'before', deployment: 'd', timeoutSeconds: 60 });
    const after = namespaceStep(app, 'after');
    seed.dependsOn(before, 'first');
    after.dependsOn(seed, 'then');
    return planSteps([before, seed, after]);
  }

  test('everything of the step after its header runs only when skip_when does not skip it; other steps are unchanged', () => {
    // WHEN
    const calls = runbookCalls(renderRunbook(skipSteps({}), OPTIONS));

    // THEN
    const from = calls.findIndex((c) => c.startsWith('step 2 seed'));
    expect(calls.slice(from, from + 8)).toEqual([
      'step 2 seed \'seed summary\'',
      'if ! skip_when applications.argoproj.io/root argocd \'{.spec.source.repoURL}\' http://forgejo.example:3000/o/r.git ' +
        '\'the root app already reads the mirror\'; then',
      '  ensure_secret before seed-key key 32',
      '  delete_job before seed-job',
      '  apply seed -f 02-seed.yaml',
      '  wait_rollout before deployment/d 60',
      'fi',
      'step 3 after \'after summary\'',
    ]);
    expect(calls).toContain('apply before -f 01-before.yaml');
    expect(calls.filter((c) => c.includes('skip_when'))).toHaveLength(1);
  });

  test('a cluster-scoped object is read without a namespace', () => {
    const calls = runbookCalls(renderRunbook(skipSteps({ resource: 'storageclasses.storage.k8s.io/fast', namespace: undefined }), OPTIONS));
    expect(calls).toContain('if ! skip_when storageclasses.storage.k8s.io/fast \'\' \'{.spec.source.repoURL}\' ' +
      'http://forgejo.example:3000/o/r.git \'the root app already reads the mirror\'; then');
  });

  test('skip_when reads the field with one kube call (bounded by --request-timeout); only NotFound means the step runs', () => {
    const script = renderRunbook(skipSteps({}), OPTIONS);
    const helper = script.slice(script.indexOf('\nskip_when() {'), script.indexOf('\n}\n', script.indexOf('\nskip_when() {')));
    expect(helper).toContain('out="$(kube "${args[@]}" 2>"$STAGING/skip-when.err")" || status=$?');
    expect(helper).toContain("*'(NotFound)'*)");
    expect(helper).toContain('inspect "$(quote kubectl "${args[@]}")"');
  });

  test('throws on two skip-when preconditions in one step', () => {
    expect(() => renderRunbook(skipSteps({}, { equals: 'other' }), OPTIONS))
      .toThrow("bootstrap step 'seed' has 2 skip-when preconditions; at most one is allowed");
  });

  test('throws on an empty value, which a missing field would match', () => {
    expect(() => renderRunbook(skipSteps({ equals: '' }), OPTIONS))
      .toThrow("bootstrap step 'seed': skip-when equals must be a non-empty single-line value, got \"\"");
  });

  test('throws on a resource without a name, a JSONPath that is not one field, and an empty reason', () => {
    expect(() => renderRunbook(skipSteps({ resource: 'application' }), OPTIONS))
      .toThrow("bootstrap step 'seed': skip-when resource must be '<resource>/<name>' in kubectl's lower-case form (e.g. 'applications.argoproj.io/root'), got 'application'");
    expect(() => renderRunbook(skipSteps({ jsonPath: '.spec.source.repoURL' }), OPTIONS))
      .toThrow("bootstrap step 'seed': skip-when jsonPath must be one kubectl JSONPath field such as '{.spec.source.repoURL}', got '.spec.source.repoURL'");
    expect(() => renderRunbook(skipSteps({ reason: ' ' }), OPTIONS))
      .toThrow("bootstrap step 'seed': skip-when needs a reason, printed when the step is skipped");
  });

  testWith(SHELLCHECK)('a script with a skipped step is shellcheck-clean', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'runbook-skip-'));
    const file = path.join(dir, 'bootstrap.sh');
    fs.writeFileSync(file, renderRunbook(skipSteps({}), OPTIONS));
    const r = spawnSync(SHELLCHECK.command!, ['--shell=bash', '--severity=style', file], { encoding: 'utf8' });
    expect(r.stdout + r.stderr).toBe('');
    expect(r.status).toBe(0);
  });
});
