import { Duration } from 'cdk8s';
import { Construct } from 'constructs';
import { BootstrapRequirements, IBootstrapComponent } from '../bootstrap/bootstrap-step';
import { HelmReleaseSpec } from '../bootstrap/waits';
import { PHASE0_CHARTS } from '../../shared/pins';

/**
 * The values of the `longhorn` chart this program sets, typed. Everything else keeps the chart's default.
 *
 * Since Longhorn 1.10 a setting that differs per data engine takes a JSON object per engine in `defaultSettings`
 * (`defaultReplicaCount: '{"v1":"3","v2":"3"}'`; longhorn/longhorn#11854).
 * @see https://longhorn.io/docs/1.11.0/advanced-resources/os-distro-specific/talos-linux-support/ (Talos: the
 *   namespace must enforce the `privileged` Pod Security level; the system extensions `siderolabs/iscsi-tools` and
 *   `siderolabs/util-linux-tools` and a kubelet `extraMounts` entry for the data path are machine config, outside
 *   this chart)
 */
export interface LonghornValues {
  readonly defaultSettings: {
    /** Where replicas live on each node. */
    readonly defaultDataPath: string;
    /** Replicas of a volume created without a StorageClass parameter, per data engine (JSON). */
    readonly defaultReplicaCount: string;
  };
  readonly persistence: {
    /** The chart's StorageClass `longhorn` is the cluster's default one. */
    readonly defaultClass: boolean;
    /** `numberOfReplicas` of that StorageClass. */
    readonly defaultClassReplicaCount: number;
  };
}

/** Properties for `LonghornInstall`. */
export interface LonghornInstallProps {
  /**
   * Namespace of the release. It must already exist with the `privileged` Pod Security level (Longhorn's manager
   * and CSI plugin mount host paths); the runbook does not create it.
   * @default 'longhorn-system'
   */
  readonly namespace?: string;
  /**
   * Where replicas live on each node (`defaultSettings.defaultDataPath`). On Talos, bind-mount it into the kubelet
   * (`machine.kubelet.extraMounts`).
   * @default '/var/lib/longhorn'
   */
  readonly defaultDataPath?: string;
  /**
   * Replicas per volume, for the default StorageClass and for volumes without one.
   * @default 3
   */
  readonly replicaCount?: number;
  /**
   * Make Longhorn's StorageClass the cluster default, so a PVC without `storageClassName` (CNPG's, Forgejo's) is
   * provisioned by it.
   * @default true
   */
  readonly defaultClass?: boolean;
  /**
   * How long helm may take for the release (`--timeout`).
   * @default Duration.minutes(10)
   */
  readonly timeout?: Duration;
}

/**
 * Longhorn, the storage, as a Helm release of the pinned chart: the bootstrap runbook installs it with
 * `helm upgrade --install`, then waits for the manager DaemonSet, the driver deployer, and the StorageClass the
 * manager creates. Defines no objects; the chart's manifests come from helm.
 */
export class LonghornInstall extends Construct implements IBootstrapComponent {
  public readonly release: HelmReleaseSpec;
  public readonly values: LonghornValues;
  public readonly namespace: string;
  public readonly replicaCount: number;
  public readonly timeout: Duration;
  /** The StorageClass the chart asks the manager to create (its ConfigMap `longhorn-storageclass`). */
  public readonly storageClassName = 'longhorn';
  /** The manager DaemonSet (chart template `daemonset-sa.yaml`). */
  public readonly managerDaemonSet = 'longhorn-manager';
  /** The Deployment that deploys the CSI driver once the managers run. */
  public readonly driverDeployer = 'longhorn-driver-deployer';

  constructor(scope: Construct, id: string, props: LonghornInstallProps = {}) {
    super(scope, id);
    this.namespace = props.namespace ?? 'longhorn-system';
    this.replicaCount = props.replicaCount ?? 3;
    if (!Number.isInteger(this.replicaCount) || this.replicaCount < 1) {
      throw new Error(`${this.node.path}: 'replicaCount' must be a whole number of at least 1, got ${this.replicaCount}.`);
    }
    const dataPath = props.defaultDataPath ?? '/var/lib/longhorn';
    if (!dataPath.startsWith('/')) throw new Error(`${this.node.path}: 'defaultDataPath' must be an absolute path, got '${dataPath}'.`);
    this.timeout = props.timeout ?? Duration.minutes(10);
    const replicas = String(this.replicaCount);
    this.values = {
      defaultSettings: { defaultDataPath: dataPath, defaultReplicaCount: JSON.stringify({ v1: replicas, v2: replicas }) },
      persistence: { defaultClass: props.defaultClass ?? true, defaultClassReplicaCount: this.replicaCount },
    };
    this.release = {
      ...PHASE0_CHARTS.longhorn,
      releaseName: 'longhorn',
      namespace: this.namespace,
      createNamespace: false,
      values: this.values,
      timeoutSeconds: this.timeout.toSeconds(),
    };
  }

  public get bootstrapRequirements(): BootstrapRequirements {
    const timeoutSeconds = this.timeout.toSeconds();
    return {
      helmRelease: this.release,
      waits: [
        { kind: 'daemonset-rollout', namespace: this.namespace, daemonSet: this.managerDaemonSet, timeoutSeconds },
        { kind: 'rollout', namespace: this.namespace, deployment: this.driverDeployer, timeoutSeconds },
        this.values.persistence.defaultClass
          ? {
            kind: 'object-exists', resource: `storageclass/${this.storageClassName}`,
            jsonPath: '{.metadata.annotations.storageclass\\.kubernetes\\.io/is-default-class}', equals: 'true',
            description: `StorageClass ${this.storageClassName} exists and is the default`, timeoutSeconds,
          }
          : {
            kind: 'object-exists', resource: `storageclass/${this.storageClassName}`,
            description: `StorageClass ${this.storageClassName} exists`, timeoutSeconds,
          },
      ],
    };
  }
}
