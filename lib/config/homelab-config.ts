/**
 * The types of the homelab config, all derived from the one schema (lib/config/schema.ts). `HomelabConfig` is
 * what `homelab.config.ts` writes; `ResolvedHomelabConfig` is what lib/ reads after `parseHomelabConfig()`.
 * `lib/config/defaults.ts` holds the reference homelab.
 */
export type {
  DatabaseConfig, ForgejoConfig, GitConfig, HomelabConfig, NamespaceConfig, PodSecurityLevel, PostgresClusterConfig,
  ResolvedDatabaseConfig, ResolvedHomelabConfig, ResolvedNamespaceConfig, ResolvedPostgresClusterConfig,
} from './resolved';
