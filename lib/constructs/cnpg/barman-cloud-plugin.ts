import { ApiObject } from 'cdk8s';
import { Construct } from 'constructs';
import { BARMAN_CLOUD_PLUGIN_MANIFEST_URL, BARMAN_CLOUD_PLUGIN_VERSION } from '../../shared/pins';
import { BootstrapRequirements, IBootstrapComponent } from '../bootstrap/bootstrap-step';
import { SelfSignedTlsSecretPrecondition } from '../bootstrap/waits';
import { CNPG_NAMESPACE, CnpgOperator } from './cnpg-operator';
import { INetworkWorkload, KUBERNETES_API, NetworkFlow, podPeer, PodPeer } from '../../shared/network';

/**
 * Validity of the plugin's TLS certificates when the runbook makes them, in days. Nothing renews them but a re-run of
 * the runbook (which remakes one that expires within `BARMAN_CLOUD_TLS_RENEW_WITHIN_DAYS`), so they must outlive
 * the time between two runs: two years covers the usual rhythm of re-running the runbook for a CNPG, plugin or
 * Argo CD upgrade with a wide margin, while a leaked key does not stay valid for a decade. cert-manager's 90 days
 * (`kubernetes/*-certificate.yaml` at v0.14.0) assume a controller that renews them; here there is none.
 */
export const BARMAN_CLOUD_TLS_VALIDITY_DAYS = 730;
/** A re-run of the runbook remakes a certificate that expires within this many days. */
export const BARMAN_CLOUD_TLS_RENEW_WITHIN_DAYS = 30;

/** Properties for `BarmanCloudPlugin`. */
export interface BarmanCloudPluginProps {
  /**
   * How long the runbook waits for the plugin's CRD and Deployment.
   * @default 300
   */
  readonly timeoutSeconds?: number;
}

/**
 * The CNPG Barman Cloud plugin at the pinned release, applied from its release manifest through a generated
 * kustomization, without cert-manager.
 *
 * CNPG finds a plugin through a Service in its own namespace labelled `cnpg.io/pluginName` whose annotations name a
 * client Secret, a server Secret and a port (CNPG v1.30.0 `internal/controller/plugin_controller.go`, `reconcile`;
 * `internal/controller/plugin_predicates.go` `isPluginService`). It dials `<service>.<namespace>.svc:<port>` with
 * TLS 1.3, verifying the server against the server Secret's `tls.crt` with the server name `<service>`, and
 * authenticating with the client Secret's `tls.crt` and `tls.key`. The plugin (cnpg-i-machinery v0.4.2
 * `pkg/pluginhelper/http/server.go`, `getConfigForClient`) serves the server Secret's key pair and requires a client
 * certificate that verifies against the client Secret's `tls.crt`, both re-read for every connection. Upstream makes
 * both Secrets with cert-manager (an Issuer `selfsigned-issuer` and Certificates `barman-cloud-client` and
 * `barman-cloud-server` in `manifest.yaml`); Phase 0 runs before cert-manager, which Argo CD delivers. So the step
 * deletes those three objects with kustomize `$patch: delete` patches (the apply then needs no cert-manager CRDs) and
 * the runbook makes the two Secrets itself, self-signed and equivalent, before applying. CNPG watches the Secrets and
 * re-registers the plugin when they change (`mapSecretToPlugin`; `RegisterRemotePlugin` forces the registration).
 *
 * @see https://github.com/cloudnative-pg/plugin-barman-cloud/blob/v0.14.0/web/docs/installation.mdx
 */
export class BarmanCloudPlugin extends Construct implements IBootstrapComponent, INetworkWorkload {
  /** The pinned release. */
  public readonly version = BARMAN_CLOUD_PLUGIN_VERSION;
  /** Namespace of the plugin: the CNPG operator's, where CNPG looks for plugin Services (`installation.mdx`). */
  public readonly namespace = CNPG_NAMESPACE;
  /** The plugin's Deployment and Service (`kubernetes/deployment.yaml`, `kubernetes/service.yaml` at v0.14.0). */
  public readonly deploymentName = 'barman-cloud';
  /** The name CNPG verifies the server certificate against: the Service name (no `cnpg.io/pluginServerName`). */
  public readonly serviceName = 'barman-cloud';
  /** The Secret the Service's `cnpg.io/pluginServerSecret` names; mounted by the plugin at `/server`. */
  public readonly serverSecretName = 'barman-cloud-server-tls';
  /** The Secret the Service's `cnpg.io/pluginClientSecret` names; mounted by the plugin at `/client`. */
  public readonly clientSecretName = 'barman-cloud-client-tls';
  /** The CRD of the plugin's `ObjectStore`. */
  public readonly objectStoreCrd = 'objectstores.barmancloud.cnpg.io';
  public readonly timeoutSeconds: number;
  /** The release manifest without its cert-manager objects, the two TLS Secrets before it, then waits. */
  public readonly bootstrapRequirements: BootstrapRequirements;

