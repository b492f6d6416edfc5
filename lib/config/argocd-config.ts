/**
 * The steady-state Argo CD part of `HomelabConfig`: the project, one Application per deployable directory,
 * the generated Applications (Temporal, data-schemas, SOPS secrets, the Forgejo mirror) and the directories
 * deliberately left unmanaged. Derived from the schema (lib/config/schema.ts); `lib/config/default-catalog.ts`
 * holds the reference catalog.
 */
export type {
  ApplicationConfig, ApplicationSource, ArgoCdConfig, DataSchemasConfig, ForgejoMirrorConfig, GitPathSource, HelmChartSource,
  IgnoreDifference, ManagedNamespaceMetadata, PluginSource, ResolvedApplicationConfig, ResolvedTemporalConfig, SopsSecretsConfig,
  SyncOption, TemporalConfig,
} from './resolved';
export type { ClusterScopedKind } from '../shared/cluster-resources';
export type { SyncWave } from '../shared/sync-waves';
