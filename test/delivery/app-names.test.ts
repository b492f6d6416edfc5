// Each app of delivery.apps is an Argo CD Application of its own: its name must not be one the tree generates or the
// catalog uses, and a catalog entry must not take the name of an Application the delivery section generates. Every
// clash is a config problem with its path, not a construct error (which would name no config path).
import { REFERENCE_HOMELAB } from '../../lib/config/defaults';
import { DeliveryConfig } from '../../lib/config/delivery/types';
import { HomelabConfig } from '../../lib/config/homelab-config';
import { validateConfig } from '../../lib/config/validate-config';
import { DELIVERY_APPLICATIONS, GENERATED_APPLICATIONS, generatedApplicationRole } from '../../lib/shared/application-names';
import { synthesizeHomelab } from '../../lib/synth/synthesize-homelab';

const DELIVERY = REFERENCE_HOMELAB.delivery!;
const STATUS = DELIVERY.apps!.status;

function withApp(name: string, change: Partial<HomelabConfig> = {}): HomelabConfig {
  return { ...REFERENCE_HOMELAB, ...change, delivery: { ...DELIVERY, apps: { [name]: { ...STATUS, namespace: `ns-${name}` } } } as DeliveryConfig };
}

function problems(config: HomelabConfig): string[] {
  return validateConfig(config).all.map((p) => `${p.path}: ${p.message}`);
}

test('an app named like an Application the tree generates: the path, the owner and the fix', () => {
  expect(problems(withApp('argo-rollouts'))).toEqual([
    'delivery.apps.argo-rollouts: \'argo-rollouts\' is the name of the delivery section\'s argoRollouts Application; each app is an Argo CD ' +
      'Application of its own, so its name must be free. Rename the app.',
  ]);
  expect(problems(withApp('root'))).toEqual([
    'delivery.apps.root: \'root\' is the name of the root app-of-apps; each app is an Argo CD Application of its own, so its name must be free. Rename the app.',
  ]);
  expect(problems(withApp('sops-secrets'))).toEqual([
    'delivery.apps.sops-secrets: \'sops-secrets\' is the name of the Argo CD tree\'s sopsSecrets Application; each app is an Argo CD ' +
      'Application of its own, so its name must be free. Rename the app.',
  ]);
});

test('every generated name is refused as an app name, and none synthesizes', () => {
  for (const name of ['root', ...Object.values(GENERATED_APPLICATIONS), ...Object.values(DELIVERY_APPLICATIONS)]) {
    expect(generatedApplicationRole(name)).toBeDefined();
    expect(problems(withApp(name)).filter((p) => p.startsWith(`delivery.apps.${name}: '${name}' is the name of`))).toHaveLength(1);
    expect(() => synthesizeHomelab(withApp(name))).toThrow(`delivery.apps.${name}: '${name}' is the name of`);
  }
  expect(generatedApplicationRole('shop')).toBeUndefined();
});

test('an app named like a catalog Application', () => {
  expect(problems(withApp('grafana'))).toContain(
    'delivery.apps.grafana: \'grafana\' is also argocd.applications.grafana; each app is an Argo CD Application of its own, so its name must ' +
      'be free. Rename the app, or remove the catalog entry.');
});

test('a catalog entry named like an Application the delivery section generates, only with a delivery section', () => {
  const catalog = { ...REFERENCE_HOMELAB.argocd.applications, kyverno: { ...REFERENCE_HOMELAB.argocd.applications.duckdns, namespace: 'kyverno-x', sources: [{ kind: 'git-path' as const, path: 'k8s/apps/kyverno-x' }] } };
  const config: HomelabConfig = { ...REFERENCE_HOMELAB, argocd: { ...REFERENCE_HOMELAB.argocd, applications: catalog } };
  // The Argo CD tree checks its names before defining any construct (applicationNameProblems), with the config path.
  expect(() => synthesizeHomelab(config)).toThrow(
    'argocd.applications.kyverno: \'kyverno\' is the delivery section\'s kyverno Application, which the config\'s delivery section generates. ' +
      'Remove this catalog entry, or rename it.');
  expect(() => synthesizeHomelab({ ...config, delivery: undefined })).not.toThrow();
});
