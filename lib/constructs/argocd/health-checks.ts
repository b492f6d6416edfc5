/**
 * Lua health checks added to `argocd-cm` as `resource.customizations.health.<group>_<kind>`.
 *
 * Argo CD runs them in gopher-lua with only the `base`, `table`, `package` and a safe `os` library open
 * (argo-cd v3.5.1 `util/lua/lua.go` lines 76-104): there is no `string` or `math` library, so the scripts use
 * only operators and base functions. A Lua error is not a failure to Argo CD: the resource becomes `Unknown`,
 * which a sync wave waits on, so every script handles a missing `status`.
 *
 * Inside a sync wave Argo CD treats only `Healthy` as done and only `Degraded` as failed; `Progressing`,
 * `Suspended`, `Missing` and `Unknown` wait (argo-cd v3.5.1 `gitops-engine/pkg/sync/sync_context.go` lines
 * 561-568), bounded only by the controller's sync timeout. So every state that will not resolve by itself
 * maps to `Degraded`, with the controller's own message.
 *
 * @see https://argo-cd.readthedocs.io/en/stable/operator-manual/health/
 */

/**
 * The start of every script: Argo CD runs each health check on its own, so each carries the helper that builds
 * the table it returns.
 */
const RESULT_LUA = `local hs = {}
local function result(status, message)
  hs.status = status
  hs.message = message
  return hs
end
`;

/**
 * Health of a child Application, so an app-of-apps waits for its children in sync-wave order (Argo CD removed
 * this built-in check in 1.8). Field names are those of argo-cd v3.5.1 `pkg/apis/application/v1alpha1/types.go`
 * (`ApplicationStatus`, `OperationState`, `ApplicationCondition`, `SyncStatus`, `AppHealthStatus`).
 *
 * - No status yet, a sync requested or running (including Argo CD's own retries, which keep the phase
 *   `Running`), or a status computed for an older `spec.source(s)` (the test `needRefreshAppStatus` makes:
 *   "spec.source differs"): Progressing.
 * - An error condition (`ComparisonError`: repository or chart unreachable, `InvalidSpecError`, `SyncError`:
 *   e.g. "Failed last sync attempt", `UnknownError`, `DeletionError`): Degraded with its message.
 * - The last sync `Failed` or `Error`ed (auto-sync does not retry the same revision): Degraded with its message.
 * - OutOfSync although the last sync of this very revision succeeded and a comparison ran after it: permanent
 *   drift, Degraded. Any other OutOfSync waits for the sync.
 * - Synced: the child's health, except `Missing` (since 3.4 only when *all* its resources are missing: still
 *   being created) waits, `Unknown` (a health check of the child failed) is Degraded, and `Suspended` counts as
 *   done: a child is Suspended only when every resource is Healthy or deliberately paused (a paused canary, a
 *   suspended CronJob, a hibernated database). Its resources exist and serve; holding the wave would fail every
 *   later sync at the sync timeout for a state someone chose. The message says it is suspended.
 */
