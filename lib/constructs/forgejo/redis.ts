import { Duration, Size } from 'cdk8s';
import {
  Cpu, Deployment, DeploymentStrategy, ImagePullPolicy, Probe, Service,
  ServiceType, Volume,
} from 'cdk8s-plus-30';
import { Construct } from 'constructs';
import { COMMON_LABELS, selectorLabels } from '../../shared/labels';
import { restrictedPlusSecurityContext, selectStably, withoutEmptyExternalIps } from '../../shared/plus-workloads';
import { IMAGES } from '../../shared/pins';
import { BootstrapRequirements, IBootstrapComponent } from '../bootstrap/bootstrap-step';

/** Properties for `Redis`. */
export interface RedisProps {
  /** Namespace of the Deployment and Service. */
  readonly namespace: string;
  /**
   * Name of the Deployment and of its Service; also the `app.kubernetes.io/instance` label.
   *
   * @default 'redis'
   */
  readonly name?: string;
  /**
   * Redis image.
   *
   * @default - the pinned Redis image of `lib/shared/pins.ts`
   */
  readonly image?: string;
  /**
   * How long the runbook waits for the rollout when the scope is a bootstrap step.
   *
   * @default Duration.minutes(5)
   */
  readonly rolloutTimeout?: Duration;
}

/** The `redis` user and group of the official image. */
const REDIS_UID = 999;
/** The port Redis listens on. */
const REDIS_PORT = 6379;
/**
 * Where cdk8s-plus puts its `cdk8s.io/metadata.addr` label in a Deployment. The value is derived from the
 * construct path, so it changes when code is refactored; it must never reach a selector or a pod template.
 */

/**
 * A single-replica Redis used as a cache only: no RDB snapshots and no AOF (`--save ''`, `--appendonly no`),
 * so `/data` is an `emptyDir` and a restart starts empty. Keys without a TTL (queues) are never evicted;
 * keys with one (cache items, sessions) are evicted first when `maxmemory` is reached.
 *
 * Defines a Deployment and a ClusterIP Service on port 6379 that selects the Deployment's pods by
 * `app.kubernetes.io/name` and `app.kubernetes.io/instance` only. Inside a `BootstrapStep`, adds a rollout wait.
 *
 * @see https://hub.docker.com/_/redis
 */
export class Redis extends Construct implements IBootstrapComponent {
  public readonly name: string;
  public readonly namespace: string;
  public readonly image: string;
  public readonly rolloutTimeout: Duration;
  /** Name of the Service (the same as `name`). */
  public readonly serviceName: string;
  /** The port of the Service. */
  public readonly port = REDIS_PORT;
  /** The labels the Service and the Deployment select on. */
  public readonly selector: Readonly<Record<string, string>>;
  public readonly deployment: Deployment;
  public readonly service: Service;

  /** A rollout wait. */
  public readonly bootstrapRequirements: BootstrapRequirements;

  constructor(scope: Construct, id: string, props: RedisProps) {
    super(scope, id);
    this.name = props.name ?? 'redis';
    this.namespace = props.namespace;
    this.image = props.image ?? IMAGES.redis;
    this.rolloutTimeout = props.rolloutTimeout ?? Duration.minutes(5);
    this.serviceName = this.name;
    this.selector = selectorLabels('redis', this.name);
    const labels = { ...COMMON_LABELS, ...this.selector };

    this.deployment = new Deployment(this, 'Resource', {
      metadata: { name: this.name, namespace: this.namespace, labels },
      // Selected explicitly below: the default selector is the construct path, and a selector is immutable.
      select: false,
      podMetadata: { labels },
      replicas: 1,
      // Nothing is persisted, so an old and a new pod never need to coexist; Recreate also frees the memory first.
      strategy: DeploymentStrategy.recreate(),
      automountServiceAccountToken: false,
      enableServiceLinks: false,
      securityContext: { ensureNonRoot: true, user: REDIS_UID, group: REDIS_UID, fsGroup: REDIS_UID },
      containers: [{
        name: 'redis',
        image: this.image,
        imagePullPolicy: ImagePullPolicy.IF_NOT_PRESENT,
        args: [
          'redis-server',
          '--save', '',
          '--appendonly', 'no',
          // No password: only reachable inside the cluster. The official image already turns protected mode off;
          // say so explicitly so a different image cannot silently refuse every client.
          '--protected-mode', 'no',
          // Stay well under the 256Mi limit; evicting only keys with a TTL keeps queued items.
          '--maxmemory', '192mb',
          '--maxmemory-policy', 'volatile-lru',
        ],
        ports: [{ number: REDIS_PORT, name: 'redis' }],
        workingDir: '/data',
        volumeMounts: [{ path: '/data', volume: Volume.fromEmptyDir(this, 'DataVolume', 'data', { sizeLimit: Size.mebibytes(64) }) }],
        resources: {
          cpu: { request: Cpu.millis(50) },
          memory: { request: Size.mebibytes(64), limit: Size.mebibytes(256) },
        },
        securityContext: restrictedPlusSecurityContext(REDIS_UID),
        readiness: Probe.fromCommand(['redis-cli', '-p', String(REDIS_PORT), 'ping'], {
          periodSeconds: Duration.seconds(10),
          timeoutSeconds: Duration.seconds(3),
        }),
        liveness: Probe.fromTcpSocket({
          port: REDIS_PORT,
          periodSeconds: Duration.seconds(20),
          timeoutSeconds: Duration.seconds(3),
          failureThreshold: 6,
        }),
      }],
    });
    selectStably(this.deployment, this.selector);

    this.service = withoutEmptyExternalIps(new Service(this, 'Service', {
      metadata: { name: this.serviceName, namespace: this.namespace, labels },
      type: ServiceType.CLUSTER_IP,
      ports: [{ name: 'redis', port: REDIS_PORT, targetPort: REDIS_PORT }],
    }));
    for (const [key, value] of Object.entries(this.deployment.matchLabels)) this.service.selectLabel(key, value);

    this.bootstrapRequirements = {
      waits: [{ kind: 'rollout', namespace: this.namespace, deployment: this.name, timeoutSeconds: this.rolloutTimeout.toSeconds() }],
    };
  }

  /** In-cluster host name of the Service. */
  public get host(): string {
    return `${this.serviceName}.${this.namespace}.svc`;
  }

  /** `redis://` URL of logical database 0, the form Forgejo's cache, session and queue settings take. */
  public get url(): string {
    return `redis://${this.host}:${this.port}/0`;
  }
}
