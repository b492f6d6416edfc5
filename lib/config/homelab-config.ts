/**
 * The types of the homelab config, all derived from the one schema (lib/config/schema.ts). `HomelabConfig` is
 * what `homelab.config.ts` writes; `ResolvedHomelabConfig` is what lib/ reads after `parseHomelabConfig()`.
 * `lib/config/defaults.ts` holds the reference homelab.
 */
export type {
  BackupObjectStoreConfig, DatabaseConfig, ForgejoConfig, GitConfig, HomelabConfig, NamespaceConfig, PodSecurityLevel, PostgresBackupConfig,
  PostgresClusterConfig, ResolvedBackupObjectStoreConfig, ResolvedDatabaseConfig, ResolvedHomelabConfig, ResolvedNamespaceConfig,
  ResolvedPostgresBackupConfig, ResolvedPostgresClusterConfig, RestoreFromConfig,
} from './resolved';
export type { DeliveryAppConfig, DeliveryConfig, ResolvedDeliveryAppConfig, ResolvedDeliveryConfig } from './delivery/types';
