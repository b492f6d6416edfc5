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

/** Lua's truthiness: everything except nil and false is true. */
function luaTruthy(v: unknown): boolean {
  return v !== undefined && v !== null && v !== false;
}

/**
 * Lua's `tonumber` for the values a JSON object can hold: a number stays one, a string is parsed as a decimal
 * numeral or an unsigned hexadecimal one, surrounding spaces allowed; anything else (nil, a hash, a table) is nil.
 */
function luaToNumber(v: unknown): number | undefined {
  if (typeof v === 'number') return v;
  if (typeof v !== 'string') return undefined;
  const text = v.trim();
  // Not Number() alone: it also takes "", "Infinity", "0b1" and "0o7", which tonumber does not.
  return /^(0[xX][0-9a-fA-F]+|[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?)$/.test(text) ? Number(text) : undefined;
}

/** What Argo CD reports when a Lua check raises an error: Unknown with the error (gitops-engine/pkg/health/health.go:78-85). */
function luaRuntimeError(line: number, text: string): HealthResult {
  return { status: 'Unknown', message: `<string>:${line}: ${text}` };
}

/**
 * Argo CD's built-in Argo Rollouts `Rollout` check, used only when the generated argocd-cm has none: a model of
 * resource_customizations/argoproj.io/Rollout/health.lua at v3.5.1 (all of it; line numbers below), with its
 * messages quoted. Built-in scripts run with the standard libraries (util/lua/lua.go:169-204).
 *
 * - No status, or `status.observedGeneration` (a string since Rollouts v0.10; `tonumber` of it) below
 *   `metadata.generation`, or a `workloadRef` Rollout whose `rollout.argoproj.io/workload-generation` annotation
 *   differs from `status.workloadObservedGeneration`: Progressing, "Waiting for rollout spec update to be
 *   observed" (:57-86). A non-numeric or larger observedGeneration counts as observed (a v0.9 hash, :61-64).
 * - `status.phase` set (every status Rollouts >= 1.0 writes; v1.9.1 rollout/sync.go:757-758 computes it with
 *   utils/rollout/rolloututil.go:133-190): the phase is the health, `Paused` becoming Suspended, and
 *   `status.message` the message (:88-98). So a canary at a pause step is Suspended "CanaryPauseStep",
 *   `spec.paused` Suspended "manually paused", an abort Degraded "RolloutAborted: Rollout aborted update to
 *   revision N: ...", a progress deadline Degraded "ProgressDeadlineExceeded: ...". Argo CD does not look at
 *   `status.controllerPause`, so a promoted canary stays Suspended until the controller rewrites the phase.
 * - Without a phase (Rollouts < 1.0), the Lua derives health itself: InvalidSpec, or a Progressing condition
 *   with reason RolloutAborted or ProgressDeadlineExceeded, is Degraded with the condition's message (:100-116);
 *   pause conditions or `spec.paused` Suspended "Rollout is paused" (:40-52, :118-121); then the replica counts,
 *   the blue-green active selector and the canary stable ReplicaSet, else Healthy with no message (:123-165).
 *
 * The Lua errors, and Argo CD reports Unknown with the error, on a status with neither phase nor conditions
 * (`ipairs(nil)`, :100) and on a numeric observedGeneration without `metadata.generation` (:62). Objects without
 * `spec` or `spec.strategy`, which the Rollout CRD's controller refuses anyway, are not modelled.
 */
export function builtinRolloutHealth(obj: Obj): HealthResult {
  const st = obj.status;
  // isGenerationObserved (:57-67)
  const generationObserved = (): boolean | HealthResult => {
    if (st === undefined || st === null) return false;
    const observed = luaToNumber(st.observedGeneration);
    if (observed === undefined) return true;
    const generation = obj.metadata?.generation;
    if (typeof generation !== 'number') return luaRuntimeError(62, 'attempt to compare nil with number');
    return observed > generation ? true : observed === generation;
  };
  // isWorkloadGenerationObserved (:71-79); Lua's nil == nil is true.
  const workloadGenerationObserved = (): boolean => {
    const annotations = obj.metadata?.annotations;
    if (obj.spec?.workloadRef === undefined || obj.spec?.workloadRef === null || annotations === undefined || annotations === null) return true;
    return luaToNumber(annotations['rollout.argoproj.io/workload-generation']) === luaToNumber(st.workloadObservedGeneration);
  };
  const observed = generationObserved();
  if (typeof observed === 'object') return observed;
  if (!observed || !workloadGenerationObserved()) {
    return { status: 'Progressing', message: 'Waiting for rollout spec update to be observed' }; // :82-86
  }

  if (st.phase !== undefined && st.phase !== null) { // :89-98
    const status = st.phase === 'Paused' ? 'Suspended' : st.phase;
    if (!isHealthStatusCode(status)) return { status: 'Unknown', message: 'Lua returned an invalid health status' }; // lua.go:154-157
    return { status, message: typeof st.message === 'string' ? st.message : '' };
  }

  if (!Array.isArray(st.conditions)) return luaRuntimeError(100, 'bad argument #1 to ipairs (table expected, got nil)');
  for (const c of st.conditions as Obj[]) { // :100-116
    const degraded = c.type === 'InvalidSpec'
      || (c.type === 'Progressing' && (c.reason === 'RolloutAborted' || c.reason === 'ProgressDeadlineExceeded'));
    if (degraded) return { status: 'Degraded', message: typeof c.message === 'string' ? c.message : '' };
  }

  // checkPaused (:40-52)
  if ((Array.isArray(st.pauseConditions) && st.pauseConditions.length > 0) || luaTruthy(obj.spec?.paused)) {
    return { status: 'Suspended', message: 'Rollout is paused' };
  }
  if (st.currentPodHash === undefined || st.currentPodHash === null) { // :123-127
    return { status: 'Progressing', message: 'Waiting for rollout to finish: status has not been reconciled.' };
  }
  // checkReplicasStatus (:1-19)
  const desiredReplicas: number = obj.spec?.replicas ?? 1;
  const statusReplicas: number = st.replicas ?? 0;
  const updatedReplicas: number = st.updatedReplicas ?? 0;
  const availableReplicas: number = st.availableReplicas ?? 0;
  if (updatedReplicas < desiredReplicas) {
    return { status: 'Progressing', message: 'Waiting for roll out to finish: More replicas need to be updated' };
  }
  if (availableReplicas < updatedReplicas) {
    return { status: 'Progressing', message: 'Waiting for roll out to finish: updated replicas are still becoming available' };
  }
  // getStableRS (:23-31): status.stableRS, else the deprecated status.canary.stableRS (which may be nil), else "".
  const stableRS: unknown = st.stableRS ?? (st.canary !== undefined && st.canary !== null ? st.canary.stableRS ?? undefined : '');
  const strategy = obj.spec.strategy;
  if (strategy?.blueGreen !== undefined && strategy?.blueGreen !== null) { // :137-149
    if (st.blueGreen === undefined || st.blueGreen === null || st.blueGreen.activeSelector !== st.currentPodHash) {
      return { status: 'Progressing', message: 'active service cutover pending' };
    }
    if (stableRS !== '' && stableRS !== st.currentPodHash) return { status: 'Progressing', message: 'waiting for analysis to complete' };
  } else if (strategy?.canary !== undefined && strategy?.canary !== null) { // :150-161
    if (statusReplicas > updatedReplicas) {
      return { status: 'Progressing', message: 'Waiting for roll out to finish: old replicas are pending termination' };
    }
    if (stableRS === '' || stableRS !== st.currentPodHash) return { status: 'Progressing', message: 'Waiting for rollout to finish steps' };
  }
  return { status: 'Healthy', message: '' }; // :163-165
}
