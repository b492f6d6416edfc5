import { Duration } from 'cdk8s';
import { k8s } from 'cdk8s-plus-30';
import { Construct } from 'constructs';
import { COMMON_LABELS } from '../../shared/labels';
import { SOPS_PLUGIN_NAME } from '../../shared/names';
import { ARGOCD_INSTALL_URL, ARGOCD_VERSION, IMAGES } from '../../shared/pins';
import { restrictedContainerSecurityContext } from '../../shared/security';
import { BootstrapRequirements, IBootstrapComponent } from '../bootstrap/bootstrap-step';
import { StepWait } from '../bootstrap/waits';
import { INetworkWorkload, KUBERNETES_API, NetworkFlow, NetworkPort, podPeer, PodPeer } from '../../shared/network';
import { APPLICATION_HEALTH_LUA, CNPG_CLUSTER_HEALTH_LUA, CNPG_DATABASE_HEALTH_LUA } from './health-checks';

/** Properties for `ArgoCdInstall`. */
export interface ArgoCdInstallProps {
  /**
   * Namespace Argo CD is installed into.
   * @default 'argocd'
   */
  readonly namespace?: string;
  /**
   * Name of the Secret (key `keys.txt`) holding the age key the SOPS plugin decrypts with. Provided out of
   * band; the sidecar starts without it, and only `*.enc.yaml` rendering fails until it exists.
   * @default 'sops-age'
   */
  readonly sopsAgeSecretName?: string;
  /**
   * How long the runbook waits for each Argo CD component.
   * @default 600
   */
  readonly timeoutSeconds?: number;
  /**
   * How long one sync operation may run before the application controller terminates it
   * (`controller.sync.timeout.seconds` in `argocd-cmd-params-cm`; Argo CD's default is 0, no limit). A sync
   * wave waits on anything not `Healthy` or `Degraded` (a child that never settles, a resource whose health
   * cannot be assessed); this bounds that wait. It covers the root app-of-apps' whole sync, every wave of a
   * first install included. The controller reads it at start.
   * @default Duration.hours(1)
   * @see https://argo-cd.readthedocs.io/en/stable/operator-manual/argocd-cmd-params-cm.yaml
   */
  readonly syncTimeout?: Duration;
}

export { SOPS_PLUGIN_NAME };

/** The components of the upstream non-HA install, by their pods' `app.kubernetes.io/name`. */
export type ArgoCdComponent =
  | 'argocd-application-controller' | 'argocd-applicationset-controller' | 'argocd-dex-server' | 'argocd-notifications-controller'
  | 'argocd-redis' | 'argocd-repo-server' | 'argocd-server';

const ARGOCD_COMPONENTS: readonly ArgoCdComponent[] = [
  'argocd-application-controller', 'argocd-applicationset-controller', 'argocd-dex-server', 'argocd-notifications-controller',
  'argocd-redis', 'argocd-repo-server', 'argocd-server',
];

/** The components that call the Kubernetes API: every one but the repo-server. */
const ARGOCD_API_CLIENTS: readonly ArgoCdComponent[] = [
  'argocd-application-controller', 'argocd-applicationset-controller', 'argocd-dex-server', 'argocd-notifications-controller',
  'argocd-redis', 'argocd-server',
];

/** Deployments of the upstream non-HA install, each waited for. */
const ARGOCD_DEPLOYMENTS = [
  'argocd-applicationset-controller', 'argocd-dex-server', 'argocd-notifications-controller', 'argocd-redis',
  'argocd-repo-server', 'argocd-server',
];

/**
 * Argo CD at the pinned release, installed from the upstream `install.yaml` of that tag through a generated
 * kustomization. Why not Helm: no argo-helm chart for 3.5.x was published when this was pinned, and the
 * upstream manifest of the tag is exactly what the pinned CRDs in `imports/` were generated from. The
 * kustomization patches in what the platform needs:
 *
 * - `argocd-cm`: health checks for `Application` (app-of-apps waves really wait), CNPG `Database` and CNPG
 *   `Cluster` (replacing the one Argo CD ships), see `health-checks.ts`;
 * - `argocd-cmd-params-cm`: a sync timeout, so a wave that never settles fails instead of waiting forever;
 * - the repo-server: a SOPS Config Management Plugin sidecar for the `sops-secrets` Application.
 *
 * Applied with server-side apply: the CRDs exceed the client-side annotation limit.
 */
export class ArgoCdInstall extends Construct implements IBootstrapComponent, INetworkWorkload {
  public readonly version = ARGOCD_VERSION;
  public readonly namespace: string;
  public readonly sopsAgeSecretName: string;
  /** Key of `sopsAgeSecretName` that holds the age identities (mounted as `/sops/keys.txt`). */
  public readonly sopsAgeSecretKey = 'keys.txt';
  public readonly timeoutSeconds: number;
  public readonly syncTimeout: Duration;
  /** Health customizations written to `argocd-cm`, keyed by the `argocd-cm` key. */
  public readonly healthChecks: Readonly<Record<string, string>>;
  /** The upstream manifest with the `argocd-cm`, `argocd-cmd-params-cm` and repo-server patches, then waits for every component. */
  public readonly bootstrapRequirements: BootstrapRequirements;

