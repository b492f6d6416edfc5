import { Duration, Testing } from 'cdk8s';
import { LonghornInstall, LonghornInstallProps } from '../../../lib/constructs/longhorn/longhorn-install';
import { PHASE0_CHARTS } from '../../../lib/shared/pins';

const DEFAULT_CLASS_JSONPATH = '{.metadata.annotations.storageclass\\.kubernetes\\.io/is-default-class}';

describe('LonghornInstall', () => {
  test('is a Helm release of the pinned chart, waited for until its StorageClass is the default', () => {
    // WHEN
    const longhorn = new LonghornInstall(Testing.chart(), 'Longhorn');
    // THEN
    expect(longhorn.release).toEqual({
      ...PHASE0_CHARTS.longhorn, releaseName: 'longhorn', namespace: 'longhorn-system', createNamespace: false, values: longhorn.values,
      timeoutSeconds: 600,
    });
    expect(longhorn.bootstrapRequirements).toEqual({
      helmRelease: longhorn.release,
      waits: [
        { kind: 'daemonset-rollout', namespace: 'longhorn-system', daemonSet: 'longhorn-manager', timeoutSeconds: 600 },
        { kind: 'rollout', namespace: 'longhorn-system', deployment: 'longhorn-driver-deployer', timeoutSeconds: 600 },
        {
          kind: 'object-exists', resource: 'storageclass/longhorn', jsonPath: DEFAULT_CLASS_JSONPATH, equals: 'true',
          description: 'StorageClass longhorn exists and is the default', timeoutSeconds: 600,
        },
      ],
    });
  });

  test('defaults: longhorn-system, /var/lib/longhorn, 3 replicas per engine, the default class, ten minutes', () => {
    const longhorn = new LonghornInstall(Testing.chart(), 'Longhorn');
    expect(longhorn.namespace).toBe('longhorn-system');
    expect(longhorn.replicaCount).toBe(3);
    expect(longhorn.timeout.toSeconds()).toBe(600);
    expect(longhorn.values).toEqual({
      defaultSettings: { defaultDataPath: '/var/lib/longhorn', defaultReplicaCount: '{"v1":"3","v2":"3"}' },
      persistence: { defaultClass: true, defaultClassReplicaCount: 3 },
    });
  });

  test('all props; without the default class it waits only for the StorageClass to exist', () => {
    const props: Required<LonghornInstallProps> = {
      namespace: 'storage', defaultDataPath: '/var/mnt/longhorn', replicaCount: 1, defaultClass: false, timeout: Duration.minutes(5),
    };
    const longhorn = new LonghornInstall(Testing.chart(), 'Longhorn', props);
    expect(longhorn.release).toMatchObject({ namespace: 'storage', timeoutSeconds: 300 });
    expect(longhorn.values).toEqual({
      defaultSettings: { defaultDataPath: '/var/mnt/longhorn', defaultReplicaCount: '{"v1":"1","v2":"1"}' },
      persistence: { defaultClass: false, defaultClassReplicaCount: 1 },
    });
    expect(longhorn.bootstrapRequirements.waits![2]).toEqual({
      kind: 'object-exists', resource: 'storageclass/longhorn', description: 'StorageClass longhorn exists', timeoutSeconds: 300,
    });
  });

  test('defines no object of its own: helm renders the chart', () => {
    const chart = Testing.chart();
    new LonghornInstall(chart, 'Longhorn');
    expect(Testing.synth(chart)).toEqual([]);
  });

  test('throws for a replica count below 1', () => {
    expect(() => new LonghornInstall(Testing.chart(), 'Longhorn', { replicaCount: 0 }))
      .toThrow("test/Longhorn: 'replicaCount' must be a whole number of at least 1, got 0.");
  });

  test('throws for a relative data path', () => {
    expect(() => new LonghornInstall(Testing.chart(), 'Longhorn', { defaultDataPath: 'var/lib/longhorn' }))
      .toThrow("test/Longhorn: 'defaultDataPath' must be an absolute path, got 'var/lib/longhorn'.");
  });
});
