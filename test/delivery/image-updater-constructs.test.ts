import { Chart, Testing } from 'cdk8s';
import { AppImageUpdater, AppImageUpdaterProps } from '../../lib/constructs/delivery/app-image-updater';
import { ImageUpdaterInstall, imageUpdaterInstallUrl } from '../../lib/constructs/delivery/image-updater-install';
import { problemsOfObjects } from '../validation/util';

const REGISTRY = 'forgejo-http.cicd.svc.cluster.local:3000';
const PROPS: AppImageUpdaterProps = {
  namespace: 'argocd',
  applicationName: 'hello',
  sourcePath: 'k8s/apps/hello',
  generatedPath: 'k8s/generated',
  image: `${REGISTRY}/acme/hello`,
  strategy: { kind: 'digest', tag: 'main' },
  writeBack: { repository: 'https://github.com/acme/homelab.git', branch: 'main', credentialSecretName: 'image-updater-github', mode: 'commit' },
};

function updater(props: Partial<AppImageUpdaterProps> = {}): { u: AppImageUpdater; json: Record<string, any> } {
  const chart = new Chart(Testing.app(), 'c');
  const u = new AppImageUpdater(chart, 'U', { ...PROPS, ...props });
  return { u, json: Testing.synth(chart)[0] };
}

describe('AppImageUpdater', () => {
  test('one ImageUpdater for one Application: its image with the followed tag, the strategy, git write-back to the repository', () => {
    const { u, json } = updater();
    expect(json).toEqual({
      apiVersion: 'argocd-image-updater.argoproj.io/v1alpha1',
      kind: 'ImageUpdater',
      metadata: { name: 'hello', namespace: 'argocd', labels: { 'app.kubernetes.io/managed-by': 'homelab-gitops', 'app.kubernetes.io/part-of': 'homelab' } },
      spec: {
        applicationRefs: [{
          namePattern: 'hello',
          images: [{ alias: 'hello', imageName: `${REGISTRY}/acme/hello:main`, commonUpdateSettings: { updateStrategy: 'digest' } }],
        }],
        writeBackConfig: {
          method: 'git:secret:image-updater-github',
          gitConfig: { repository: 'https://github.com/acme/homelab.git', branch: 'main' },
        },
      },
    });
    // No writeBackTarget: the updater's default file, in the Application's source path, outside the generated tree.
    expect(json.spec.writeBackConfig.gitConfig.writeBackTarget).toBeUndefined();
    expect(u.writeBackFile).toBe('k8s/apps/hello/.argocd-source-hello.yaml');
  });

  test('passes the schema of the pinned v1.3.0 CRD, for digest and for semver with a pull request', () => {
    const semver = updater({ strategy: { kind: 'semver', constraint: '1.x' }, allowTags: 'regexp:^1\\.', ignoreTags: ['*-rc*'],
      writeBack: { ...PROPS.writeBack, mode: 'pull-request' } }).json;
    expect(problemsOfObjects(updater().json, semver)).toEqual([]);
    expect(semver.spec.applicationRefs[0].images[0]).toEqual({
      alias: 'hello', imageName: `${REGISTRY}/acme/hello:1.x`,
      commonUpdateSettings: { updateStrategy: 'semver', allowTags: 'regexp:^1\\.', ignoreTags: ['*-rc*'] },
    });
    // The CRD's CEL rule wants exactly one provider: the empty `github: {}` must survive synthesis.
    expect(semver.spec.writeBackConfig.gitConfig.pullRequest).toEqual({ github: {} });
  });

  test('the schema check bites: an updateStrategy field the CRD does not have fails with its path', () => {
    const { json } = updater();
    json.spec.applicationRefs[0].images[0].commonUpdateSettings.strategy = 'digest';
    expect(problemsOfObjects(json)).toEqual([expect.stringContaining('commonUpdateSettings.strategy')]);
  });

  test('credentials are referenced by Secret name only: no token, key or password appears in the object', () => {
    const text = JSON.stringify(updater().json);
    expect(text).toContain('git:secret:image-updater-github');
    expect(text).not.toMatch(/password|token|sshPrivateKey|BEGIN/i);
  });

  test('refuses a write-back target inside the generated tree', () => {
    expect(() => updater({ sourcePath: 'k8s/generated/apps/hello' })).toThrow(
      'c/U: the updater would write \'k8s/generated/apps/hello/.argocd-source-hello.yaml\', inside the generated tree \'k8s/generated\': ' +
      'synthesis rewrites that tree wholesale (deleting the file and rolling the image back) and its drift check fails on it. Give the ' +
      'Application a \'sourcePath\' outside \'k8s/generated\'.');
  });

  test('refuses allowTags without the regexp: prefix (the updater would match no tag)', () => {
    expect(() => updater({ allowTags: '^main$' })).toThrow(
      'c/U: \'allowTags\' must be \'any\' or \'regexp:<expression>\', got \'^main$\': the updater matches no tag with anything else.');
    expect(() => updater({ allowTags: 'any' })).not.toThrow();
  });

  test('refuses a pull request over SSH, a base:head branch, and an image with a tag', () => {
    expect(() => updater({ writeBack: { ...PROPS.writeBack, repository: 'git@github.com:acme/homelab.git', mode: 'pull-request' } })).toThrow(
      'c/U: \'writeBack.mode\' \'pull-request\' needs an https:// repository with a token, got \'git@github.com:acme/homelab.git\'.');
    expect(() => updater({ writeBack: { ...PROPS.writeBack, branch: 'main:image-updater' } })).toThrow(
      'c/U: \'writeBack.branch\' must name one branch, got \'main:image-updater\'.');
    expect(() => updater({ image: `${REGISTRY}/acme/hello:1.0.0` })).toThrow(
      `c/U: 'image' must be REGISTRY/PATH without tag or digest, got '${REGISTRY}/acme/hello:1.0.0'.`);
  });
});

