import { Duration, Size } from 'cdk8s';
import {
  Cpu, Deployment, DeploymentStrategy, EnvValue, FsGroupChangePolicy, ImagePullPolicy, k8s,
  PersistentVolumeClaim, Probe, Secret, Service, ServiceType, Volume,
} from 'cdk8s-plus-30';
import { Construct } from 'constructs';
import { COMMON_LABELS, selectorLabels } from '../../shared/labels';
import { restrictedPlusSecurityContext, selectStably, withoutEmptyExternalIps } from '../../shared/plus-workloads';
import { IMAGES } from '../../shared/pins';
import { CnpgCluster } from '../cnpg/cnpg-cluster';
import { BootstrapRequirements, IBootstrapComponent } from '../bootstrap/bootstrap-step';
import { Precondition } from '../bootstrap/waits';
import { Redis } from './redis';
import { hasSubUnitSuffix, isPositiveQuantity, parseQuantity } from '../../shared/quantity';
import { INetworkWorkload, NetworkFlow, outsideCluster, podPeer, PodPeer } from '../../shared/network';

/**
 * The PostgreSQL database Forgejo uses. A `CnpgDatabase` fits as is; for the database `initdb` created, pass
 * `{ cluster, pgName: cluster.initdbDatabase, owner: cluster.initdbOwner }`.
 */
export interface ForgejoDatabase {
  /** The CNPG cluster that hosts the database. */
  readonly cluster: CnpgCluster;
  /** PostgreSQL name of the database. */
  readonly pgName: string;
  /** Role that owns the database; Forgejo logs in as this role. */
  readonly owner: string;
}

/**
 * How Forgejo is reachable from outside the cluster. The in-cluster Services `forgejo-http` and `forgejo-ssh` are
 * always ClusterIP (Argo CD and the mirror Job use them); an exposure adds one object next to them.
 *
 * - `LoadBalancer`: a Service `forgejo-lan` of type LoadBalancer with both ports (HTTP 3000, SSH 2222). `address`
 *   asks the load balancer (MetalLB, k3s ServiceLB, ...) for that IP (`spec.loadBalancerIP`); without it the
 *   implementation picks one, so `rootUrl` cannot be derived and stays the in-cluster URL.
 * - `Ingress`: an Ingress `forgejo` for `host` on the HTTP Service (SSH stays in-cluster); `className` picks the
 *   IngressClass, else the cluster's default class.
 * - `ClusterIP`: nothing is exposed.
 */
export type ForgejoExpose =
  | { readonly type: 'LoadBalancer'; readonly address?: string }
  | { readonly type: 'Ingress'; readonly host: string; readonly className?: string }
  | { readonly type: 'ClusterIP' };

/** Properties for `ForgejoServer`. */
export interface ForgejoServerProps {
  /** Namespace of Forgejo, its volume, Services and its Redis. */
  readonly namespace: string;

  /** The database Forgejo connects to, on the primary of its cluster. */
  readonly database: ForgejoDatabase;

  /**
   * Secret in `namespace` with keys `username` and `password` for the database. Read by reference; its values
   * never reach the output. Required when the cluster is in another namespace or `database.owner` is not the
   * cluster's `initdb` owner, because then the CNPG-generated Secret is unreadable or holds another role.
   * The runbook checks that it exists before applying Forgejo.
   *
   * @default - the CNPG-generated `<cluster>-app` Secret
   */
  readonly databaseSecret?: string;

  /**
   * Size of the volume mounted at `/var/lib/gitea` (repositories, `app.ini`, SSH host keys).
   *
   * @default '20Gi'
   */
  readonly storageSize?: string;

  /**
   * StorageClass of the volume.
   *
   * @default - the cluster's default StorageClass
   */
  readonly storageClass?: string;

  /**
   * Forgejo image; must be a `-rootless` variant (uid 1000, HTTP 3000, SSH 2222, data in `/var/lib/gitea`).
   *
   * @default - the pinned Forgejo image of `lib/shared/pins.ts`
   */
  readonly image?: string;

  /**
   * Redis for the cache, sessions and queues. It must be in `namespace`: Forgejo reads its password Secret by reference.
   *
   * @default - a `Redis` named `forgejo-redis` in `namespace`, defined inside this construct
   */
  readonly redis?: Redis;