  constructor(scope: Construct, id: string, props: BarmanCloudPluginProps = {}) {
    super(scope, id);
    this.timeoutSeconds = props.timeoutSeconds ?? 300;
    if (!Number.isInteger(this.timeoutSeconds) || this.timeoutSeconds < 1) {
      throw new Error(`${this.node.path}: 'timeoutSeconds' must be a positive integer, got ${this.timeoutSeconds}.`);
    }
    // The cert-manager objects of manifest.yaml (from kubernetes/certificate-issuer.yaml, client-certificate.yaml,
    // server-certificate.yaml at v0.14.0), removed from the build: without cert-manager's CRDs the apply would fail.
    const removed = [
      { id: 'DeleteIssuer', kind: 'Issuer', name: 'selfsigned-issuer' },
      { id: 'DeleteClientCertificate', kind: 'Certificate', name: 'barman-cloud-client' },
      { id: 'DeleteServerCertificate', kind: 'Certificate', name: 'barman-cloud-server' },
    ];
    const patches = removed.map((r) => new ApiObject(this, r.id, {
      apiVersion: 'cert-manager.io/v1',
      kind: r.kind,
      metadata: { name: r.name, namespace: this.namespace },
      $patch: 'delete',
    }));
    const tls = (name: string, usage: 'server' | 'client', commonName: string, dnsNames: string[]): SelfSignedTlsSecretPrecondition => ({
      kind: 'self-signed-tls-secret',
      namespace: this.namespace,
      name,
      commonName,
      dnsNames,
      usage,
      validityDays: BARMAN_CLOUD_TLS_VALIDITY_DAYS,
      renewWithinDays: BARMAN_CLOUD_TLS_RENEW_WITHIN_DAYS,
    });
    this.bootstrapRequirements = {
      // Unsigned: plugin-barman-cloud v0.14.0 `.github/workflows/release-publish.yml` builds it (`task manifest`) and
      // attaches it with `gh release upload` (Taskfile.yml `upload-manifest-to-release`); no cosign, no id-token.
      kustomization: { remoteResources: [BARMAN_CLOUD_PLUGIN_MANIFEST_URL] },
      patches,
      preconditions: [
        // As the upstream Certificates: server CN and DNS name `barman-cloud`, client CN `barman-cloud-client`.
        tls(this.clientSecretName, 'client', 'barman-cloud-client', []),
        tls(this.serverSecretName, 'server', this.serviceName, [this.serviceName]),
      ],
      waits: [{
        kind: 'crds-established',
        crds: [this.objectStoreCrd],
        timeoutSeconds: this.timeoutSeconds,
      }, {
        // Its readiness probe is the gRPC port (tcpSocket 9090): rolled out means it listens with the Secrets mounted.
        kind: 'rollout',
        namespace: this.namespace,
        deployment: this.deploymentName,
        timeoutSeconds: this.timeoutSeconds,
      }],
    };
  }

  /** The plugin's pods, as its manifest labels them (`app: barman-cloud`, kubernetes/deployment.yaml at v0.14.0). */
  public get peer(): PodPeer {
    return podPeer(this.namespace, this.deploymentName, { app: 'barman-cloud' });
  }

  /** The plugin's gRPC port (`--server-address=:9090`, the Service's 9090). */
  public readonly grpcPort = 9090;

  /** The plugin reads ObjectStores and writes their status through the Kubernetes API. */
  public get networkFlows(): NetworkFlow[] {
    return [{ from: this.peer, to: KUBERNETES_API, ports: [], reason: 'the Barman Cloud plugin reconciles ObjectStores through the API' }];
  }

  /** The CNPG operator calling the plugin over mTLS on its Service: how CNPG uses a registered plugin. */
  public calledBy(operator: CnpgOperator): NetworkFlow {
    return { from: operator.peer, to: this.peer, ports: [{ port: this.grpcPort, name: 'grpc' }], reason: 'CNPG calls the Barman Cloud plugin it registered' };
  }
}
