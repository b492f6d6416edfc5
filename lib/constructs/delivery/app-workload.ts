import { Construct } from 'constructs';
import { k8s } from 'cdk8s-plus-30';
import { COMMON_LABELS, selectorLabels } from '../../shared/labels';
import { restrictedContainerSecurityContext, restrictedPodSecurityContext } from '../../shared/security';

/** The name of the container port every app serves HTTP (and its metrics) on. */
export const APP_HTTP_PORT_NAME = 'http';

/** What an app's pods run: shared by the rolling Deployment and the canary Rollout. */
export interface AppPodSettings {
  /** Name of the app: its container, its selector labels and the name of its workload and stable Service. */
  readonly name: string;
  /** Namespace of the app. */
  readonly namespace: string;
  /** Full image reference with a tag or digest, never `:latest`. */
  readonly image: string;
  /** Container port the app serves HTTP on. */
  readonly port: number;
  /** HTTP path of the readiness and liveness probes. */
  readonly healthPath: string;
  /** Non-root user the container runs as. */
  readonly runAsUser: number;
  /** CPU request, a Kubernetes quantity. */
  readonly cpuRequest: string;
  /** Memory request and limit, a Kubernetes quantity. */
  readonly memory: string;
}

/** Why `image` is not a pinned reference (a tag other than `latest`, or a digest); undefined when it is. */
export function imageReferenceProblem(image: string): string | undefined {
  const digest = /@sha256:[0-9a-f]{64}$/.test(image);
  const lastSegment = image.slice(image.lastIndexOf('/') + 1);
  const tag = lastSegment.includes(':') ? lastSegment.slice(lastSegment.indexOf(':') + 1).replace(/@.*$/, '') : undefined;
  if (!digest && tag === undefined) return `image '${image}' has no tag or digest; pin it, e.g. '${image}:1.0.0'`;
  if (tag === 'latest') return `image '${image}' is ':latest', which changes under the same manifest; pin a version or a digest`;
  return undefined;
}

/** Throws, naming the construct and the prop, when `settings` cannot be run in a restricted namespace. */
export function validateAppPodSettings(path: string, s: AppPodSettings): void {
  const image = imageReferenceProblem(s.image);
  if (image) throw new Error(`${path}: 'image': ${image}.`);
  if (!Number.isInteger(s.port) || s.port < 1 || s.port > 65535) throw new Error(`${path}: 'port' must be a TCP port from 1 to 65535, got ${s.port}.`);
  if (!Number.isInteger(s.runAsUser) || s.runAsUser < 1) {
    throw new Error(`${path}: 'runAsUser' must be a non-root user id (at least 1), got ${s.runAsUser}: the restricted Pod Security profile refuses root.`);
  }
  if (!s.healthPath.startsWith('/')) throw new Error(`${path}: 'healthPath' must start with '/', got '${s.healthPath}'.`);
}

/** The labels the app's workload, Services and PodMonitor select its pods by. */
export function appSelectorLabels(name: string): Record<string, string> {
  return selectorLabels(name, name);
}

/**
 * The pod template of an app as a plain object, for the workload kind that embeds it: restricted security context,
 * read-only root filesystem with a writable `/tmp`, HTTP probes, requests and a memory limit.
 *
 * @param port turns a port name into the workload kind's IntOrString class
 */
export function appPodTemplate<P>(s: AppPodSettings, port: (name: string) => P) {
  const probe = (periodSeconds: number, failureThreshold: number) => ({
    httpGet: { path: s.healthPath, port: port(APP_HTTP_PORT_NAME) },
    periodSeconds,
    failureThreshold,
  });
  return {
    metadata: { labels: { ...COMMON_LABELS, ...appSelectorLabels(s.name) } },
    spec: {
      automountServiceAccountToken: false,
      securityContext: restrictedPodSecurityContext(s.runAsUser),
      containers: [{
        name: s.name,
        image: s.image,
        ports: [{ name: APP_HTTP_PORT_NAME, containerPort: s.port, protocol: 'TCP' }],
        readinessProbe: probe(5, 3),
        livenessProbe: probe(10, 6),
        resources: {
          requests: { cpu: s.cpuRequest, memory: s.memory },
          limits: { memory: s.memory },
        },
        securityContext: restrictedContainerSecurityContext(s.runAsUser),
        volumeMounts: [{ name: 'tmp', mountPath: '/tmp' }],
      }],
      volumes: [{ name: 'tmp', emptyDir: {} }],
    },
  };
}

/** Properties for `AppService`. */
export interface AppServiceProps {
  /** Name of the Service. */
  readonly name: string;
  /** The app whose pods it selects. */
  readonly app: AppPodSettings;
}

/** A ClusterIP Service on port 80 to the app's `http` port, selecting the app's pods (Argo Rollouts narrows it further). */
export class AppService extends Construct {
  public readonly name: string;
  public readonly resource: k8s.KubeService;

  constructor(scope: Construct, id: string, props: AppServiceProps) {
    super(scope, id);
    this.name = props.name;
    this.resource = new k8s.KubeService(this, 'Resource', {
      metadata: { name: this.name, namespace: props.app.namespace, labels: { ...COMMON_LABELS, ...appSelectorLabels(props.app.name) } },
      spec: {
        type: 'ClusterIP',
        selector: appSelectorLabels(props.app.name),
        ports: [{ name: APP_HTTP_PORT_NAME, port: 80, targetPort: k8s.IntOrString.fromString(APP_HTTP_PORT_NAME), protocol: 'TCP' }],
      },
    });
  }
}

/** Properties for `RollingAppWorkload`. */
export interface RollingAppWorkloadProps {
  /** What the pods run. */
  readonly app: AppPodSettings;
  /** Pods. */
  readonly replicas: number;
  /** Name of the Service that selects the pods. */
  readonly serviceName: string;
}

/**
 * An app delivered by a rolling update: a `Deployment` (one new pod at a time, never below the wanted count) and its
 * Service.
 */
export class RollingAppWorkload extends Construct {
  public readonly deployment: k8s.KubeDeployment;
  public readonly service: AppService;

  constructor(scope: Construct, id: string, props: RollingAppWorkloadProps) {
    super(scope, id);
    validateAppPodSettings(this.node.path, props.app);
    if (!Number.isInteger(props.replicas) || props.replicas < 1) {
      throw new Error(`${this.node.path}: 'replicas' must be an integer of at least 1, got ${props.replicas}.`);
    }
    const template = appPodTemplate(props.app, (name) => k8s.IntOrString.fromString(name));
    this.deployment = new k8s.KubeDeployment(this, 'Resource', {
      metadata: { name: props.app.name, namespace: props.app.namespace, labels: { ...COMMON_LABELS, ...appSelectorLabels(props.app.name) } },
      spec: {
        replicas: props.replicas,
        selector: { matchLabels: appSelectorLabels(props.app.name) },
        strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: k8s.IntOrString.fromNumber(1), maxUnavailable: k8s.IntOrString.fromNumber(0) } },
        template: {
          ...template,
          spec: {
            ...template.spec,
            containers: template.spec.containers.map((c) => ({
              ...c,
              resources: {
                requests: { cpu: k8s.Quantity.fromString(c.resources.requests.cpu), memory: k8s.Quantity.fromString(c.resources.requests.memory) },
                limits: { memory: k8s.Quantity.fromString(c.resources.limits.memory) },
              },
            })),
          },
        },
      },
    });
    this.service = new AppService(this, 'Service', { name: props.serviceName, app: props.app });
  }
}
