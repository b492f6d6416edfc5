import { waveAfter } from '../../../lib/constructs/argocd/backup-checks';
import { HomelabApplication } from '../../../lib/constructs/argocd/homelab-application';

const app = (name: string, syncWave: number) => ({ name, syncWave }) as unknown as HomelabApplication;

describe('waveAfter: the wave of an Application that depends on all of the given ones', () => {
  test('is one after the latest dependency', () => {
    expect(waveAfter('backup-checks', [app('prometheus', 1), app('sops-secrets', 0)])).toBe(2);
    expect(waveAfter('backup-checks', [app('sops-secrets', 0)])).toBe(1);
  });

  test('is the first wave without dependencies', () => {
    expect(waveAfter('backup-checks', [])).toBe(0);
  });

  test('throws when a dependency sits in the last wave', () => {
    expect(() => waveAfter('backup-checks', [app('prometheus', 8)])).toThrow("application 'backup-checks' depends on 'prometheus' in the last " +
      "wave (8), so no wave is left for it; lower the syncWave of 'prometheus'.");
  });
});
