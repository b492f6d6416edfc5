import { k8s } from 'cdk8s-plus-30';
import { Construct } from 'constructs';
import { COMMON_LABELS, selectorLabels } from '../../shared/labels';
import { dnsLabelProblem } from '../../shared/names';
import { PlaywrightRunProps, playwrightRunPodSpec, playwrightRunProblem } from './playwright-run';

/** Properties for `E2ePostSyncJob`. */
export interface E2ePostSyncJobProps {
  /** Name of the Job (fixed: `BeforeHookCreation` replaces the previous run's Job by name). */
  readonly name: string;
  /** Namespace of the application it tests. */
  readonly namespace: string;
  /** The run; its `baseURL` is the app's public URL or its Service. */
  readonly run: PlaywrightRunProps;
}

/** Argo CD's hook annotations (argo-cd v3.5.1 `gitops-engine/pkg/sync/common/types.go`: `AnnotationKeyHook`, `HookTypePostSync`). */
export const HOOK_ANNOTATION = 'argocd.argoproj.io/hook';
export const HOOK_DELETE_POLICY_ANNOTATION = 'argocd.argoproj.io/hook-delete-policy';

/**
 * The end-to-end gate of an application without a canary: a Job that Argo CD runs as a `PostSync` hook, i.e. after every
 * resource of the sync is applied and `Healthy`, and whose failure marks the whole sync failed (argo-cd v3.5.1
 * `docs/user-guide/sync-waves.md`, "How phases work?"). The delete policy is `BeforeHookCreation`: the failed run's
 * Job and pod stay for inspection until the next sync replaces them (the default policy too, written out:
 * `gitops-engine/pkg/sync/hook/delete_policy.go`). `backoffLimit` 0: a flaky journey is a failure, not a retry.
 */
export class E2ePostSyncJob extends Construct {
  public readonly name: string;
  public readonly namespace: string;
  public readonly run: PlaywrightRunProps;
  public readonly resource: k8s.KubeJob;

  constructor(scope: Construct, id: string, props: E2ePostSyncJobProps) {
    super(scope, id);
    this.name = props.name;
    this.namespace = props.namespace;
    this.run = props.run;
    const nameProblem = dnsLabelProblem(this.name);
    if (nameProblem !== undefined) throw new Error(`${this.node.path}: 'name' '${this.name}' ${nameProblem}.`);
    const runProblem = playwrightRunProblem(this.run);
    if (runProblem !== undefined) throw new Error(`${this.node.path}: 'run': ${runProblem}`);

    const labels = { ...COMMON_LABELS, ...selectorLabels('e2e-gate', this.name) };
    this.resource = new k8s.KubeJob(this, 'Resource', {
      metadata: {
        name: this.name,
        namespace: this.namespace,
        labels,
        annotations: { [HOOK_ANNOTATION]: 'PostSync', [HOOK_DELETE_POLICY_ANNOTATION]: 'BeforeHookCreation' },
      },
      spec: {
        backoffLimit: 0,
        activeDeadlineSeconds: this.run.timeout.toSeconds(),
        template: { metadata: { labels }, spec: playwrightRunPodSpec(this.run) },
      },
    });
  }
}