  constructor(scope: Construct, id: string, props: ArgoCdInstallProps = {}) {
    super(scope, id);
    this.namespace = props.namespace ?? 'argocd';
    this.sopsAgeSecretName = props.sopsAgeSecretName ?? 'sops-age';
    this.timeoutSeconds = props.timeoutSeconds ?? 600;
    this.syncTimeout = props.syncTimeout ?? Duration.hours(1);
    this.healthChecks = {
      'resource.customizations.health.argoproj.io_Application': APPLICATION_HEALTH_LUA,
      'resource.customizations.health.postgresql.cnpg.io_Cluster': CNPG_CLUSTER_HEALTH_LUA,
      'resource.customizations.health.postgresql.cnpg.io_Database': CNPG_DATABASE_HEALTH_LUA,
    };
    if (!Number.isInteger(this.timeoutSeconds) || this.timeoutSeconds < 1) {
      throw new Error(`${this.node.path}: 'timeoutSeconds' must be a positive integer, got ${this.timeoutSeconds}.`);
    }
    const syncTimeoutSeconds = this.syncTimeout.toSeconds({ integral: false });
    if (!Number.isInteger(syncTimeoutSeconds) || syncTimeoutSeconds < 1) {
      throw new Error(`${this.node.path}: 'syncTimeout' must be a whole number of seconds, at least 1, got ${syncTimeoutSeconds} s; `
        + 'Argo CD reads 0 as no timeout.');
    }

    // Strategic-merge patch: only `data` is added; the upstream labels stay.
    const argocdCm = new k8s.KubeConfigMap(this, 'ArgoCdCm', {
      metadata: { name: 'argocd-cm' },
      data: { ...this.healthChecks },
    });
    // The application controller reads this key into ARGOCD_APPLICATION_CONTROLLER_SYNC_TIMEOUT (install.yaml of
    // v3.5.1, the StatefulSet's env) and terminates an operation that outlives it (controller/appcontroller.go
    // lines 1542-1547): the sync fails with "operation is terminating due to timeout".
    // Since 3.0 the controller keeps each resource's health out of the Application CR unless
    // `controller.resource.health.persist` is true (docs/operator-manual/upgrading/2.14-3.0.md, "Health status in
    // the Application CR"). The app-of-apps health check reads `status.resources[].health` to name the resource
    // that fails a child, so a stalled wave says which object and why; a homelab's few hundred resources make the
    // extra status writes cheap.
    const cmdParamsCm = new k8s.KubeConfigMap(this, 'ArgoCdCmdParamsCm', {
      metadata: { name: 'argocd-cmd-params-cm' },
      data: { 'controller.resource.health.persist': 'true', 'controller.sync.timeout.seconds': String(syncTimeoutSeconds) },
    });

    const pluginConfig = new k8s.KubeConfigMap(this, 'SopsPlugin', {
      metadata: { name: 'argocd-cmp-sops', labels: { ...COMMON_LABELS } },
      data: { 'plugin.yaml': SOPS_PLUGIN_YAML },
    });
    const repoServer = new k8s.KubeDeployment(this, 'RepoServerPatch', {
      metadata: { name: 'argocd-repo-server' },
      spec: {
        selector: {},
        template: {
          spec: {
            containers: [this.sopsSidecar()],
            volumes: [
              { name: 'cmp-sops-config', configMap: { name: pluginConfig.name } },
              { name: 'cmp-sops-tmp', emptyDir: {} },
              { name: 'sops-age', secret: { secretName: this.sopsAgeSecretName, optional: true } },
            ],
          },
        },
      },
    });

    const waits: StepWait[] = [{
      kind: 'crds-established',
      crds: ['applications.argoproj.io', 'applicationsets.argoproj.io', 'appprojects.argoproj.io'],
      timeoutSeconds: this.timeoutSeconds,
    }];
    for (const deployment of ARGOCD_DEPLOYMENTS) {
      waits.push({ kind: 'rollout', namespace: this.namespace, deployment, timeoutSeconds: this.timeoutSeconds });
    }
    waits.push({
      kind: 'statefulset-rollout', namespace: this.namespace, statefulSet: 'argocd-application-controller', timeoutSeconds: this.timeoutSeconds,
    });
    this.bootstrapRequirements = {
      // Unsigned: argo-cd v3.5.1 `.github/workflows/release.yaml` signs the images and makes SLSA provenance for the CLI
      // binaries and the SBOM; `manifests/install.yaml` is served from the tag by raw.githubusercontent.com, with no signature.
      kustomization: { remoteResources: [ARGOCD_INSTALL_URL], namespace: this.namespace },
      patches: [argocdCm, cmdParamsCm, repoServer],
      waits,
    };
  }

  /**
   * The pods of an Argo CD component, by the `app.kubernetes.io/name` label install.yaml (v3.5.1) gives each Deployment's
   * and the StatefulSet's pods, which its own NetworkPolicies select on too.
   */
  public componentPeer(component: ArgoCdComponent): PodPeer {
    return podPeer(this.namespace, component, { 'app.kubernetes.io/name': component });
  }

