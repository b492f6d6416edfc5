import { k8s } from 'cdk8s-plus-30';
import { Construct } from 'constructs';
import { COMMON_LABELS } from '../../shared/labels';
import { PodSecurityLevel } from '../../shared/pod-security';

export type { PodSecurityLevel };

/** Properties for `PodSecurityNamespace`. */
export interface PodSecurityNamespaceProps {
  /** Name of the namespace. */
  readonly name: string;
  /**
   * Pod Security level enforced on admission.
   * @default 'restricted'
   */
  readonly enforce?: PodSecurityLevel;
  /**
   * Level reported as warnings and audit annotations.
   * @default - the same as `enforce`
   */
  readonly warn?: PodSecurityLevel;
  /**
   * Further labels, e.g. the app-tier label Kyverno's signature policy selects namespaces by.
   * @default - none
   */
  readonly labels?: Readonly<Record<string, string>>;
}

/** Pod Security Admission version the labels pin, so a cluster upgrade cannot silently tighten or relax them. */
export const POD_SECURITY_VERSION = 'v1.30';

/**
 * A Namespace labelled for Pod Security Admission (`pod-security.kubernetes.io/{enforce,warn,audit}` and
 * their `-version`).
 *
 * @see https://kubernetes.io/docs/concepts/security/pod-security-admission/
 */
export class PodSecurityNamespace extends Construct {
  public readonly name: string;
  public readonly enforce: PodSecurityLevel;
  public readonly warn: PodSecurityLevel;
  public readonly resource: k8s.KubeNamespace;

  constructor(scope: Construct, id: string, props: PodSecurityNamespaceProps) {
    super(scope, id);
    this.name = props.name;
    this.enforce = props.enforce ?? 'restricted';
    this.warn = props.warn ?? this.enforce;
    const labels: Record<string, string> = { ...props.labels, ...COMMON_LABELS, 'kubernetes.io/metadata.name': this.name };
    for (const [mode, level] of [['enforce', this.enforce], ['warn', this.warn], ['audit', this.warn]] as const) {
      labels[`pod-security.kubernetes.io/${mode}`] = level;
      labels[`pod-security.kubernetes.io/${mode}-version`] = POD_SECURITY_VERSION;
    }
    this.resource = new k8s.KubeNamespace(this, 'Resource', { metadata: { name: this.name, labels } });
  }
}