  /**
   * Public URL of Forgejo (`[server] ROOT_URL`); its host becomes `DOMAIN` and `SSH_DOMAIN`, the hosts shown
   * in clone URLs.
   *
   * @default - derived from `expose`: `http://<address>:3000/` for a LoadBalancer with an address,
   * `http://<host>/` for an Ingress, else `inClusterHttpUrl` followed by `/` with the in-cluster SSH host
   * @see https://forgejo.org/docs/latest/admin/config-cheat-sheet/#server-server
   */
  readonly rootUrl?: string;

  /**
   * How long the runbook waits for the rollout when the scope is a bootstrap step. The first start runs the
   * database migrations, which the startup probe allows up to five minutes.
   *
   * @default Duration.minutes(10)
   */
  readonly rolloutTimeout?: Duration;

  /**
   * Secret (key `secret-key`) holding Forgejo's `[security] SECRET_KEY`, which encrypts 2FA secrets and other
   * data at rest. Without it Forgejo falls back to a built-in, publicly known key. Inside a bootstrap step the
   * runbook creates it with a random value when it does not exist, and keeps it on every re-run.
   *
   * @default 'forgejo-secret-key'
   */
  readonly secretKeySecret?: string;

  /**
   * A local file on the machine that runs the runbook holding the `SECRET_KEY` to install into `secretKeySecret`, for a
   * restore: the restored database's 2FA secrets and other data are encrypted with the lost Forgejo's key, so a new
   * random one would make them unreadable. The runbook refuses to start without the file.
   * @default - the runbook generates a random key once and keeps it
   */
  readonly secretKeyFile?: { readonly variable: string; readonly defaultPath: string; readonly hint: string };

  /**
   * How Forgejo is reachable from outside the cluster; see `ForgejoExpose`.
   *
   * @default { type: 'ClusterIP' } - only the in-cluster Services
   */
  readonly expose?: ForgejoExpose;
}

/** Uid and gid of the `git` user of the rootless image. */
const FORGEJO_UID = 1000;
const HTTP_PORT = 3000;
const SSH_PORT = 2222;
/** The rootless image's data directory; its default `app.ini` is `custom/conf/app.ini` under it, so writable. */
const DATA_PATH = '/var/lib/gitea';
/** Forgejo's health endpoint: 200 for pass and warn, 424 when the database or cache fails. */
const HEALTH_PATH = '/api/healthz';
/**
 * The container variable that holds Redis' password, read by reference from Redis' Secret. Not `FORGEJO_*` or
 * `GITEA_*`: the image's start script mirrors those and writes `*__section__KEY` ones into `app.ini`.
 */
const REDIS_PASSWORD_ENV = 'REDIS_PASSWORD';

/**
 * Forgejo, rootless, as a single-replica Deployment on a ReadWriteOnce volume, with its Redis.
 *
 * Configuration is entirely environment variables (`FORGEJO__section__KEY`, which Forgejo writes into its
 * `app.ini`): PostgreSQL on the cluster's read-write Service with the credentials read by reference from a
 * Secret, cache, sessions and queues on Redis with its password read by reference from Redis' Secret, and
 * `INSTALL_LOCK` so the web installer never runs.
 *
 * Defines the volume claim, the Deployment (strategy `Recreate`, because the volume attaches to one node at a
 * time), the Services `forgejo-http` (3000) and `forgejo-ssh` (2222), and a `Redis` unless one is given. Every
 * selector is `app.kubernetes.io/name` plus `app.kubernetes.io/instance`, never a construct path. Inside a
 * `BootstrapStep` it adds rollout waits and, for a Secret the user provides, a precondition that it exists.
 *
 * It does not wait for the database: compose it after a `WaitForPostgresJob` with `node.addDependency()`.
 *
 * @see https://forgejo.org/docs/latest/admin/config-cheat-sheet/
 */
