import * as YAML from 'yaml';
import { REFERENCE_HOMELAB } from '../../lib/config/defaults';
import { HomelabConfig } from '../../lib/config/homelab-config';
import { BUILD_FILES, RUNNER_APPLICATION } from '../../lib/homelab/delivery/build';
import { synthesizeHomelab } from '../../lib/synth/synthesize-homelab';
import { validateOutput } from '../../lib/validation/validate-output';
import { isNotAppliedFile } from '../../lib/validation/manifest-documents';

const reference = synthesizeHomelab(REFERENCE_HOMELAB);
const docs = (text: string | undefined) => YAML.parseAllDocuments(text ?? '').map((d) => d.toJSON());

describe('the build part in the reference homelab', () => {
  test('a generated forgejo-runner Application, one wave after sops-secrets (which delivers its token), in a privileged namespace', () => {
    const app = reference.argocd.applications.get(RUNNER_APPLICATION)!;
    const secrets = reference.argocd.applications.get('sops-secrets')!;
    expect(app.syncWave).toBe(secrets.syncWave + 1);
    expect(app.dependsOn.map((a) => a.name)).toEqual(['sops-secrets']);
    const rendered = docs(reference.tree.get(`argocd/apps/${RUNNER_APPLICATION}.yaml`))[0];
    expect(rendered.spec.source.path).toBe('k8s/generated/delivery/forgejo-runner');
    expect(rendered.spec.syncPolicy.managedNamespaceMetadata.labels).toEqual({
      'pod-security.kubernetes.io/audit': 'baseline',
      'pod-security.kubernetes.io/enforce': 'privileged',
      'pod-security.kubernetes.io/warn': 'baseline',
    });
  });

  test('its objects, the workflow and the Talos patches are written; the registration token is a referenced Secret', () => {
    expect(docs(reference.tree.get('delivery/forgejo-runner/forgejo-runner.yaml')).map((d) => `${d.kind}/${d.metadata.namespace}/${d.metadata.name}`))
      .toEqual(['ConfigMap/forgejo-runner/forgejo-runner', 'Deployment/forgejo-runner/forgejo-runner']);
    for (const f of Object.values(BUILD_FILES)) expect(reference.tree.has(f)).toBe(true);
    expect(reference.argocd.secretReferences).toContainEqual(expect.objectContaining({ namespace: 'forgejo-runner', name: 'forgejo-runner-registration', keys: ['token'] }));
  });

  test('no container anywhere in dist/ is privileged', () => {
    const privileged: string[] = [];
    const walk = (v: unknown, file: string) => {
      if (Array.isArray(v)) v.forEach((x) => walk(x, file));
      else if (v !== null && typeof v === 'object') {
        for (const [k, x] of Object.entries(v)) {
          if (k === 'privileged' && x === true) privileged.push(file);
          walk(x, file);
        }
      }
    };
    for (const [file, text] of reference.tree) if (/\.ya?ml$/.test(file)) docs(text).forEach((d) => walk(d, file));
    expect(privileged).toEqual([]);
  });

  test('the Talos mirror sends the in-cluster pull name to https://<pushHost> by default, to nodeEndpoint when set', () => {
    expect(docs(reference.tree.get(BUILD_FILES.registryMirror))).toEqual([expect.objectContaining({
      kind: 'RegistryMirrorConfig', name: 'forgejo-http.cicd.svc.cluster.local:3000', endpoints: [{ url: 'https://forgejo.homelab.example' }],
    })]);
    const config: HomelabConfig = { ...REFERENCE_HOMELAB, delivery: { ...REFERENCE_HOMELAB.delivery!, registry: { pushHost: 'push.example', nodeEndpoint: 'http://192.168.1.165:3000', pullHost: 'registry.internal:5000' } } };
    expect(docs(synthesizeHomelab(config).tree.get(BUILD_FILES.registryMirror))).toEqual([expect.objectContaining({
      name: 'registry.internal:5000', endpoints: [{ url: 'http://192.168.1.165:3000' }],
    })]);
  });

  test('the plan states the Pod Security level and the Talos preconditions', () => {
    const p = reference.plan.buildPreconditions!;
    expect(p.podSecurity).toMatch(/^Namespace forgejo-runner \(Application forgejo-runner, wave 1\) enforces Pod Security 'privileged'/);
    expect(p.talos).toEqual([
      expect.stringContaining('@k8s/generated/talos/user-namespaces.yaml (user.max_user_namespaces=11255'),
      expect.stringContaining('@k8s/generated/talos/registry-mirror.yaml'),
    ]);
    expect(reference.tree.get('README.md')).toContain('## Image build: what Argo CD cannot do');
  });

  test('without delivery nothing of the build is generated', () => {
    const none = synthesizeHomelab({ ...REFERENCE_HOMELAB, delivery: undefined });
    expect(none.argocd.applications.has(RUNNER_APPLICATION)).toBe(false);
    expect([...none.tree.keys()].filter((f) => isNotAppliedFile(f) || f.startsWith('delivery/'))).toEqual([]);
    expect(none.plan.buildPreconditions).toBeUndefined();
  });
});

describe('the output validation of the build part', () => {
  const runnerFile = 'delivery/forgejo-runner/forgejo-runner.yaml';
  const only = new Map([[runnerFile, reference.tree.get(runnerFile)!]]);

  test('the runner passes with its Pod Security exception', () => {
    expect(validateOutput(only, reference.validation)).toEqual([]);
  });

  test('fails without the exception: the BuildKit container breaks the restricted profile in the excepted fields', () => {
    expect(validateOutput(only).map((p) => p.path)).toEqual([
      'spec.template.spec.containers[1].securityContext.allowPrivilegeEscalation',
      'spec.template.spec.containers[1].securityContext.appArmorProfile.type',
      'spec.template.spec.containers[1].securityContext.capabilities.drop',
      'spec.template.spec.containers[1].securityContext.seccompProfile.type',
    ]);
  });

  test('fails for what no exception covers: a privileged container, or an exception for another container or without a reason', () => {
    const exceptions = reference.validation.podSecurityExceptions!;
    const objects = docs(reference.tree.get(runnerFile));
    objects[1].spec.template.spec.containers[1].securityContext.privileged = true;
    const privileged = new Map([[runnerFile, objects]]);
    expect(validateOutput(privileged, reference.validation).map((p) => p.path)).toEqual(['spec.template.spec.containers[1].securityContext.privileged']);
    const other = { podSecurityExceptions: exceptions.map((e) => ({ ...e, container: 'runner' })) };
    expect(validateOutput(only, other)).toHaveLength(4);
    const noReason = { podSecurityExceptions: exceptions.map((e) => ({ ...e, reason: ' ' })) };
    expect(validateOutput(only, noReason).map((p) => p.message)).toContain(
      'Pod Security exception for \'Deployment/forgejo-runner/forgejo-runner\' container \'buildkitd\' has no reason; say why it needs it');
  });

  test('the workflow and the Talos patches are not manifests: never applied, not validated as objects', () => {
    for (const f of Object.values(BUILD_FILES)) expect(isNotAppliedFile(f)).toBe(true);
    expect(isNotAppliedFile(runnerFile)).toBe(false);
    const files = new Map(Object.values(BUILD_FILES).map((f) => [f, reference.tree.get(f)!]));
    expect(validateOutput(files)).toEqual([]);
  });
});