describe('ImageUpdaterInstall', () => {
  function install(props: Partial<ConstructorParameters<typeof ImageUpdaterInstall>[2]> = {}) {
    const chart = new Chart(Testing.app(), 'c');
    const i = new ImageUpdaterInstall(chart, 'I', { version: 'v1.3.0', ...props });
    return { i, objects: Testing.synth(chart) };
  }

  test('defaults: Argo CD\'s namespace, upstream\'s interval and author, no registries.conf', () => {
    const { i, objects } = install();
    expect([i.namespace, i.checkInterval, i.gitUser, i.gitEmail]).toEqual(['argocd', '2m0s', 'argocd-image-updater', 'noreply@argoproj.io']);
    expect(objects).toEqual([{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'argocd-image-updater-config' },
      data: { 'interval': '2m0s', 'git.user': 'argocd-image-updater', 'git.email': 'noreply@argoproj.io' } }]);
  });

  test('a kustomization over the install manifest pinned to the tag, with the ConfigMap patch and registries.conf', () => {
    const { i, objects } = install({
      registries: [{ name: 'Forgejo', prefix: REGISTRY, apiUrl: `http://${REGISTRY}`, pullSecretName: 'forgejo-registry-read' }],
    });
    expect(i.installUrl).toBe('https://raw.githubusercontent.com/argoproj-labs/argocd-image-updater/v1.3.0/config/install.yaml');
    expect(imageUpdaterInstallUrl('v1.3.0')).toBe(i.installUrl);
    expect(i.kustomization(['image-updater-hello.yaml'], 'config.yaml')).toEqual({
      apiVersion: 'kustomize.config.k8s.io/v1beta1', kind: 'Kustomization', namespace: 'argocd',
      resources: [i.installUrl, 'image-updater-hello.yaml'], patches: [{ path: 'config.yaml' }],
    });
    expect((objects[0] as any).data['registries.conf']).toBe([
      'registries:', '- name: Forgejo', `  prefix: ${REGISTRY}`, `  api_url: http://${REGISTRY}`,
      '  credentials: pullsecret:argocd/forgejo-registry-read', '',
    ].join('\n'));
  });

  test('refuses a version that is not a tag, and a registry URL with credentials', () => {
    expect(() => install({ version: 'stable' })).toThrow('c/I: \'version\' must be a release tag such as \'v1.3.0\', got \'stable\'.');
    expect(() => install({ registries: [{ name: 'r', prefix: REGISTRY, apiUrl: 'http://u:p@host', pullSecretName: 's' }] })).toThrow(
      'c/I: registry \'r\': \'apiUrl\' must be http(s)://HOST[:PORT] without a path or credentials, got \'http://u:p@host\'.');
  });
});