export class ForgejoServer extends Construct implements IBootstrapComponent, INetworkWorkload {
  /** Name of the Deployment, and prefix of every other object's name. */
  public readonly name = 'forgejo';
  public readonly namespace: string;
  public readonly database: ForgejoDatabase;
  /** The Secret the database credentials are read from. */
  public readonly databaseSecret: string;
  /** The Secret Forgejo's `SECRET_KEY` is read from (key `secret-key`). */
  public readonly secretKeySecret: string;
  public readonly storageSize: string;
  public readonly storageClass?: string;
  public readonly image: string;
  public readonly rootUrl: string;
  /** Host shown in SSH clone URLs (`[server] SSH_DOMAIN`). */
  public readonly sshDomain: string;
  public readonly rolloutTimeout: Duration;
  public readonly redis: Redis;
  /**
   * Redis' password and Forgejo's secret key generated once, and its database Secret checked, before apply; Redis and
   * Forgejo rolled out after.
   */
  public readonly bootstrapRequirements: BootstrapRequirements;
  /** The labels the Services and the Deployment select on. */
  public readonly selector: Readonly<Record<string, string>>;
  public readonly httpServiceName: string;
  public readonly httpPort = HTTP_PORT;
  public readonly sshServiceName: string;
  public readonly sshPort = SSH_PORT;
  /** Name of the claim mounted at `/var/lib/gitea`. */
  public readonly claimName: string;
  /** The volume of that claim, for a pod that must see Forgejo's data (the backup, the restore). */
  public readonly dataVolume: Volume;
  /** Where the data volume is mounted: the rootless image's `GITEA_WORK_DIR` and `APP_DATA_PATH`. */
  public readonly dataPath = DATA_PATH;
  /** The `emptyDir` mounted at `/tmp` (GITEA_TEMP lives there), for init containers of the pod. */
  public readonly tmpVolume: Volume;
  /** Uid and gid of the `git` user of the rootless image, which owns every file on the data volume. */
  public readonly uid = FORGEJO_UID;
  public readonly deployment: Deployment;
  public readonly httpService: Service;
  public readonly sshService: Service;
  /**
   * Forgejo's configuration as environment variables (`FORGEJO__section__KEY`, secrets by reference), for a
   * Job that runs the Forgejo CLI against the same database.
   */
  public readonly configEnv: Readonly<Record<string, EnvValue>>;
  /** How Forgejo is reachable from outside the cluster. */
  public readonly expose: ForgejoExpose;
  /** The LoadBalancer Service `forgejo-lan`, when `expose.type` is `LoadBalancer`. */
  public readonly lanService?: k8s.KubeService;
  /** The Ingress `forgejo`, when `expose.type` is `Ingress`. */
  public readonly ingress?: k8s.KubeIngress;