export const APPLICATION_HEALTH_LUA = `${RESULT_LUA}local function empty(v)
  return v == nil or v == "" or v == false or v == 0 or (type(v) == "table" and next(v) == nil)
end
-- Deep equality of decoded JSON, an empty value equal to an absent one (Go's omitempty).
local function same(a, b)
  if empty(a) and empty(b) then return true end
  if type(a) ~= "table" or type(b) ~= "table" then return a == b end
  for k, v in pairs(a) do
    if not same(v, b[k]) then return false end
  end
  for k, v in pairs(b) do
    if a[k] == nil and not empty(v) then return false end
  end
  return true
end

local status = obj.status
if status == nil then
  return result("Progressing", "Waiting for the Application controller")
end
-- \`Kind namespace/name\` of an entry of status.resources or syncResult.resources.
local function resourceName(r)
  return (r.kind or "") .. " " .. (r.namespace ~= nil and r.namespace ~= "" and (r.namespace .. "/") or "") .. (r.name or "")
end
-- The first resource in this health state, with its message: what a reader needs to act. Present because the
-- install persists resource health in the Application (controller.resource.health.persist).
local function culprit(wanted)
  if status.resources == nil then return "" end
  for _, r in ipairs(status.resources) do
    if r.health ~= nil and r.health.status == wanted then
      local where = resourceName(r)
      if r.health.message ~= nil and r.health.message ~= "" then return " (" .. where .. ": " .. r.health.message .. ")" end
      return " (" .. where .. ")"
    end
  end
  return ""
end
-- The first task of the last sync that failed (OperationState.syncResult.resources, v1alpha1 ResourceResult:
-- status SyncFailed, or a hook whose phase is Failed or Error), with the API server's or the hook's message.
local function failedTask(operationState)
  if operationState == nil or operationState.syncResult == nil or operationState.syncResult.resources == nil then return "" end
  for _, r in ipairs(operationState.syncResult.resources) do
    if r.status == "SyncFailed" or r.hookPhase == "Failed" or r.hookPhase == "Error" then
      local where = resourceName(r)
      return " (" .. where .. ": " .. (r.message or "") .. ")"
    end
  end
  return ""
end
local op = status.operationState
local phase = op ~= nil and op.phase or nil
local opMessage = op ~= nil and op.message or ""
if phase == "Running" or phase == "Terminating" then
  return result("Progressing", "Sync " .. phase .. ": " .. (opMessage or ""))
end
if obj.operation ~= nil then
  return result("Progressing", "Sync requested")
end
local sync = status.sync or {}
local comparedTo = sync.comparedTo or {}
local spec = obj.spec or {}
if not same(spec.source, comparedTo.source) or not same(spec.sources, comparedTo.sources) then
  return result("Progressing", "Waiting for Argo CD to compare the new source")
end
local errors = { ComparisonError = true, InvalidSpecError = true, SyncError = true, UnknownError = true, DeletionError = true }
if status.conditions ~= nil then
  for _, condition in ipairs(status.conditions) do
    if errors[condition.type] then
      return result("Degraded", condition.type .. ": " .. (condition.message or ""))
    end
  end
end
if phase == "Failed" or phase == "Error" then
  local cause = failedTask(op)
  if cause == "" then cause = culprit("Degraded") end
  return result("Degraded", "Sync " .. phase .. ": " .. (opMessage or "") .. cause)
end
local syncStatus = sync.status or "Unknown"
if syncStatus ~= "Synced" then
  local synced = op ~= nil and op.syncResult ~= nil and op.syncResult.revision or nil
  if syncStatus == "OutOfSync" and phase == "Succeeded" and synced ~= nil and synced == sync.revision
      and op.finishedAt ~= nil and status.reconciledAt ~= nil and status.reconciledAt > op.finishedAt then
    return result("Degraded", "OutOfSync after a successful sync of revision " .. synced .. ": the live state drifts from git")
  end
  return result("Progressing", "Waiting for sync (" .. syncStatus .. ")")
end
local health = status.health ~= nil and status.health.status or nil
if health == nil or health == "Missing" then
  return result("Progressing", "Waiting for resources to be created")
end
if health == "Healthy" then
  return result("Healthy", "Synced and healthy")
end
if health == "Suspended" then
  return result("Healthy", "Suspended: synced, and every resource is healthy or deliberately paused; counted as done for its sync wave")
end
if health == "Unknown" then
  return result("Degraded", "Health Unknown: Argo CD cannot assess a resource of this Application" .. culprit("Unknown"))
end
return result(health, "Synced, health " .. health .. culprit(health))
`;

/**
 * Health of a CNPG `Database` (Argo CD up to 3.5 ships no check for it). CNPG 1.30 reports the outcome in
 * `status.applied` and `status.message` (cloudnative-pg v1.30.0 `api/v1/database_funcs.go`): `SetAsReady`
 * sets `applied: true` and `observedGeneration`; `SetAsFailed` and `SetAdmissionError` set `applied: false`
 * and a message without touching `observedGeneration`; `SetAsUnknown` clears `applied` and sets a message,
 * and its only caller is the replica gate (`internal/management/controller/database_controller.go` line 177,
 * `common.go` line 126): "waiting for the cluster to become primary".
 *
 * A failure is read before the generation, so it is reported at once; Healthy only when the current
 * generation was applied, so a later wave never starts before `CREATE DATABASE` ran. A database whose
 * cluster is a replica is Suspended: CNPG applies it only after a promotion, which is a deliberate act. A
 * Database being deleted never reaches the script: Argo CD reports it Progressing, "Pending deletion".
 */
