import { Testing } from 'cdk8s';
import { POD_SECURITY_VERSION, PodSecurityNamespace, PodSecurityNamespaceProps } from '../../../lib/constructs/namespaces/pod-security-namespace';

function labelsOf(props: PodSecurityNamespaceProps): Record<string, string> {
  const chart = Testing.chart();
  new PodSecurityNamespace(chart, 'Ns', props);
  return Testing.synth(chart)[0].metadata.labels;
}

describe('PodSecurityNamespace', () => {
  test('defaults to restricted for enforce, warn and audit, each pinned to the Kubernetes version', () => {
    const labels = labelsOf({ name: 'apps' });
    for (const mode of ['enforce', 'warn', 'audit']) {
      expect(labels[`pod-security.kubernetes.io/${mode}`]).toBe('restricted');
      expect(labels[`pod-security.kubernetes.io/${mode}-version`]).toBe(POD_SECURITY_VERSION);
    }
    expect(POD_SECURITY_VERSION).toBe('v1.30');
    expect(labels['kubernetes.io/metadata.name']).toBe('apps');
  });

  test('all props: a relaxed enforce level still warns and audits at the stricter one', () => {
    const props: Required<PodSecurityNamespaceProps> = { name: 'temporal', enforce: 'baseline', warn: 'restricted', labels: { 'homelab.dev/tier': 'app' } };
    const labels = labelsOf(props);
    expect(labels['homelab.dev/tier']).toBe('app');
    expect(labels['pod-security.kubernetes.io/enforce']).toBe('baseline');
    expect(labels['pod-security.kubernetes.io/warn']).toBe('restricted');
    expect(labels['pod-security.kubernetes.io/audit']).toBe('restricted');
  });

  test('warn follows enforce when not given', () => {
    const labels = labelsOf({ name: 'longhorn-system', enforce: 'privileged' });
    expect(labels['pod-security.kubernetes.io/warn']).toBe('privileged');
  });
});