  constructor(scope: Construct, id: string, props: ForgejoServerProps) {
    super(scope, id);
    this.namespace = props.namespace;
    this.database = props.database;
    this.storageSize = props.storageSize ?? '20Gi';
    this.storageClass = props.storageClass;
    this.image = props.image ?? IMAGES.forgejo;
    this.rolloutTimeout = props.rolloutTimeout ?? Duration.minutes(10);
    this.httpServiceName = `${this.name}-http`;
    this.sshServiceName = `${this.name}-ssh`;
    this.claimName = `${this.name}-data`;
    this.expose = props.expose ?? { type: 'ClusterIP' };
    this.validateExpose();
    const exposedUrl = this.exposedRootUrl();
    this.rootUrl = props.rootUrl ?? exposedUrl ?? `${this.inClusterHttpUrl}/`;
    this.databaseSecret = props.databaseSecret ?? this.defaultDatabaseSecret();
    this.secretKeySecret = props.secretKeySecret ?? 'forgejo-secret-key';
    const host = rootUrlHost(this.rootUrl);
    // The SSH host follows ROOT_URL when it names a host clients outside the cluster reach.
    this.sshDomain = props.rootUrl !== undefined || exposedUrl !== undefined ? host : `${this.sshServiceName}.${this.namespace}.svc.cluster.local`;

    const size = parseQuantity(this.storageSize);
    if (size === undefined || !isPositiveQuantity(size) || hasSubUnitSuffix(size)) {
      throw new Error(`${this.node.path}: 'storageSize' must be a positive Kubernetes quantity such as '20Gi', got '${this.storageSize}'.`);
    }

    this.redis = props.redis ?? new Redis(this, 'Redis', { namespace: this.namespace, name: `${this.name}-redis` });
    if (this.redis.namespace !== this.namespace) {
      throw new Error(`${this.node.path}: redis '${this.redis.name}' is in namespace '${this.redis.namespace}', not '${this.namespace}', ` +
        `so Forgejo cannot read its password Secret '${this.redis.passwordSecret}' (a pod reads Secrets of its own namespace only). ` +
        `Define the Redis in namespace '${this.namespace}', or leave 'redis' unset.`);
    }
    // Forgejo's nosql manager reads the password of a redis:// URL from its user info (`uri.User.Password()`, or the
    // user name alone when there is no ':'), or from a `password` query parameter; cache, session and queue all get
    // their client from it (forgejo/forgejo `modules/nosql/manager_redis.go` `getRedisOptions`, `modules/cache/
    // cache_redis.go`, `modules/session/redis.go`, `modules/queue/base_redis.go`; read at the GitHub copy
    // yonasBSD/forgejo 5e777a43, Nov 2024, as the 16.0.3 tree could not be fetched; the code dates from Gitea 1.15).
    // The admin config page masks only a `password=` field of a redis setting (`routers/web/admin/config.go`
    // `shadowPassword`), so it shows this password to Forgejo's site administrators, who control all Redis holds anyway.
    const redisUrl = this.redis.urlWithPasswordFrom(REDIS_PASSWORD_ENV);
    this.selector = selectorLabels('forgejo', this.name);
    const labels = { ...COMMON_LABELS, ...this.selector };
    const metadata = (name: string) => ({ name, namespace: this.namespace, labels });

    const claim = new k8s.KubePersistentVolumeClaim(this, 'Data', {
      metadata: metadata(this.claimName),
      spec: {
        accessModes: ['ReadWriteOnce'],
        storageClassName: this.storageClass,
        resources: { requests: { storage: k8s.Quantity.fromString(this.storageSize) } },
      },
    });

    const dataVolume = this.dataVolume = Volume.fromPersistentVolumeClaim(this, 'DataVolume', PersistentVolumeClaim.fromClaimName(this, 'Claim', claim.name), {
      name: 'data',
    });
    const credentials = Secret.fromSecretName(this, 'DatabaseSecret', this.databaseSecret);
    const cluster = this.database.cluster;
    this.deployment = new Deployment(this, 'Resource', {
      metadata: metadata(this.name),
      // Selected explicitly below: the default selector is the construct path, and a selector is immutable.
      select: false,
      podMetadata: { labels },
      replicas: 1,
      // The ReadWriteOnce volume cannot be attached to a second pod on another node during a rolling update.
      strategy: DeploymentStrategy.recreate(),
      automountServiceAccountToken: false,
      // Service links would inject FORGEJO_HTTP_PORT=tcp://... and the like, which the image mirrors into GITEA_*.
      enableServiceLinks: false,
      securityContext: {
        ensureNonRoot: true,
        user: FORGEJO_UID,
        group: FORGEJO_UID,
        fsGroup: FORGEJO_UID,
        // The volume holds every repository; a recursive chown on each start would take minutes.
        fsGroupChangePolicy: FsGroupChangePolicy.ON_ROOT_MISMATCH,
      },
      containers: [{
        name: 'forgejo',
        image: this.image,
        imagePullPolicy: ImagePullPolicy.IF_NOT_PRESENT,
        ports: [{ number: HTTP_PORT, name: 'http' }, { number: SSH_PORT, name: 'ssh' }],
        envVariables: this.configEnv = {
          GITEA_TEMP: EnvValue.fromValue('/tmp/gitea'),
          FORGEJO__database__DB_TYPE: EnvValue.fromValue('postgres'),
          FORGEJO__database__HOST: EnvValue.fromValue(`${cluster.readWriteHost}:5432`),
          FORGEJO__database__NAME: EnvValue.fromValue(this.database.pgName),
          FORGEJO__database__USER: EnvValue.fromSecretValue({ secret: credentials, key: 'username' }),
          FORGEJO__database__PASSWD: EnvValue.fromSecretValue({ secret: credentials, key: 'password' }),
          // CNPG always serves TLS; `require` encrypts without verifying its self-signed CA.
          FORGEJO__database__SSL_MODE: EnvValue.fromValue('require'),
          // Before the three URLs that use it: Kubernetes expands `$(REDIS_PASSWORD)` only from variables defined
          // earlier in the list, and cdk8s-plus renders this record in insertion order.
          [REDIS_PASSWORD_ENV]: EnvValue.fromSecretValue({
            secret: Secret.fromSecretName(this, 'RedisPasswordSecret', this.redis.passwordSecret), key: this.redis.passwordSecretKey,
          }),
          FORGEJO__cache__ADAPTER: EnvValue.fromValue('redis'),
          FORGEJO__cache__HOST: EnvValue.fromValue(redisUrl),
          FORGEJO__session__PROVIDER: EnvValue.fromValue('redis'),
          FORGEJO__session__PROVIDER_CONFIG: EnvValue.fromValue(redisUrl),
          FORGEJO__queue__TYPE: EnvValue.fromValue('redis'),
          FORGEJO__queue__CONN_STR: EnvValue.fromValue(redisUrl),
          FORGEJO__server__ROOT_URL: EnvValue.fromValue(this.rootUrl),
          FORGEJO__server__DOMAIN: EnvValue.fromValue(host),
          FORGEJO__server__SSH_DOMAIN: EnvValue.fromValue(this.sshDomain),
          FORGEJO__server__HTTP_PORT: EnvValue.fromValue(String(HTTP_PORT)),
          FORGEJO__server__START_SSH_SERVER: EnvValue.fromValue('true'),
          FORGEJO__server__SSH_PORT: EnvValue.fromValue(String(SSH_PORT)),
          FORGEJO__server__SSH_LISTEN_PORT: EnvValue.fromValue(String(SSH_PORT)),
          FORGEJO__security__INSTALL_LOCK: EnvValue.fromValue('true'),
          FORGEJO__security__SECRET_KEY: EnvValue.fromSecretValue({ secret: Secret.fromSecretName(this, 'SecretKey', this.secretKeySecret), key: 'secret-key' }),
        },
        volumeMounts: [
          { path: DATA_PATH, volume: dataVolume },
          // The root filesystem is read-only; GITEA_TEMP lives here.
          { path: '/tmp', volume: this.tmpVolume = Volume.fromEmptyDir(this, 'TmpVolume', 'tmp', { sizeLimit: Size.gibibytes(1) }) },
        ],
        resources: {
          cpu: { request: Cpu.millis(100) },
          memory: { request: Size.mebibytes(256), limit: Size.gibibytes(1) },
        },
        securityContext: restrictedPlusSecurityContext(FORGEJO_UID),
        // Up to five minutes for the first start, which migrates an empty database.
        startup: Probe.fromHttpGet(HEALTH_PATH, {
          port: HTTP_PORT,
          periodSeconds: Duration.seconds(10),
          timeoutSeconds: Duration.seconds(5),
          failureThreshold: 30,
        }),
        readiness: Probe.fromHttpGet(HEALTH_PATH, {
          port: HTTP_PORT,
          periodSeconds: Duration.seconds(10),
          timeoutSeconds: Duration.seconds(5),
          failureThreshold: 3,
        }),
        // TCP, not healthz: a database or Redis outage makes healthz fail, and a restart would not fix it.
        liveness: Probe.fromTcpSocket({
          port: HTTP_PORT,
          periodSeconds: Duration.seconds(20),
          timeoutSeconds: Duration.seconds(5),
          failureThreshold: 6,
        }),
      }],
    });
    selectStably(this.deployment, this.selector);
    // Without Redis, Forgejo's cache, session and queue setup fails at start.
    this.deployment.node.addDependency(this.redis);

    this.httpService = this.exposePort('HttpService', this.httpServiceName, 'http', HTTP_PORT);
    this.sshService = this.exposePort('SshService', this.sshServiceName, 'ssh', SSH_PORT);
    const exposed = this.exposeOutside(labels);
    this.lanService = exposed.lanService;
    this.ingress = exposed.ingress;

    const keyFile = props.secretKeyFile;
    const preconditions: Precondition[] = [keyFile
      ? { kind: 'secret-from-file', namespace: this.namespace, name: this.secretKeySecret, key: 'secret-key', format: 'token', ...keyFile }
      : { kind: 'generated-secret', namespace: this.namespace, name: this.secretKeySecret, key: 'secret-key', bytes: 48 },
    ];
    if (!this.usesClusterSecret) {
      preconditions.push({
        kind: 'secret-exists',
        namespace: this.namespace,
        name: this.databaseSecret,
        hint: `Create Secret '${this.databaseSecret}' in namespace '${this.namespace}' with keys 'username' and 'password' ` +
          `for PostgreSQL role '${this.database.owner}' on cluster '${cluster.name}'.`,
      });
    }
    this.bootstrapRequirements = {
      // Redis' password Secret first: Redis and Forgejo both read it when they start.
      preconditions: [...(this.redis.bootstrapRequirements.preconditions ?? []), ...preconditions],
      waits: [
        ...(this.redis.bootstrapRequirements.waits ?? []),
        { kind: 'rollout', namespace: this.namespace, deployment: this.name, timeoutSeconds: this.rolloutTimeout.toSeconds() },
      ],
    };
  }

