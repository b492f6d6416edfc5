import { Construct } from 'constructs';
import { CNPG_MANIFEST_URL, CNPG_VERSION } from '../../shared/pins';
import { BootstrapRequirements, IBootstrapComponent } from '../bootstrap/bootstrap-step';

/** Namespace the CNPG release manifest installs the operator into. */
export const CNPG_NAMESPACE = 'cnpg-system';

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
export class CnpgOperator extends Construct implements IBootstrapComponent {
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
      kustomization: { remoteResources: [CNPG_MANIFEST_URL] },
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
}