  /** Every component's pods. */
  public get componentPeers(): PodPeer[] {
    return ARGOCD_COMPONENTS.map((c) => this.componentPeer(c));
  }

  /** The repo-server, which clones the homelab repository and pulls Helm charts. */
  public get repoServerPeer(): PodPeer {
    return this.componentPeer('argocd-repo-server');
  }

  /**
   * The connections between Argo CD's components and to the Kubernetes API, as install.yaml of v3.5.1 wires them
   * (the `*_REPO_SERVER`, `REDIS_SERVER` and `ARGOCD_SERVER_DEX_SERVER` addresses, and the Roles). Argo CD's own
   * NetworkPolicies allow the ingress side of most of them already; NetworkPolicies add up, so repeating it is harmless,
   * and the egress side is what the namespace's default-deny needs. The repo-server reads no API object
   * (`automountServiceAccountToken: false`); `argocd-redis` writes its password Secret in an init container
   * (`secret-init`, Role `argocd-redis`).
   */
  public get networkFlows(): NetworkFlow[] {
    const port = (p: number, name: string): NetworkPort => ({ port: p, name });
    const repoServer = port(8081, 'repo-server');
    const redis = port(6379, 'redis');
    const flows: NetworkFlow[] = [];
    const add = (from: ArgoCdComponent, to: ArgoCdComponent, ports: NetworkPort[], why: string) =>
      flows.push({ from: this.componentPeer(from), to: this.componentPeer(to), ports, reason: `Argo CD ${this.version} install.yaml: ${why}` });
    add('argocd-application-controller', 'argocd-repo-server', [repoServer], 'ARGOCD_APPLICATION_CONTROLLER_REPO_SERVER');
    add('argocd-application-controller', 'argocd-redis', [redis], 'REDIS_SERVER of the controller');
    add('argocd-server', 'argocd-repo-server', [repoServer], 'ARGOCD_SERVER_REPO_SERVER');
    add('argocd-server', 'argocd-redis', [redis], 'REDIS_SERVER of the server');
    add('argocd-server', 'argocd-dex-server', [port(5556, 'http'), port(5557, 'grpc')], 'ARGOCD_SERVER_DEX_SERVER');
    add('argocd-repo-server', 'argocd-redis', [redis], 'REDIS_SERVER of the repo-server');
    add('argocd-applicationset-controller', 'argocd-repo-server', [repoServer], 'ARGOCD_APPLICATIONSET_CONTROLLER_REPO_SERVER');
    add('argocd-notifications-controller', 'argocd-repo-server', [repoServer], 'the notifications controller reads from the repo-server');
    for (const component of ARGOCD_API_CLIENTS) {
      flows.push({ from: this.componentPeer(component), to: KUBERNETES_API, ports: [], reason: `Argo CD ${this.version} install.yaml: ${component}'s Role or ClusterRole` });
    }
    return flows;
  }

  /** The CMP sidecar: runs `argocd-cmp-server` (shared from the repo-server) with SOPS next to it. */
  private sopsSidecar(): k8s.Container {
    return {
      name: 'cmp-sops',
      image: IMAGES.sops,
      command: ['/var/run/argocd/argocd-cmp-server'],
      env: [{ name: 'SOPS_AGE_KEY_FILE', value: '/sops/keys.txt' }],
      // uid 999 is what Argo CD requires of plugin sidecars.
      securityContext: restrictedContainerSecurityContext(999),
      resources: {
        requests: { cpu: k8s.Quantity.fromString('10m'), memory: k8s.Quantity.fromString('64Mi') },
        limits: { memory: k8s.Quantity.fromString('256Mi') },
      },
      volumeMounts: [
        { name: 'var-files', mountPath: '/var/run/argocd' },
        { name: 'plugins', mountPath: '/home/argocd/cmp-server/plugins' },
        { name: 'cmp-sops-config', mountPath: '/home/argocd/cmp-server/config/plugin.yaml', subPath: 'plugin.yaml' },
        // The sidecar needs its own /tmp, never the repo-server's.
        { name: 'cmp-sops-tmp', mountPath: '/tmp' },
        { name: 'sops-age', mountPath: '/sops', readOnly: true },
      ],
    };
  }
}

/**
 * The plugin: prints every `*.enc.yaml` under the Application's path, decrypted, as one YAML stream in sorted
 * order.
 */
const SOPS_PLUGIN_YAML = `apiVersion: argoproj.io/v1alpha1
kind: ConfigManagementPlugin
metadata:
  name: ${SOPS_PLUGIN_NAME}
spec:
  # No discover rule: the plugin runs only for Applications that name it (sops-secrets). With one, Argo CD
  # would hand it every plain directory that holds a *.enc.yaml and drop the other manifests.
  generate:
    command: [sh, -c]
    args:
      - |
        set -eu
        find . -type f -name '*.enc.yaml' | LC_ALL=C sort | while IFS= read -r f; do
          echo '---'
          sops --decrypt "$f"
        done
`;
