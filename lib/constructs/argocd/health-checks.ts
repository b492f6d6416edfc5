/**
 * Lua health checks added to `argocd-cm` as `resource.customizations.health.<group>_<kind>`.
 * @see https://argo-cd.readthedocs.io/en/stable/operator-manual/health/
 */

/**
 * Health of a child Application, so an app-of-apps waits for its children in sync-wave order. Argo CD
 * removed this built-in check in 1.8. Since 3.4 an Application reports `Missing` only when *all* its
 * resources are missing, so health alone lets a half-created child through: the check also requires the
 * child to be `Synced`, and treats `Missing` as still progressing.
 */
export const APPLICATION_HEALTH_LUA = `hs = {}
hs.status = "Progressing"
hs.message = ""
if obj.status == nil then
  hs.message = "Waiting for the Application controller"
  return hs
end
if obj.status.sync == nil or obj.status.sync.status ~= "Synced" then
  local sync = "Unknown"
  if obj.status.sync ~= nil and obj.status.sync.status ~= nil then
    sync = obj.status.sync.status
  end
  hs.message = "Waiting for sync (" .. sync .. ")"
  return hs
end
if obj.status.health == nil or obj.status.health.status == nil or obj.status.health.status == "Missing" then
  hs.message = "Waiting for resources to be created"
  return hs
end
hs.status = obj.status.health.status
if obj.status.health.message ~= nil then
  hs.message = obj.status.health.message
end
return hs
`;

/**
 * Health of a CNPG `Database` (Argo CD up to 3.5 ships a check for `Cluster` only). CNPG reports the outcome
 * in `status.applied` and `status.message` for `status.observedGeneration`; the CRD has no conditions.
 * Healthy only when the current generation was applied, so a later wave never starts before
 * `CREATE DATABASE` ran.
 */
export const CNPG_DATABASE_HEALTH_LUA = `hs = {}
hs.status = "Progressing"
hs.message = "Waiting for CloudNativePG to reconcile the database"
if obj.metadata ~= nil and obj.metadata.deletionTimestamp ~= nil then
  hs.message = "The database is being deleted"
  return hs
end
if obj.status == nil then
  return hs
end
local generation = obj.metadata.generation
local observed = obj.status.observedGeneration
if generation ~= nil and (observed == nil or observed < generation) then
  hs.message = "Waiting for CloudNativePG to observe generation " .. generation
  return hs
end
if obj.status.applied == true then
  hs.status = "Healthy"
  hs.message = "Database applied"
elseif obj.status.applied == false then
  hs.status = "Degraded"
  hs.message = obj.status.message or "CloudNativePG could not apply the database"
end
return hs
`;