export const CNPG_DATABASE_HEALTH_LUA = `${RESULT_LUA}local status = obj.status
if status == nil then
  return result("Progressing", "Waiting for CloudNativePG to reconcile the database")
end
if status.applied == false then
  return result("Degraded", status.message or "CloudNativePG could not apply the database")
end
if status.applied == nil then
  if status.message ~= nil and status.message ~= "" then
    return result("Suspended", "Not applied: " .. status.message .. " (CloudNativePG applies databases only on a primary cluster)")
  end
  return result("Progressing", "Waiting for CloudNativePG to reconcile the database")
end
local generation = obj.metadata.generation
local observed = status.observedGeneration
if generation ~= nil and (observed == nil or observed < generation) then
  return result("Progressing", "Waiting for CloudNativePG to apply generation " .. generation)
end
return result("Healthy", "Database applied")
`;

/**
 * Health of a CNPG `Cluster`, replacing the check Argo CD v3.5.1 ships
 * (`resource_customizations/postgresql.cnpg.io/Cluster/health.lua`), which fails with a Lua error on a Cluster
 * without status, maps failures to `Unknown` or `Suspended` (both wait forever in a sync wave) and routine
 * changes to `Degraded` (which fails a sync).
 *
 * Every phase constant of cloudnative-pg v1.30.0 `api/v1/cluster_types.go` (lines 697-767) is listed:
 * Healthy for `PhaseHealthy`; Progressing for transitions CNPG finishes by itself; Degraded, with CNPG's
 * `phaseReason`, for what needs a person (an invalid definition, a missing plugin or image, objects it cannot
 * create, an unrecoverable cluster, a failover, or a supervised rollout waiting for a switchover). A phase
 * this list does not know is Degraded and says so: it was written for CNPG 1.30. Before the phase, two
 * deliberate pauses are Suspended: `cnpg.io/reconciliationLoop: disabled`, and hibernation once complete
 * (condition `cnpg.io/hibernation` True; `pkg/reconciler/hibernation/status.go`); hibernation still under way
 * is Progressing.
 */
export const CNPG_CLUSTER_HEALTH_LUA = `${RESULT_LUA}local phases = {
  ["Cluster in healthy state"] = "Healthy",
  ["Setting up primary"] = "Progressing",
  ["Creating a new replica"] = "Progressing",
  ["Upgrading cluster"] = "Progressing",
  ["Upgrading Postgres major version"] = "Progressing",
  ["Cluster upgrade delayed"] = "Progressing",
  ["Primary instance is being restarted in-place"] = "Progressing",
  ["Primary instance is being restarted without a switchover"] = "Progressing",
  ["Switchover in progress"] = "Progressing",
  ["Waiting for the instances to become active"] = "Progressing",
  ["Online upgrade in progress"] = "Progressing",
  ["Applying configuration"] = "Progressing",
  ["Promoting to primary cluster"] = "Progressing",
  ["Failing over"] = "Degraded",
  ["Waiting for user action"] = "Degraded",
  ["Cluster cannot proceed to reconciliation due to an unknown plugin being required"] = "Degraded",
  ["Cluster cannot proceed to reconciliation due to an error while interacting with plugins"] = "Degraded",
  ["Cluster has incomplete or invalid image catalog"] = "Degraded",
  ["Cluster is unrecoverable and needs manual intervention"] = "Degraded",
  ["Cluster cannot execute instance online upgrade due to missing architecture binary"] = "Degraded",
  ["Unable to create required cluster objects"] = "Degraded",
  ["Invalid cluster definition"] = "Degraded",
}
local annotations = obj.metadata.annotations
if annotations ~= nil and annotations["cnpg.io/reconciliationLoop"] == "disabled" then
  return result("Suspended", "Reconciliation is disabled (cnpg.io/reconciliationLoop: disabled)")
end
local status = obj.status
if status == nil then
  return result("Progressing", "Waiting for CloudNativePG to reconcile the cluster")
end
if status.conditions ~= nil then
  for _, condition in ipairs(status.conditions) do
    if condition.type == "cnpg.io/hibernation" then
      if condition.status == "True" then
        return result("Suspended", condition.message or "Cluster has been hibernated")
      end
      return result("Progressing", condition.message or "Hibernation in progress")
    end
  end
end
local phase = status.phase
if phase == nil or phase == "" then
  return result("Progressing", "Waiting for CloudNativePG to report a phase")
end
local reason = status.phaseReason
local message = phase
if reason ~= nil and reason ~= "" then
  message = phase .. ": " .. reason
end
local health = phases[phase]
if health == nil then
  return result("Degraded", "Unknown CloudNativePG phase (this check knows CNPG 1.30): " .. message)
end
return result(health, message)
`;