  /** Forgejo's pods, for network policies: exactly what its Services select. */
  public get peer(): PodPeer {
    return podPeer(this.namespace, this.name, this.selector);
  }

  /** Redis' pods, for network policies. */
  public get redisPeer(): PodPeer {
    return podPeer(this.redis.namespace, this.redis.name, this.redis.selector);
  }

  /**
   * The connections Forgejo's props imply: to its database cluster (`database`) and its Redis (`redis`), and from
   * outside the cluster when `expose` publishes it. Redis opens none.
   */
  public get networkFlows(): NetworkFlow[] {
    const cluster = this.database.cluster;
    const flows: NetworkFlow[] = [
      { from: this.peer, to: cluster.peer, ports: [cluster.postgresPort], reason: `ForgejoServer.database: PostgreSQL of cluster ${cluster.namespace}/${cluster.name}` },
      { from: this.peer, to: this.redisPeer, ports: [{ port: this.redis.port, name: 'redis' }], reason: 'ForgejoServer.redis: cache, sessions and queues' },
    ];
    const ports = [{ port: HTTP_PORT, name: 'http' }, { port: SSH_PORT, name: 'ssh' }];
    if (this.expose.type === 'LoadBalancer') {
      flows.push({ from: outsideCluster('clients of Service forgejo-lan'), to: this.peer, ports, reason: 'ForgejoServer.expose: LoadBalancer' });
    } else if (this.expose.type === 'Ingress') {
      // The ingress controller's namespace is not known here: every namespace, HTTP only (SSH stays in-cluster).
      flows.push({
        from: { kind: 'selected-pods', name: 'any pod (the ingress controller)' }, to: this.peer, ports: [ports[0]],
        reason: `ForgejoServer.expose: Ingress ${this.expose.host}`,
      });
    }
    return flows;
  }

