/**
 * Argo CD's sync of one Application, as gitops-engine runs it. Citations: argoproj/argo-cd v3.5.1, gitops-engine
 * in-tree (go.mod:17, :372).
 */
import { HealthResult } from './health';

type Obj = Record<string, any>;

/** Kind order within a wave (gitops-engine/pkg/sync/sync_tasks.go:22-67); unknown kinds (custom resources) sort last. */
const KIND_ORDER = ['Namespace', 'NetworkPolicy', 'ResourceQuota', 'LimitRange', 'PodSecurityPolicy', 'PodDisruptionBudget',
  'ServiceAccount', 'Secret', 'SecretList', 'ConfigMap', 'StorageClass', 'PersistentVolume', 'PersistentVolumeClaim',
  'CustomResourceDefinition', 'ClusterRole', 'ClusterRoleList', 'ClusterRoleBinding', 'ClusterRoleBindingList', 'Role',
  'RoleList', 'RoleBinding', 'RoleBindingList', 'Service', 'DaemonSet', 'Pod', 'ReplicationController', 'ReplicaSet',
  'Deployment', 'HorizontalPodAutoscaler', 'StatefulSet', 'Job', 'CronJob', 'IngressClass', 'Ingress', 'APIService'];

function kindRank(kind: string): number {
  const i = KIND_ORDER.indexOf(kind);
  return i < 0 ? 0 : i - KIND_ORDER.length;
}

/** `argocd.argoproj.io/sync-wave`, 0 when absent or not an integer (gitops-engine/pkg/sync/syncwaves/waves.go:12-21). */
export function syncWave(obj: Obj): number {
  const text = obj.metadata?.annotations?.['argocd.argoproj.io/sync-wave'];
  const n = typeof text === 'string' && /^-?\d+$/.test(text) ? Number(text) : NaN;
  return Number.isNaN(n) ? 0 : n;
}

/** Whether `obj` is a sync hook (`argocd.argoproj.io/hook`). */
export function isHook(obj: Obj): boolean {
  return obj.metadata?.annotations?.['argocd.argoproj.io/hook'] !== undefined;
}

/** Sorts by wave, then kind, then name (gitops-engine/pkg/sync/sync_tasks.go:80-109; one phase here). */
export function sortTasks<T extends Obj>(objs: readonly T[]): T[] {
  return [...objs].sort((a, b) => syncWave(a) - syncWave(b) || kindRank(a.kind) - kindRank(b.kind)
    || (a.metadata.name < b.metadata.name ? -1 : a.metadata.name > b.metadata.name ? 1 : 0));
}

/** What a task's health means for the operation. */
export type TaskOutcome = 'succeeded' | 'failed' | 'running';

/**
 * A running task judged by the health of its live object. A resource succeeds when Healthy (or when it has no
 * health check) and fails when Degraded; anything else keeps it running (sync_context.go:552-567). A hook is
 * judged by getOperationPhase: Unknown and Degraded fail it, Progressing and Suspended keep it running
 * (sync_context.go:348-371, :545-551).
 */
export function taskOutcome(obj: Obj, health: HealthResult | undefined): TaskOutcome {
  if (health === undefined) return 'succeeded';
  if (health.status === 'Healthy') return 'succeeded';
  if (health.status === 'Degraded') return 'failed';
  if (isHook(obj) && health.status === 'Unknown') return 'failed';
  return 'running';
}

/** `waiting for healthy state of <group>/<kind>/<name> and N more resources` (sync_context.go:425-474). */
export function runningMessage(objs: readonly Obj[]): string {
  const first = objs[0];
  const group = String(first.apiVersion ?? '').includes('/') ? String(first.apiVersion).split('/')[0] : '';
  const msg = `waiting for healthy state of ${group}/${first.kind}/${first.metadata.name}`;
  return objs.length > 1 ? `${msg} and ${objs.length - 1} more resources` : msg;
}

/** An Application's `syncPolicy.retry`, with Argo CD's defaults. */
export interface RetryPolicy {
  readonly limit: number;
  readonly durationSeconds: number;
  readonly factor: number;
  readonly maxDurationSeconds: number;
}

/**
 * The retry of an automated sync: without `retry`, none (limit 0). Defaults of the backoff: 5s, factor 2,
 * max 3m (pkg/apis/application/v1alpha1/types.go:1567-1570, DefaultSyncRetry*).
 */
export function retryPolicy(app: Obj): RetryPolicy {
  const retry = app.spec?.syncPolicy?.retry;
  if (retry === undefined) return { limit: 0, durationSeconds: 5, factor: 2, maxDurationSeconds: 180 };
  const b = retry.backoff ?? {};
  return {
    limit: retry.limit ?? 0,
    durationSeconds: b.duration !== undefined ? parseDuration(b.duration) : 5,
    factor: b.factor ?? 2,
    maxDurationSeconds: b.maxDuration !== undefined ? parseDuration(b.maxDuration) : 180,
  };
}

/**
 * Seconds until retry number `retryCount` (0-based): duration × factor^retryCount, capped at maxDuration
 * (types.go:1590-1597, `NextRetryAt`).
 */
export function retryDelay(p: RetryPolicy, retryCount: number): number {
  const wait = p.durationSeconds * Math.pow(p.factor, retryCount);
  return p.maxDurationSeconds > 0 ? Math.min(p.maxDurationSeconds, wait) : wait;
}

/** A Go duration or a bare number of seconds (types.go `parseStringToDuration`), in seconds. */
export function parseDuration(s: string | number): number {
  if (typeof s === 'number' || /^\d+$/.test(s)) return Number(s);
  let total = 0;
  const re = /(\d+(?:\.\d+)?)(h|m|s|ms)/g;
  let m: RegExpExecArray | null;
  let consumed = 0;
  while ((m = re.exec(s)) !== null) {
    total += Number(m[1]) * ({ h: 3600, m: 60, s: 1, ms: 0.001 } as Record<string, number>)[m[2]];
    consumed += m[0].length;
  }
  if (consumed !== s.length) throw new Error(`unable to parse ${s} as a duration`);
  return total;
}
