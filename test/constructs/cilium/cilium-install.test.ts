import { Duration, Testing } from 'cdk8s';
import { BootstrapStep } from '../../../lib/constructs/bootstrap/bootstrap-step';
import { CiliumInstall, CiliumInstallProps } from '../../../lib/constructs/cilium/cilium-install';
import { PHASE0_CHARTS } from '../../../lib/shared/pins';

const KUBEPRISM = { k8sServiceHost: 'localhost', k8sServicePort: 7445 };

describe('CiliumInstall', () => {
  test('is a Helm release of the pinned chart in kube-system, with the Talos values, waited for', () => {
    // WHEN
    const cilium = new CiliumInstall(Testing.chart(), 'Cilium', KUBEPRISM);
    // THEN
    expect(cilium.release).toEqual({
      ...PHASE0_CHARTS.cilium, releaseName: 'cilium', namespace: 'kube-system', createNamespace: false, values: cilium.values, timeoutSeconds: 600,
    });
    expect(cilium.values).toMatchObject({
      ipam: { mode: 'kubernetes' }, kubeProxyReplacement: true, k8sServiceHost: 'localhost', k8sServicePort: 7445,
      cgroup: { autoMount: { enabled: false }, hostRoot: '/sys/fs/cgroup' },
    });
    // Talos does not let workloads load kernel modules
    expect(cilium.values.securityContext.capabilities.ciliumAgent).not.toContain('SYS_MODULE');
    expect(cilium.bootstrapRequirements).toEqual({
      helmRelease: cilium.release,
      waits: [
        { kind: 'daemonset-rollout', namespace: 'kube-system', daemonSet: 'cilium', timeoutSeconds: 600 },
        { kind: 'rollout', namespace: 'kube-system', deployment: 'cilium-operator', timeoutSeconds: 600 },
      ],
    });
  });

  test('defaults: kube-proxy replaced, ten minutes for helm', () => {
    const cilium = new CiliumInstall(Testing.chart(), 'Cilium', KUBEPRISM);
    expect(cilium.values.kubeProxyReplacement).toBe(true);
    expect(cilium.timeout.toSeconds()).toBe(600);
    // ipBlocks select no node address unless asked: the chart's default leaves policy-cidr-match-mode unset
    expect(cilium.values).not.toHaveProperty('policyCIDRMatchMode');
  });

  test('all props', () => {
    const props: Required<CiliumInstallProps> = {
      k8sServiceHost: '10.0.0.10', k8sServicePort: 6443, kubeProxyReplacement: false, timeout: Duration.minutes(3), selectNodesByCidr: true,
    };
    const cilium = new CiliumInstall(Testing.chart(), 'Cilium', props);
    expect(cilium.values).toMatchObject({ k8sServiceHost: '10.0.0.10', k8sServicePort: 6443, kubeProxyReplacement: false, policyCIDRMatchMode: ['nodes'] });
    expect(cilium.release.timeoutSeconds).toBe(180);
    expect(cilium.bootstrapRequirements.waits!.map((w) => w.timeoutSeconds)).toEqual([180, 180]);
  });

  test('defines no object of its own: helm renders the chart', () => {
    const chart = Testing.chart();
    new CiliumInstall(chart, 'Cilium', KUBEPRISM);
    expect(Testing.synth(chart)).toEqual([]);
  });

  test('a bootstrap step becomes a Helm release through addComponent()', () => {
    const step = new BootstrapStep(Testing.app(), 'Cilium', { stepName: 'cilium', summary: 'x' });
    const cilium = new CiliumInstall(step, 'Release', KUBEPRISM);
    step.addComponent(cilium);
    expect(step.helmRelease).toBe(cilium.release);
    expect(step.kustomization).toBeUndefined();
    expect(step.waits).toHaveLength(2);
  });

  test('throws for a port that is no TCP port', () => {
    expect(() => new CiliumInstall(Testing.chart(), 'Cilium', { ...KUBEPRISM, k8sServicePort: 70000 }))
      .toThrow("test/Cilium: 'k8sServicePort' must be a TCP port (1-65535), got 70000.");
  });

  test('throws for an empty host', () => {
    expect(() => new CiliumInstall(Testing.chart(), 'Cilium', { ...KUBEPRISM, k8sServiceHost: ' ' }))
      .toThrow("test/Cilium: 'k8sServiceHost' must not be empty.");
  });
});
