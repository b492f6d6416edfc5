import { Testing } from 'cdk8s';
import { k8s } from 'cdk8s-plus-30';
import { Construct } from 'constructs';
import { BootstrapStep, IBootstrapComponent } from '../../../lib/constructs/bootstrap/bootstrap-step';

function step(scope: Construct, name: string): BootstrapStep {
  return new BootstrapStep(scope, name, { stepName: name, summary: name });
}

class Remote extends Construct implements IBootstrapComponent {
  public readonly patch: k8s.KubeConfigMap;
  public readonly bootstrapRequirements;
  constructor(scope: Construct, id: string, url: string) {
    super(scope, id);
    this.patch = new k8s.KubeConfigMap(this, 'Patch', { metadata: { name: 'cm' }, data: { a: 'b' } });
    this.bootstrapRequirements = {
      kustomization: { remoteResources: [url] },
      patches: [this.patch],
      preconditions: [{ kind: 'secret-exists' as const, namespace: 'ns', name: 's', hint: 'create it' }],
      waits: [{ kind: 'crds-established' as const, crds: ['x.example.com'], timeoutSeconds: 60 }],
    };
  }
}

describe('BootstrapStep', () => {
  test('throws for a signature of a manifest the kustomization does not include, naming both', () => {
    const s = step(Testing.app(), 'remote');
    const signature = {
      manifestUrl: 'https://example.com/b.yaml', bundleUrl: 'https://example.com/b.sigstore.json',
      certificateIdentity: 'https://github.com/o/r/.github/workflows/release.yml@refs/tags/v1', certificateOidcIssuer: 'https://token.actions.githubusercontent.com',
    };
    expect(() => s.useKustomization({ remoteResources: ['https://example.com/a.yaml'], signatures: [signature] })).toThrow(
      "bootstrap step 'remote': a signature names https://example.com/b.yaml, which is not one of the kustomization's remoteResources (https://example.com/a.yaml)");
    expect(() => s.useKustomization({ remoteResources: ['https://example.com/b.yaml'], signatures: [{ ...signature, certificateIdentity: 'me@example.com' }] }))
      .toThrow("bootstrap step 'remote': the signature of https://example.com/b.yaml needs an https bundle URL, certificate identity and OIDC issuer");
    s.useKustomization({ remoteResources: ['https://example.com/b.yaml'], signatures: [signature] });
    expect(s.kustomization?.signatures).toEqual([signature]);
  });

  test('addComponent() applies the kustomization, patches, preconditions and waits a component requires', () => {
    const s = step(Testing.app(), 'remote');
    const remote = new Remote(s, 'Remote', 'https://example.com/a.yaml');
    s.addComponent(remote);
    expect(s.kustomization).toEqual({ remoteResources: ['https://example.com/a.yaml'] });
    expect(s.isPatch(remote.patch)).toBe(true);
    expect(s.preconditions).toEqual(remote.bootstrapRequirements.preconditions);
    expect(s.waits).toEqual(remote.bootstrapRequirements.waits);
  });

  test('dependsOn() is a cdk8s chart dependency, with the reason kept', () => {
    const app = Testing.app();
    const [a, b] = [step(app, 'a'), step(app, 'b')];
    a.dependsOn(b, 'b first');
    a.dependsOn(b, 'said twice');
    expect(a.node.dependencies).toEqual([b]);
    expect(a.dependencies).toEqual([{ step: b, reason: 'b first' }]);
  });

  test('throws when a second component brings a second kustomization', () => {
    const s = step(Testing.app(), 'remote');
    s.addComponent(new Remote(s, 'One', 'https://example.com/a.yaml'));
    expect(() => s.addComponent(new Remote(s, 'Two', 'https://example.com/b.yaml')))
      .toThrow("bootstrap step 'remote' already has a kustomization; give 'Two' a step of its own");
  });

  test('throws when a Helm release step gets a kustomization, or a second release', () => {
    const release = { releaseName: 'r', chart: 'c', repoURL: 'https://charts.example.com', version: '1.0.0', namespace: 'ns',
      createNamespace: false, values: {}, timeoutSeconds: 60 };
    const s = step(Testing.app(), 'helm');
    s.useHelmRelease(release, 'One');
    expect(() => s.useHelmRelease(release, 'Two')).toThrow("bootstrap step 'helm' already has a Helm release; give 'Two' a step of its own");
    expect(() => s.addComponent(new Remote(s, 'Remote', 'https://example.com/a.yaml')))
      .toThrow("bootstrap step 'helm' is a Helm release; a kustomization needs a step of its own");
    const k = step(Testing.app(), 'remote');
    k.addComponent(new Remote(k, 'Remote', 'https://example.com/a.yaml'));
    expect(() => k.useHelmRelease(release, 'Chart')).toThrow("bootstrap step 'remote' already has a kustomization; give 'Chart' a step of its own");
  });

  test('throws when a patch is added to a step without a kustomization', () => {
    const s = step(Testing.app(), 'plain');
    expect(() => s.addPatch(new k8s.KubeConfigMap(s, 'Cm', { metadata: { name: 'cm' } }))).toThrow("bootstrap step 'plain' has no kustomization to patch");
  });
});