  /** In-cluster URL of the HTTP Service, without a trailing slash. */
  public get inClusterHttpUrl(): string {
    return `http://${this.httpServiceName}.${this.namespace}.svc.cluster.local:${HTTP_PORT}`;
  }

  /** Whether the credentials come from the Secret CNPG generates, rather than one the user provides. */
  public get usesClusterSecret(): boolean {
    const cluster = this.database.cluster;
    return cluster.namespace === this.namespace && this.databaseSecret === cluster.appSecretName;
  }

  /** The CNPG app Secret, when Forgejo can read it and it holds the owner's credentials. */
  private defaultDatabaseSecret(): string {
    const cluster = this.database.cluster;
    const fix = `Set 'databaseSecret' to a Secret in namespace '${this.namespace}' with keys 'username' and 'password' ` +
      `for role '${this.database.owner}'.`;
    if (cluster.namespace !== this.namespace) {
      throw new Error(`${this.node.path}: postgres cluster '${cluster.name}' is in namespace '${cluster.namespace}', not '${this.namespace}', ` +
        `so Forgejo cannot read its Secret '${cluster.appSecretName}' (a pod reads Secrets of its own namespace only). ${fix}`);
    }
    if (this.database.owner !== cluster.initdbOwner) {
      throw new Error(`${this.node.path}: database owner '${this.database.owner}' is not the initdb owner '${cluster.initdbOwner}' of ` +
        `postgres cluster '${cluster.name}', so its Secret '${cluster.appSecretName}' holds the wrong role. ${fix}`);
    }
    return cluster.appSecretName;
  }

