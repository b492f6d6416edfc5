import { Duration, Size } from 'cdk8s';
import {
  Cpu, Deployment, DeploymentStrategy, EnvValue, ImagePullPolicy, Probe, Secret, Service,
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
  /**
   * Secret in `namespace` whose key `password` holds the password every client must give (`requirepass`). Inside a
   * bootstrap step the runbook creates it with a random hex value when it does not exist, and keeps it on every re-run;
   * it never reaches the output. Clients read it by reference, so it must be in their namespace too.
   *
   * @default - `<name>-password`
   */
  readonly passwordSecret?: string;
}

/** The `redis` user and group of the official image. */
const REDIS_UID = 999;
/** The port Redis listens on. */
const REDIS_PORT = 6379;
/** Key of the password in `passwordSecret`. */
const PASSWORD_KEY = 'password';
/** Random bytes of a generated password: 256 bits, 64 hex digits. */
const PASSWORD_BYTES = 32;
/**
 * The variable redis-cli takes its password from when no `-a` is given (redis/redis `src/redis-cli.c`:
 * `REDIS_CLI_AUTH_ENV "REDISCLI_AUTH"`, read in `parseEnv()`), so the exec readiness probe, which runs with the
 * container's environment, authenticates without the password on its command line. The server reads the same variable
 * through Kubernetes' `$(VAR)` expansion of `args`.
 */
const PASSWORD_ENV = 'REDISCLI_AUTH';

/**
 * A single-replica Redis used as a cache only: no RDB snapshots and no AOF (`--save ''`, `--appendonly no`),
 * so `/data` is an `emptyDir` and a restart starts empty. Keys without a TTL (queues) are never evicted;
 * keys with one (cache items, sessions) are evicted first when `maxmemory` is reached.
 *
 * Every client must authenticate with the password in `passwordSecret` (`requirepass`, the `default` user); the
 * password is read by reference and never appears in the output. Build a client's URL with `urlWithPasswordFrom()`.
 *
 * Defines a Deployment and a ClusterIP Service on port 6379 that selects the Deployment's pods by
 * `app.kubernetes.io/name` and `app.kubernetes.io/instance` only. Inside a `BootstrapStep`, the runbook generates the
 * password Secret once before the step is applied, and waits for the rollout after.
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
  /** The Secret the password is read from (key `passwordSecretKey`). */
  public readonly passwordSecret: string;
  /** Key of the password in `passwordSecret`. */
  public readonly passwordSecretKey = PASSWORD_KEY;

  /** The password Secret generated once before the step, and a rollout wait after. */
  public readonly bootstrapRequirements: BootstrapRequirements;

  constructor(scope: Construct, id: string, props: RedisProps) {
    super(scope, id);
    this.name = props.name ?? 'redis';
    this.namespace = props.namespace;
    this.image = props.image ?? IMAGES.redis;
    this.rolloutTimeout = props.rolloutTimeout ?? Duration.minutes(5);
    this.serviceName = this.name;
    this.passwordSecret = props.passwordSecret ?? `${this.name}-password`;
    if (!isSecretName(this.passwordSecret)) {
      throw new Error(`${this.node.path}: 'passwordSecret' must be a Secret name (lower-case letters, digits, '-' and '.', at most ` +
        `253 characters) such as 'forgejo-redis-password', got '${this.passwordSecret}'.`);
    }
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
        // Only from the Secret: Kubernetes expands `$(REDISCLI_AUTH)` in `args` from this list, and a missing Secret
        // keeps the pod in CreateContainerConfigError instead of starting Redis with the literal text as password.
        envVariables: {
          [PASSWORD_ENV]: EnvValue.fromSecretValue({ secret: Secret.fromSecretName(this, 'PasswordSecret', this.passwordSecret), key: PASSWORD_KEY }),
        },
        args: [
          'redis-server',
          '--save', '',
          '--appendonly', 'no',
          // The pod spec holds only the reference; Redis overwrites its process title (`set-proc-title yes`, the
          // default), so the expanded value is not shown by `ps` either.
          '--requirepass', `$(${PASSWORD_ENV})`,
          // Protected mode only refuses non-loopback clients while the default user has no password (redis/redis
          // `src/networking.c`: `server.protected_mode && DefaultUser->flags & USER_FLAG_NOPASS`), so with
          // `requirepass` it changes nothing. The official image compiles the default to `no` (docker-library-redis
          // `debian/Dockerfile`: "disable Redis protected mode"); `yes`, Redis' own default, fails closed: were the
          // password ever empty, remote clients would be refused rather than let in without one.
          '--protected-mode', 'yes',
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
        // `-e`: without it redis-cli exits 0 on an error reply such as NOAUTH (redis/redis `src/redis-cli.c`: only
        // `config.set_errcode` makes `cliReadReply` exit 1), so the probe would pass with a wrong password.
        readiness: Probe.fromCommand(['redis-cli', '-e', '-p', String(REDIS_PORT), 'ping'], {
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
      // Hex, not base64: clients put the password into a `redis://:PASSWORD@host` URL, where `/` ends the authority.
      preconditions: [{
        kind: 'generated-secret', namespace: this.namespace, name: this.passwordSecret, key: PASSWORD_KEY, bytes: PASSWORD_BYTES, encoding: 'hex',
      }],
      waits: [{ kind: 'rollout', namespace: this.namespace, deployment: this.name, timeoutSeconds: this.rolloutTimeout.toSeconds() }],
    };
  }

  /** In-cluster host name of the Service. */
  public get host(): string {
    return `${this.serviceName}.${this.namespace}.svc`;
  }

  /** `redis://` URL of logical database 0, without credentials: for display; a client also needs the password. */
  public get url(): string {
    return `redis://${this.host}:${this.port}/0`;
  }

  /**
   * `redis://:$(VARIABLE)@host:6379/0`: the URL of logical database 0 with the password taken from the container's
   * environment variable `variable`, which Kubernetes substitutes when the variable is defined EARLIER in the same
   * container's `env` (dependent environment variables). The user part is empty, so the password authenticates the
   * `default` user. The generated password is hex, so it needs no escaping in the URL.
   */
  public urlWithPasswordFrom(variable: string): string {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(variable)) {
      throw new Error(`${this.node.path}: the password variable must be a shell-style name such as 'REDIS_PASSWORD', got '${variable}'.`);
    }
    return `redis://:$(${variable})@${this.host}:${this.port}/0`;
  }
}

/** Whether `s` is a valid Secret name: an RFC 1123 DNS subdomain. */
function isSecretName(s: string): boolean {
  return s.length <= 253 && /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/.test(s);
}
