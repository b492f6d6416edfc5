import { Duration, Testing } from 'cdk8s';
import { ArgoCdInstall, ArgoCdInstallProps } from '../../../lib/constructs/argocd/argocd-install';
import { APPLICATION_HEALTH_LUA, CNPG_CLUSTER_HEALTH_LUA, CNPG_DATABASE_HEALTH_LUA } from '../../../lib/constructs/argocd/health-checks';
import { BootstrapStep } from '../../../lib/constructs/bootstrap/bootstrap-step';
import { ARGOCD_INSTALL_URL, IMAGES } from '../../../lib/shared/pins';

function install(props: ArgoCdInstallProps = {}) {
  const chart = Testing.chart();
  const argocd = new ArgoCdInstall(chart, 'ArgoCd', props);
  const objects = Testing.synth(chart);
  const byName = (kind: string, name: string) => objects.find((o) => o.kind === kind && o.metadata.name === name);
  return { chart, argocd, objects, byName };
}

describe('ArgoCdInstall', () => {
  test('defaults: namespace argocd, Secret sops-age, 600 s per component, a sync timeout of one hour', () => {
    const { argocd, byName } = install();
    expect(argocd.syncTimeout.toSeconds()).toBe(3600);
    expect(byName('ConfigMap', 'argocd-cmd-params-cm').data).toEqual({ 'controller.resource.health.persist': 'true', 'controller.sync.timeout.seconds': '3600' });
    expect(argocd.namespace).toBe('argocd');
    expect(argocd.sopsAgeSecretName).toBe('sops-age');
    expect(argocd.timeoutSeconds).toBe(600);
  });

  test('all props', () => {
    const props: Required<ArgoCdInstallProps> = {
      namespace: 'gitops', sopsAgeSecretName: 'age-key', timeoutSeconds: 90, syncTimeout: Duration.minutes(30),
    };
    const { argocd, byName } = install(props);
    expect(byName('ConfigMap', 'argocd-cmd-params-cm').data).toEqual({ 'controller.resource.health.persist': 'true', 'controller.sync.timeout.seconds': '1800' });
    expect(argocd.bootstrapRequirements.kustomization).toEqual({ remoteResources: [ARGOCD_INSTALL_URL], namespace: 'gitops' });
    expect(argocd.bootstrapRequirements.waits!.every((w) => w.timeoutSeconds === 90)).toBe(true);
    const volumes = byName('Deployment', 'argocd-repo-server').spec.template.spec.volumes;
    expect(volumes).toContainEqual({ name: 'sops-age', secret: { secretName: 'age-key', optional: true } });
  });

  test('patches argocd-cm with the Application, CNPG Cluster and CNPG Database health checks, and nothing else', () => {
    const { argocd, byName } = install();
    const cm = byName('ConfigMap', 'argocd-cm');
    expect(cm.data).toEqual({
      'resource.customizations.health.argoproj.io_Application': APPLICATION_HEALTH_LUA,
      'resource.customizations.health.postgresql.cnpg.io_Cluster': CNPG_CLUSTER_HEALTH_LUA,
      'resource.customizations.health.postgresql.cnpg.io_Database': CNPG_DATABASE_HEALTH_LUA,
    });
    expect(argocd.healthChecks).toEqual(cm.data);
    // Strategic-merge patches: no labels of ours that would replace the upstream ones, data only.
    expect(cm.metadata.labels).toBeUndefined();
    expect(byName('ConfigMap', 'argocd-cmd-params-cm').metadata.labels).toBeUndefined();
    expect(argocd.bootstrapRequirements.patches!.map((p) => `${p.kind}/${p.name}`))
      .toEqual(['ConfigMap/argocd-cm', 'ConfigMap/argocd-cmd-params-cm', 'Deployment/argocd-repo-server']);
  });

  test('throws when syncTimeout is not a whole number of seconds of at least 1', () => {
    expect(() => new ArgoCdInstall(Testing.chart(), 'ArgoCd', { syncTimeout: Duration.seconds(0) }))
      .toThrow("ArgoCd: 'syncTimeout' must be a whole number of seconds, at least 1, got 0 s; Argo CD reads 0 as no timeout.");
    expect(() => new ArgoCdInstall(Testing.chart(), 'ArgoCd', { syncTimeout: Duration.millis(1500) }))
      .toThrow("'syncTimeout' must be a whole number of seconds, at least 1, got 1.5 s");
  });

  test('adds the SOPS plugin sidecar to the repo-server: the shared cmp-server, uid 999, its own /tmp, the age key read-only', () => {
    const { byName } = install();
    const [sidecar] = byName('Deployment', 'argocd-repo-server').spec.template.spec.containers;
    expect(sidecar.name).toBe('cmp-sops');
    expect(sidecar.image).toBe(IMAGES.sops);
    expect(sidecar.command).toEqual(['/var/run/argocd/argocd-cmp-server']);
    expect(sidecar.securityContext).toEqual(expect.objectContaining({ runAsUser: 999, runAsNonRoot: true, allowPrivilegeEscalation: false }));
    expect(sidecar.env).toEqual([{ name: 'SOPS_AGE_KEY_FILE', value: '/sops/keys.txt' }]);
    expect(sidecar.volumeMounts).toContainEqual({ name: 'cmp-sops-tmp', mountPath: '/tmp' });
    expect(sidecar.volumeMounts).toContainEqual({ name: 'sops-age', mountPath: '/sops', readOnly: true });
    expect(sidecar.resources.limits.memory).toBe('256Mi');
  });

  test('defines the plugin ConfigMap the sidecar mounts, without a discover rule', () => {
    const { byName } = install();
    const plugin = byName('ConfigMap', 'argocd-cmp-sops');
    expect(plugin.data['plugin.yaml']).toContain('kind: ConfigManagementPlugin');
    expect(plugin.data['plugin.yaml']).not.toContain('discover:');
    const volumes = byName('Deployment', 'argocd-repo-server').spec.template.spec.volumes;
    expect(volumes).toContainEqual({ name: 'cmp-sops-config', configMap: { name: 'argocd-cmp-sops' } });
  });

  test('waits for the CRDs, every Deployment and the application-controller StatefulSet', () => {
    const { argocd } = install();
    const waits = argocd.bootstrapRequirements.waits!;
    expect(waits[0]).toEqual({
      kind: 'crds-established', crds: ['applications.argoproj.io', 'applicationsets.argoproj.io', 'appprojects.argoproj.io'], timeoutSeconds: 600,
    });
    expect(waits.filter((w) => w.kind === 'rollout').map((w) => w.kind === 'rollout' && w.deployment)).toEqual([
      'argocd-applicationset-controller', 'argocd-dex-server', 'argocd-notifications-controller', 'argocd-redis', 'argocd-repo-server', 'argocd-server',
    ]);
    expect(waits[waits.length - 1]).toEqual({
      kind: 'statefulset-rollout', namespace: 'argocd', statefulSet: 'argocd-application-controller', timeoutSeconds: 600,
    });
  });

  test('a bootstrap step applies it as a kustomization whose patches are not resources', () => {
    const app = Testing.app();
    const step = new BootstrapStep(app, 'ArgoCdInstall', { stepName: 'argocd-install', summary: 'x' });
    const argocd = new ArgoCdInstall(step, 'ArgoCd');
    step.addComponent(argocd);
    expect(step.kustomization).toEqual(argocd.bootstrapRequirements.kustomization);
    expect(step.waits).toEqual(argocd.bootstrapRequirements.waits);
    expect(argocd.bootstrapRequirements.patches!.every((p) => step.isPatch(p))).toBe(true);
  });

  test('throws for a timeout that is not a positive whole number of seconds', () => {
    expect(() => install({ timeoutSeconds: 0 })).toThrow("ArgoCd: 'timeoutSeconds' must be a positive integer, got 0.");
  });
});
