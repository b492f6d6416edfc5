import type { ResolvedPostgresClusterConfig } from '../config/homelab-config';
import type { CnpgClusterProps } from '../constructs/cnpg/cnpg-cluster';

/** The props of the `Cluster` that `postgresClusters.<name>` of the homelab config declares. */
export function cnpgClusterProps(name: string, c: ResolvedPostgresClusterConfig): CnpgClusterProps {
  return {
    name,
    namespace: c.namespace,
    instances: c.instances,
    initdbDatabase: c.initdbDatabase,
    initdbOwner: c.initdbOwner,
    storageSize: c.storageSize,
    storageClass: c.storageClass,
    controlPlaneFriendly: c.controlPlaneFriendly,
    managedRoles: c.managedRoles,
    cpuRequest: c.cpuRequest,
    memoryRequest: c.memoryRequest,
    memoryLimit: c.memoryLimit,
  };
}
