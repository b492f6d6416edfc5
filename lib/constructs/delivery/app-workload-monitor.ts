import { Construct } from 'constructs';
import { PodMonitor } from '../../../imports/prometheus-podmonitor-monitoring.coreos.com';
import { COMMON_LABELS } from '../../shared/labels';
import { APP_HTTP_PORT_NAME, appSelectorLabels } from './app-workload';

/**
 * The pod label Argo Rollouts puts on every pod of a ReplicaSet it manages (`rollouts-pod-template-hash`, v1.9.1
 * pkg/apis/rollouts/v1alpha1 `DefaultRolloutUniqueLabelKey`), and the series label the PodMonitor copies it to: the
 * Prometheus Operator turns a pod label named in `podTargetLabels` into a target label with `.`, `/` and `-` replaced by
 * `_` (the same way `cnpg.io/cluster` becomes `cnpg_io_cluster` for the backup alerts).
 */
export const ROLLOUTS_POD_TEMPLATE_HASH_LABEL = 'rollouts-pod-template-hash';
export const ROLLOUTS_POD_TEMPLATE_HASH_SERIES_LABEL = 'rollouts_pod_template_hash';

/** Properties for `AppPodMonitor`. */
export interface AppPodMonitorProps {
  /** Name of the app whose pods are scraped (its selector labels). */
  readonly app: string;
  /** Namespace of the app. */
  readonly namespace: string;
  /** HTTP path of the metrics on the app's `http` port. */
  readonly metricsPath: string;
  /** Labels the monitoring stack's Prometheus selects PodMonitors by (kube-prometheus-stack: `release: <release>`). */
  readonly selectorLabels: Readonly<Record<string, string>>;
}

/**
 * How Prometheus scrapes an app: its pods' `http` port at `metricsPath`, with the pod's `rollouts-pod-template-hash`
 * on every series, so a canary analysis can select the new version's pods alone.
 */
export class AppPodMonitor extends Construct {
  public readonly name: string;
  public readonly resource: PodMonitor;

  constructor(scope: Construct, id: string, props: AppPodMonitorProps) {
    super(scope, id);
    if (!props.metricsPath.startsWith('/')) throw new Error(`${this.node.path}: 'metricsPath' must start with '/', got '${props.metricsPath}'.`);
    this.name = props.app;
    this.resource = new PodMonitor(this, 'Resource', {
      metadata: { name: this.name, namespace: props.namespace, labels: { ...COMMON_LABELS, ...props.selectorLabels } },
      spec: {
        selector: { matchLabels: appSelectorLabels(props.app) },
        podMetricsEndpoints: [{ port: APP_HTTP_PORT_NAME, path: props.metricsPath }],
        podTargetLabels: [ROLLOUTS_POD_TEMPLATE_HASH_LABEL],
      },
    });
  }
}
