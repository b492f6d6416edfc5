/**
 * Resources of a CNPG instance when nothing else is said: the defaults of `CnpgCluster` and of the config
 * schema's `postgresClusters.<name>`, kept in one place so they cannot drift.
 */
export const CNPG_RESOURCE_DEFAULTS = { cpuRequest: '100m', memoryRequest: '512Mi', memoryLimit: '1Gi' } as const;
