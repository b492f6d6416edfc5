/**
 * Health as Argo CD computes it, and the seam through which Lua health checks are evaluated.
 *
 * Citations are to argoproj/argo-cd at v3.5.1, whose go.mod replaces gitops-engine with the in-tree
 * `gitops-engine/` folder (go.mod:17, go.mod:372).
 */

/** Argo CD's health codes (gitops-engine/pkg/health/health.go:45-52, most to least healthy). */
export type HealthStatusCode = 'Healthy' | 'Suspended' | 'Progressing' | 'Missing' | 'Degraded' | 'Unknown';

const HEALTH_ORDER: readonly HealthStatusCode[] = ['Healthy', 'Suspended', 'Progressing', 'Missing', 'Degraded', 'Unknown'];

/** A health status with its message, as a health check returns it. */
export interface HealthResult {
  readonly status: HealthStatusCode;
  readonly message: string;
}

/** Whether `next` is worse than `current` (gitops-engine/pkg/health/health.go:55, `IsWorse`). */
export function isWorse(current: HealthStatusCode, next: HealthStatusCode): boolean {
  return HEALTH_ORDER.indexOf(next) > HEALTH_ORDER.indexOf(current);
}

/**
 * Evaluates a Lua health check the way Argo CD does: `obj` is the live object, the script returns a table with
 * `status` and `message`. Kept narrow so another implementation (Argo CD's own gopher-lua VM through a Go helper)
 * can replace the lua5.1 one.
 */
export interface HealthEvaluator {
  evaluate(kind: string, luaScript: string, object: Record<string, unknown>): HealthResult;
}

/** Whether `s` is one of Argo CD's health codes (util/lua/lua.go:590, `isValidHealthStatusCode`). */
export function isHealthStatusCode(s: unknown): s is HealthStatusCode {
  return typeof s === 'string' && (HEALTH_ORDER as readonly string[]).includes(s);
}

/**
 * A script's raw result turned into a status as `ExecuteHealthLua` does (util/lua/lua.go:136-164): a nil return
 * is an empty status, an invalid code is Unknown with "Lua returned an invalid health status" (lua.go:33, :154-157).
 */
export function normalizeLuaResult(status: string | undefined, message: string | undefined): HealthResult {
  if (status === undefined || status === '') return { status: 'Unknown', message: message ?? '' };
  if (!isHealthStatusCode(status)) return { status: 'Unknown', message: 'Lua returned an invalid health status' };
  return { status, message: message ?? '' };
}

type Obj = Record<string, any>;

function condition(obj: Obj, type: string): Obj | undefined {
  return (obj.status?.conditions as Obj[] | undefined)?.find((c) => c.type === type);
}

/** Deployment health (gitops-engine/pkg/health/health_deployment.go:28-70). */
export function deploymentHealth(obj: Obj): HealthResult {
  const name = obj.metadata?.name as string;
  const progressing = condition(obj, 'Progressing');
  if (progressing?.reason === 'ProgressDeadlineExceeded') {
    return { status: 'Degraded', message: `Deployment "${name}" exceeded its progress deadline` }; // :41-42
  }
  const replicas = obj.spec?.replicas ?? 1;
  const st = obj.status ?? {};
  if ((st.updatedReplicas ?? 0) < replicas) {
    return { status: 'Progressing', message: `Waiting for rollout to finish: ${st.updatedReplicas ?? 0} out of ${replicas} new replicas have been updated...` };
  }
  if ((st.availableReplicas ?? 0) < (st.updatedReplicas ?? 0)) {
    return {
      status: 'Progressing',
      message: `Waiting for rollout to finish: ${st.availableReplicas ?? 0} of ${st.updatedReplicas} updated replicas are available...`,
    };
  }
  return { status: 'Healthy', message: '' }; // :68
}

/** Job health (gitops-engine/pkg/health/health_job.go:30-70): Failed is Degraded with the condition's message. */
export function jobHealth(obj: Obj): HealthResult {
  const failed = condition(obj, 'Failed');
  if (failed?.status === 'True') return { status: 'Degraded', message: failed.message ?? '' };
  const complete = condition(obj, 'Complete');
  if (complete?.status === 'True') return { status: 'Healthy', message: complete.message ?? '' };
  return { status: 'Progressing', message: '' };
}

/**
 * Argo CD's built-in CNPG `Cluster` check, used only when the generated argocd-cm has none: a model of
 * resource_customizations/postgresql.cnpg.io/Cluster/health.lua at v3.5.1 (phase table :3-24, lookup :55-63,
 * no status :67-69), restricted to the phases the simulated controller sets. A phase missing from the table is
 * Unknown with the phase reason (:60-63); "Invalid cluster definition" is one.
 */
export function builtinCnpgClusterHealth(obj: Obj): HealthResult {
  const table: Record<string, HealthStatusCode> = {
    'Cluster in healthy state': 'Healthy',
    'Setting up primary': 'Progressing',
    'Creating a new replica': 'Progressing',
    'Waiting for the instances to become active': 'Progressing',
    'Cluster is unrecoverable and needs manual intervention': 'Suspended',
    'Unable to create required cluster objects': 'Suspended',
  };
  const st = obj.status;
  if (st === undefined || st.conditions === undefined) return { status: 'Progressing', message: st?.phaseReason ?? '' };
  return { status: table[st.phase as string] ?? 'Unknown', message: st.phaseReason ?? '' };
}