  /** Checks `expose`; a message names the construct and the prop. */
  private validateExpose(): void {
    const e = this.expose;
    const where = `${this.node.path}: 'expose`;
    if (e.type === 'LoadBalancer' && e.address !== undefined && !isIpAddress(e.address)) {
      throw new Error(`${where}.address' must be an IPv4 or IPv6 address such as '192.168.1.165', got '${e.address}'.`);
    }
    if (e.type === 'Ingress') {
      if (!isDnsName(e.host)) {
        throw new Error(`${where}.host' must be a DNS name such as 'git.home.arpa' (lower case, no scheme, port or path), got '${e.host}'.`);
      }
      if (e.className !== undefined && !isDnsName(e.className)) {
        throw new Error(`${where}.className' must be an IngressClass name such as 'nginx', got '${e.className}'.`);
      }
    }
    if (!['LoadBalancer', 'Ingress', 'ClusterIP'].includes(e.type)) {
      throw new Error(`${where}.type' must be 'LoadBalancer', 'Ingress' or 'ClusterIP', got '${String(e.type)}'.`);
    }
  }

  /** ROOT_URL implied by `expose`, when it names an address or host. */
  private exposedRootUrl(): string | undefined {
    const e = this.expose;
    if (e.type === 'LoadBalancer' && e.address !== undefined) {
      return `http://${e.address.includes(':') ? `[${e.address}]` : e.address}:${HTTP_PORT}/`;
    }
    if (e.type === 'Ingress') return `http://${e.host}/`;
    return undefined;
  }

  /** Defines the LoadBalancer Service or the Ingress `expose` asks for. */
  private exposeOutside(labels: Record<string, string>): { lanService?: k8s.KubeService; ingress?: k8s.KubeIngress } {
    const e = this.expose;
    if (e.type === 'LoadBalancer') {
      // One Service with both ports: a fixed address cannot be shared by two Services without
      // implementation-specific annotations (MetalLB's allow-shared-ip).
      return {
        lanService: new k8s.KubeService(this, 'LanService', {
          metadata: { name: `${this.name}-lan`, namespace: this.namespace, labels },
          spec: {
            type: 'LoadBalancer',
            loadBalancerIp: e.address,
            selector: { ...this.deployment.matchLabels },
            ports: [
              { name: 'http', port: HTTP_PORT, targetPort: k8s.IntOrString.fromNumber(HTTP_PORT) },
              { name: 'ssh', port: SSH_PORT, targetPort: k8s.IntOrString.fromNumber(SSH_PORT) },
            ],
          },
        }),
      };
    }
    if (e.type === 'Ingress') {
      return {
        ingress: new k8s.KubeIngress(this, 'Ingress', {
          metadata: { name: this.name, namespace: this.namespace, labels },
          spec: {
            ingressClassName: e.className,
            rules: [{
              host: e.host,
              http: {
                paths: [{
                  path: '/',
                  pathType: 'Prefix',
                  backend: { service: { name: this.httpServiceName, port: { number: HTTP_PORT } } },
                }],
              },
            }],
          },
        }),
      };
    }
    return {};
  }

  /** Defines a ClusterIP Service for one container port that selects exactly the Deployment's pods. */
  private exposePort(id: string, name: string, portName: string, port: number): Service {
    const service = withoutEmptyExternalIps(new Service(this, id, {
      metadata: { name, namespace: this.namespace, labels: { ...COMMON_LABELS, ...this.selector } },
      type: ServiceType.CLUSTER_IP,
      ports: [{ name: portName, port, targetPort: port }],
    }));
    for (const [key, value] of Object.entries(this.deployment.matchLabels)) service.selectLabel(key, value);
    return service;
  }
}

/** Whether `s` is a plain IPv4 or IPv6 address (no port, prefix or zone). */
function isIpAddress(s: string): boolean {
  if (/^\d{1,3}(\.\d{1,3}){3}$/.test(s)) return s.split('.').every((o) => Number(o) <= 255 && String(Number(o)) === o);
  return s.includes(':') && /^[0-9a-fA-F:.]+$/.test(s) && URL.canParse(`http://[${s}]/`);
}

/** Whether `s` is a lower-case DNS name (RFC 1123 subdomain), as Ingress hosts and IngressClass names must be. */
function isDnsName(s: string): boolean {
  return s.length <= 253 && /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/.test(s);
}

/** The host of `rootUrl`; throws when it is not an absolute http(s) URL. */
function rootUrlHost(rootUrl: string): string {
  const url = URL.canParse(rootUrl) ? new URL(rootUrl) : undefined;
  if (url?.protocol !== 'http:' && url?.protocol !== 'https:') {
    throw new Error(`forgejo: rootUrl must be an absolute http(s) URL such as 'https://git.example.com/', got '${rootUrl}'.`);
  }
  return url.hostname;
}
