/**
 * The types of the config, derived from the schema (lib/config/schema.ts): what users write (`z.input`) and
 * what the rest of lib/ reads (`z.output`, every default applied, plus the defaults that depend on other
 * fields of the same object).
 */
import type { z } from 'zod';
import type {
  ApplicationSchema, ApplicationSourceSchema, ArgoCdSchema, DatabaseSchema, DataSchemasSchema, ForgejoMirrorSchema, ForgejoSchema,
  GitPathSourceSchema, GitSchema, HelmChartSourceSchema, HomelabConfigShape, IgnoreDifferenceSchema, ManagedNamespaceMetadataSchema,
  NamespaceSchema, PluginSourceSchema, PostgresBackupSchema, PostgresClusterSchema, RestoreFromSchema, SopsSecretsSchema, TemporalSchema,
  BackupObjectStoreSchema,
} from './schema';
import { POD_SECURITY_LEVELS, SYNC_OPTIONS } from './schema';

/** Everything a platform owner may change, as written in `homelab.config.ts`. The only input to synthesis. */
export type HomelabConfig = z.input<typeof HomelabConfigShape>;
export type NamespaceConfig = z.input<typeof NamespaceSchema>;
export type PostgresClusterConfig = z.input<typeof PostgresClusterSchema>;
export type DatabaseConfig = z.input<typeof DatabaseSchema>;
export type PostgresBackupConfig = z.input<typeof PostgresBackupSchema>;
export type RestoreFromConfig = z.input<typeof RestoreFromSchema>;
export type BackupObjectStoreConfig = z.input<typeof BackupObjectStoreSchema>;
export type ForgejoConfig = z.input<typeof ForgejoSchema>;
export type GitConfig = z.input<typeof GitSchema>;
export type ArgoCdConfig = z.input<typeof ArgoCdSchema>;
export type ApplicationConfig = z.input<typeof ApplicationSchema>;
export type TemporalConfig = z.input<typeof TemporalSchema>;
export type DataSchemasConfig = z.input<typeof DataSchemasSchema>;
export type SopsSecretsConfig = z.input<typeof SopsSecretsSchema>;
export type ForgejoMirrorConfig = z.input<typeof ForgejoMirrorSchema>;

/** Sources, sync options and namespace metadata, as constructs take them (their own defaults apply). */
export type GitPathSource = z.input<typeof GitPathSourceSchema>;
export type HelmChartSource = z.input<typeof HelmChartSourceSchema>;
export type PluginSource = z.input<typeof PluginSourceSchema>;
export type ApplicationSource = z.input<typeof ApplicationSourceSchema>;
export type IgnoreDifference = z.input<typeof IgnoreDifferenceSchema>;
export type ManagedNamespaceMetadata = z.input<typeof ManagedNamespaceMetadataSchema>;
export type SyncOption = (typeof SYNC_OPTIONS)[number];
/** Pod Security Standards level written as `pod-security.kubernetes.io/*` labels. */
export type PodSecurityLevel = (typeof POD_SECURITY_LEVELS)[number];

type Shaped = z.output<typeof HomelabConfigShape>;

/** A namespace with both levels resolved. */
export type ResolvedNamespaceConfig = Shaped['namespaces'][string] & { readonly podSecurityWarn: PodSecurityLevel };
/**
 * A cluster with every default applied. `initdbDatabase` and `initdbOwner` are its application database and owner:
 * created by initdb, or, with `restoreFrom`, recovered from the backup (`restoreFrom.database`, `owner`).
 */
export type ResolvedPostgresClusterConfig = Shaped['postgresClusters'][string] & { readonly initdbDatabase: string; readonly initdbOwner: string };
export type ResolvedDatabaseConfig = Shaped['databases'][string];
export type ResolvedPostgresBackupConfig = NonNullable<Shaped['postgresClusters'][string]['backup']>;
export type ResolvedBackupObjectStoreConfig = ResolvedPostgresBackupConfig['objectStore'];
export type ResolvedApplicationConfig = Shaped['argocd']['applications'][string];
export type ResolvedTemporalConfig = NonNullable<Shaped['argocd']['temporal']>;

/** The config with every default applied: what lib/ reads. */
export type ResolvedHomelabConfig = Omit<Shaped, 'namespaces' | 'postgresClusters'> & {
  readonly namespaces: Readonly<Record<string, ResolvedNamespaceConfig>>;
  readonly postgresClusters: Readonly<Record<string, ResolvedPostgresClusterConfig>>;
};

/** Applies the defaults that depend on another field of the same object (`podSecurityWarn`, `initdbDatabase`, `initdbOwner`). */
export function resolveDerivedDefaults(c: Shaped): ResolvedHomelabConfig {
  const map = <T, U>(r: Readonly<Record<string, T>>, f: (v: T) => U) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, f(v)]));
  return {
    ...c,
    namespaces: map(c.namespaces, (ns) => ({ ...ns, podSecurityWarn: ns.podSecurityWarn ?? ns.podSecurity })),
    postgresClusters: map(c.postgresClusters, (pc) => {
      const initdbDatabase = pc.restoreFrom?.database ?? pc.initdbDatabase ?? 'app';
      return { ...pc, initdbDatabase, initdbOwner: (pc.restoreFrom ? pc.restoreFrom.owner : pc.initdbOwner) ?? initdbDatabase };
    }),
  };
}
