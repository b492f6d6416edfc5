import { parse } from 'yaml';
import { REFERENCE_HOMELAB } from '../../lib/config/defaults';
import { appOverlayPath } from '../../lib/config/delivery/image-updater-rules';
import { HomelabConfig } from '../../lib/config/homelab-config';
import { synthesizeHomelab } from '../../lib/synth/synthesize-homelab';

const DIR = 'delivery/argocd-image-updater';

function docs(tree: ReadonlyMap<string, string>, file: string): any[] {
  const text = tree.get(file);
  if (text === undefined) throw new Error(`${file} is not in the output`);
  return text.split(/^---$/m).map((d) => parse(d)).filter((d) => d !== null);
}

const reference = synthesizeHomelab(REFERENCE_HOMELAB);

describe('the argocd-image-updater Application of the reference homelab', () => {
  test('sits one wave after forgejo-mirror and sops-secrets, the Applications it needs (wave 4)', () => {
    const app = reference.argocd.applications.get('argocd-image-updater')!;
    expect(app.syncWave).toBe(4);
    expect(app.dependsOn.map((d) => `${d.name}@${d.syncWave}`)).toEqual(['forgejo-mirror@3', 'sops-secrets@0']);
    expect(app.namespace).toBe('argocd');
    expect(app.repoPaths).toEqual([`k8s/generated/${DIR}`]);
  });

  test('the wave is derived: with the mirror in wave 2 the updater follows in wave 3', () => {
    const config: HomelabConfig = { ...REFERENCE_HOMELAB, argocd: { ...REFERENCE_HOMELAB.argocd, forgejoMirror: { syncWave: 2 } } };
    expect(synthesizeHomelab(config).argocd.applications.get('argocd-image-updater')!.syncWave).toBe(3);
  });

  test('its folder: a kustomization over the pinned install manifest in argocd, the config patch, one ImageUpdater per opted-in app', () => {
    expect([...reference.tree.keys()].filter((f) => f.startsWith(`${DIR}/`))).toEqual([
      `${DIR}/argocd-image-updater-config.yaml`, `${DIR}/image-updater-hello.yaml`, `${DIR}/image-updater-status.yaml`, `${DIR}/kustomization.yaml`,
    ]);
    expect(docs(reference.tree, `${DIR}/kustomization.yaml`)).toEqual([{
      apiVersion: 'kustomize.config.k8s.io/v1beta1', kind: 'Kustomization', namespace: 'argocd',
      resources: ['https://raw.githubusercontent.com/argoproj-labs/argocd-image-updater/v1.3.0/config/install.yaml',
        'image-updater-hello.yaml', 'image-updater-status.yaml'],
      patches: [{ path: 'argocd-image-updater-config.yaml' }],
    }]);
    const [config] = docs(reference.tree, `${DIR}/argocd-image-updater-config.yaml`);
    expect(config.data['registries.conf']).toContain('api_url: http://forgejo-http.cicd.svc.cluster.local:3000');
    expect(config.data['registries.conf']).toContain('credentials: pullsecret:argocd/forgejo-registry-read');
  });

  test('every ImageUpdater writes the default override file into its app\'s directory, outside the generated tree', () => {
    const distPath = reference.config.git.distPath;
    const files = [...reference.tree.keys()].filter((f) => /^delivery\/argocd-image-updater\/image-updater-.*\.yaml$/.test(f));
    expect(files).toHaveLength(2);
    for (const file of files) {
      const [u] = docs(reference.tree, file);
      expect(u.kind).toBe('ImageUpdater');
      const gitConfig = u.spec.writeBackConfig.gitConfig;
      // No writeBackTarget: v1.3.0 writes `.argocd-source-<app>.yaml` into the Application's source path.
      expect(gitConfig.writeBackTarget).toBeUndefined();
      expect(gitConfig.repository).toBe('https://github.com/homelab-owner/homelab.git');
      const app: string = u.spec.applicationRefs[0].namePattern;
      const target = `${appOverlayPath(app, reference.config.delivery!.apps[app])}/.argocd-source-${app}.yaml`;
      expect({ app, target, insideGenerated: target.startsWith(`${distPath}/`) }).toEqual({ app, target: `k8s/apps/${app}/.argocd-source-${app}.yaml`, insideGenerated: false });
    }
  });

  test('hello commits digests of main; status opens pull requests for 1.x releases', () => {
    const [hello] = docs(reference.tree, `${DIR}/image-updater-hello.yaml`);
    const [status] = docs(reference.tree, `${DIR}/image-updater-status.yaml`);
    expect(hello.spec.applicationRefs[0].images[0].imageName).toBe('forgejo-http.cicd.svc.cluster.local:3000/homelab-owner/hello:main');
    expect(hello.spec.writeBackConfig.gitConfig.pullRequest).toBeUndefined();
    expect(status.spec.applicationRefs[0].images[0].imageName).toBe('forgejo-http.cicd.svc.cluster.local:3000/homelab-owner/status:1.x');
    expect(status.spec.writeBackConfig.gitConfig.pullRequest).toEqual({ github: {} });
  });

  test('its credentials are Secret references in argocd, never in the output', () => {
    expect(reference.argocd.secretReferences.filter((s) => s.usedBy.startsWith('Argo CD Image Updater'))).toEqual([
      { namespace: 'argocd', name: 'forgejo-registry-read', keys: ['.dockerconfigjson'],
        usedBy: 'Argo CD Image Updater (registries.conf forgejo-http.cicd.svc.cluster.local:3000)' },
      { namespace: 'argocd', name: 'image-updater-github', keys: ['password', 'username'],
        usedBy: 'Argo CD Image Updater (git write-back to https://github.com/homelab-owner/homelab.git)' },
    ]);
    for (const [file, text] of reference.tree) {
      if (file.startsWith(`${DIR}/`)) expect({ file, secret: /kind: Secret|password:|sshPrivateKey:/.test(text) }).toEqual({ file, secret: false });
    }
  });

  test('the controller may reach the API server, Forgejo\'s registry and GitHub through argocd\'s default-deny', () => {
    const flows = reference.bootstrap.network!.flows.filter((f) => f.from.kind === 'pods' && f.from.name === 'argocd/argocd-image-updater-controller');
    const reached = flows.map((f) => `${f.to.kind === 'pods' || f.to.kind === 'outside-cluster' ? f.to.name : f.to.kind}:${f.ports.map((p) => p.port).join(',')}`);
    expect(reached.sort()).toEqual([
      'api.github.com (pull requests):443', 'cicd/forgejo:3000', 'github.com (git write-back):443', 'kubernetes-api:6443',
    ]);
  });

  test('nothing of it without a delivery section', () => {
    const { delivery: _delivery, ...config } = REFERENCE_HOMELAB;
    const s = synthesizeHomelab(config);
    expect(s.argocd.applications.has('argocd-image-updater')).toBe(false);
    expect([...s.tree.keys()].filter((f) => f.startsWith('delivery/'))).toEqual([]);
  });
});
