import { Construct } from 'constructs';
import { CNPG_MANIFEST_URL, CNPG_VERSION } from '../../shared/pins';
import { BootstrapRequirements, IBootstrapComponent, RemoteManifestSignature } from '../bootstrap/bootstrap-step';
import { INetworkWorkload, KUBERNETES_API, NetworkFlow, podPeer, PodPeer } from '../../shared/network';
import { CNPG_INSTANCE_PORTS, CNPG_INSTANCE_POD_SELECTOR, CnpgCluster } from './cnpg-cluster';

/** Namespace the CNPG release manifest installs the operator into. */
export const CNPG_NAMESPACE = 'cnpg-system';

/**
 * The signature CNPG publishes for its release manifest. cloudnative-pg v1.30.0 `.github/workflows/release-publish.yml`
 * (on: push tags `v*`), job `release` (permissions `id-token: write`): `cosign sign-blob "releases/cnpg-${VERSION}.yaml"
 * --bundle "releases/cnpg-${VERSION}.sigstore.json" --yes`, keyless, and both files are release assets. A keyless
 * signature's identity is the signing workflow at the ref it ran for, and GitHub Actions' OIDC issuer; the project's
 * own check (`docs/src/installation_upgrade.md` at v1.30.0, "Verifying the Operator YAML Deployment") accepts any
 * `release-publish.yml@refs/tags/v...`; the runbook pins the exact tag.
 */
export const CNPG_MANIFEST_SIGNATURE: RemoteManifestSignature = {
  manifestUrl: CNPG_MANIFEST_URL,
  bundleUrl: `https://github.com/cloudnative-pg/cloudnative-pg/releases/download/v${CNPG_VERSION}/cnpg-${CNPG_VERSION}.sigstore.json`,
  certificateIdentity: `https://github.com/cloudnative-pg/cloudnative-pg/.github/workflows/release-publish.yml@refs/tags/v${CNPG_VERSION}`,
  certificateOidcIssuer: 'https://token.actions.githubusercontent.com',
};

/** Properties for `CnpgOperator`. */
export interface CnpgOperatorProps {
  /**
   * How long the runbook waits for the operator and its webhook.
   * @default 300
   */
  readonly timeoutSeconds?: number;
}

/**
 * The CloudNativePG operator at the pinned release, applied from its release manifest through a generated
 * kustomization. Nothing may use CNPG before its CRDs are established and its webhooks answer, so the step
 * waits for both: an available Deployment does not prove the webhook is reachable through its Service.
 */
export class CnpgOperator extends Construct implements IBootstrapComponent, INetworkWorkload {
  /** The pinned release. */
  public readonly version = CNPG_VERSION;
  /** Namespace of the operator. */
  public readonly namespace = CNPG_NAMESPACE;
  public readonly timeoutSeconds: number;
  /** The release manifest, then waits for its CRDs, its Deployment and its admission webhooks. */
  public readonly bootstrapRequirements: BootstrapRequirements;

  constructor(scope: Construct, id: string, props: CnpgOperatorProps = {}) {
    super(scope, id);
    this.timeoutSeconds = props.timeoutSeconds ?? 300;
    if (!Number.isInteger(this.timeoutSeconds) || this.timeoutSeconds < 1) {
      throw new Error(`${this.node.path}: 'timeoutSeconds' must be a positive integer, got ${this.timeoutSeconds}.`);
    }
    this.bootstrapRequirements = {
      kustomization: { remoteResources: [CNPG_MANIFEST_URL], signatures: [CNPG_MANIFEST_SIGNATURE] },
      waits: [{
        kind: 'crds-established',
        crds: ['clusters.postgresql.cnpg.io', 'databases.postgresql.cnpg.io'],
        timeoutSeconds: this.timeoutSeconds,
      }, {
        kind: 'rollout',
        namespace: CNPG_NAMESPACE,
        deployment: 'cnpg-controller-manager',
        timeoutSeconds: this.timeoutSeconds,
      }, {
        kind: 'webhook-serving',
        description: 'CNPG admission webhooks answer a server-side dry-run of a Cluster',
        probe: {
          apiVersion: 'postgresql.cnpg.io/v1',
          kind: 'Cluster',
          metadata: { name: 'webhook-probe', namespace: CNPG_NAMESPACE },
          spec: { instances: 1, storage: { size: '1Gi' } },
        },
        timeoutSeconds: this.timeoutSeconds,
      }],
    };
  }

  /** The operator's pods, as the release manifest labels them (`cnpg-controller-manager`, cnpg-1.30.0.yaml). */
  public get peer(): PodPeer {
    return podPeer(this.namespace, 'cnpg-controller-manager', { 'app.kubernetes.io/name': 'cloudnative-pg' });
  }

  /** The port of the admission webhooks: `cnpg-webhook-service` 443 targets the container's `webhook-server` 9443. */
  public readonly webhookPort = 9443;

  /**
   * The operator's connections: to the Kubernetes API, from the API server to its admission webhooks, and to the
   * status port of every instance of every cluster, in any namespace (CNPG v1.30.0 docs/src/cncf-projects/cilium.md:
   * "the operator needs to be able to perform checks and actions on the Pods, and one of those actions requires access
   * to the port 8000"). A cluster in an isolated namespace also needs the ingress side: `manages()`.
   */
  public get networkFlows(): NetworkFlow[] {
    return [
      { from: this.peer, to: KUBERNETES_API, ports: [], reason: 'the CNPG operator reconciles its resources through the API' },
      { from: KUBERNETES_API, to: this.peer, ports: [{ port: this.webhookPort, name: 'webhook' }], reason: 'the API server calls CNPG\'s admission webhooks' },
      {
        from: this.peer,
        to: { kind: 'selected-pods', name: 'CNPG instances in every namespace', podSelector: { ...CNPG_INSTANCE_POD_SELECTOR } },
        ports: [CNPG_INSTANCE_PORTS.status],
        reason: 'the CNPG operator reads every instance\'s status',
      },
    ];
  }

  /** The ingress side of the operator reaching `cluster`'s pods (their status port), for a cluster in an isolated namespace. */
  public manages(cluster: CnpgCluster): NetworkFlow {
    return {
      from: this.peer, to: cluster.peer, ports: [CNPG_INSTANCE_PORTS.status],
      reason: `CnpgOperator manages Cluster ${cluster.namespace}/${cluster.name}`,
    };
  }
}
