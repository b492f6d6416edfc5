/**
 * The CNPG-I side of the simulation: how the CNPG operator finds plugins, what the Barman Cloud plugin does when a
 * cluster restores from or archives into an object store, and the object store itself as part of the surroundings.
 *
 * Citations: cloudnative-pg/cloudnative-pg at v1.30.0 ("cnpg"), cloudnative-pg/plugin-barman-cloud at v0.14.0
 * ("plugin"), and cloudnative-pg/barman-cloud at 950b0f57e122, the version the plugin's go.mod pins ("barman-cloud").
 */

type Obj = Record<string, any>;

/** The plugin's name as Clusters reference it (plugin kubernetes/service.yaml: label `cnpg.io/pluginName`). */
export const BARMAN_CLOUD_PLUGIN = 'barman-cloud.cloudnative-pg.io';

/**
 * The operator's namespace: the CNPG release manifest installs into `cnpg-system` (cnpg releases/cnpg-1.30.0.yaml),
 * and the operator only considers plugin Services in its own namespace (cnpg internal/controller/plugin_predicates.go:45-50).
 */
export const CNPG_OPERATOR_NAMESPACE = 'cnpg-system';

/** Label and annotations a Service needs to be a plugin Service (cnpg internal/controller/plugin_predicates.go:45-72). */
export const PLUGIN_NAME_LABEL = 'cnpg.io/pluginName';
export const PLUGIN_CLIENT_SECRET_ANNOTATION = 'cnpg.io/pluginClientSecret';
export const PLUGIN_SERVER_SECRET_ANNOTATION = 'cnpg.io/pluginServerSecret';
export const PLUGIN_PORT_ANNOTATION = 'cnpg.io/pluginPort';

/**
 * The plugin's release manifest at the pinned version (/work/shared/reference/versions.md). Written out here, not
 * imported from lib/shared/pins.ts, like the controllers' names above: the simulation models what upstream does, so a
 * pin bump makes it stop recognising the manifest (the plugin is then never registered and the tests fail) until the
 * objects below are checked against the new release.
 */
const PLUGIN_RELEASE = /^https:\/\/github\.com\/cloudnative-pg\/plugin-barman-cloud\/releases\/download\/v0\.14\.0\/manifest\.yaml$/;

/**
 * The objects of a remote manifest the simulation needs to see, when a step applies it by URL: the simulation does
 * not download manifests, so it knows the few objects whose presence a controller reacts to. For the Barman Cloud
 * plugin's release manifest: its Service (plugin manifest.yaml:974-992, from kubernetes/service.yaml) and its
 * Deployment with the pod labels the Service selects and the TLS Secrets it mounts (manifest.yaml:994-1064, from
 * kubernetes/deployment.yaml). The CNPG operator's own release is known through the runbook's rollout wait instead.
 */
export function remoteManifestObjects(url: string): Obj[] {
  if (!PLUGIN_RELEASE.test(url)) return [];
  const labels = { app: 'barman-cloud' };
  return [
    {
      apiVersion: 'v1', kind: 'Service',
      metadata: {
        name: 'barman-cloud', namespace: CNPG_OPERATOR_NAMESPACE,
        labels: { ...labels, [PLUGIN_NAME_LABEL]: BARMAN_CLOUD_PLUGIN },
        annotations: {
          [PLUGIN_CLIENT_SECRET_ANNOTATION]: 'barman-cloud-client-tls',
          [PLUGIN_SERVER_SECRET_ANNOTATION]: 'barman-cloud-server-tls',
          [PLUGIN_PORT_ANNOTATION]: '9090',
        },
      },
      spec: { selector: labels, ports: [{ port: 9090, protocol: 'TCP', targetPort: 9090 }] },
    },
    {
      apiVersion: 'apps/v1', kind: 'Deployment',
      metadata: { name: 'barman-cloud', namespace: CNPG_OPERATOR_NAMESPACE, labels },
      spec: {
        replicas: 1, selector: { matchLabels: labels },
        template: {
          metadata: { labels },
          spec: {
            volumes: [
              { name: 'server', secret: { secretName: 'barman-cloud-server-tls' } },
              { name: 'client', secret: { secretName: 'barman-cloud-client-tls' } },
            ],
          },
        },
      },
    },
  ];
}

/**
 * The plugins the operator must load before it reconciles a Cluster at all: the enabled entries of `spec.plugins`
 * and the plugins of `spec.externalClusters` (cnpg internal/controller/cluster_controller.go:295-305), sorted.
 */
export function pluginsNeeded(cluster: Obj): string[] {
  const spec = cluster.spec ?? {};
  const names = ((spec.plugins ?? []) as Obj[]).filter((p) => p.enabled !== false).map((p) => p.name as string);
  for (const e of (spec.externalClusters ?? []) as Obj[]) if (e.plugin?.name) names.push(e.plugin.name as string);
  return [...new Set(names)].sort();
}

/** Where a cluster archives WAL: its enabled WAL-archiver plugin entry, if any (`isWALArchiver: true`). */
export function walArchiveTarget(cluster: Obj): { objectStore: string; serverName: string } | undefined {
  const p = ((cluster.spec?.plugins ?? []) as Obj[]).find((x) => x.enabled !== false && x.isWALArchiver === true && x.name === BARMAN_CLOUD_PLUGIN);
  const objectStore = p?.parameters?.barmanObjectName as string | undefined;
  if (!p || !objectStore) return undefined;
  // The server name defaults to the cluster's name (plugin internal/cnpgi/operator/config/config.go:148-155).
  return { objectStore, serverName: (p.parameters.serverName as string | undefined) ?? cluster.metadata.name };
}

/** The recovery source of a `bootstrap.recovery` through a plugin external cluster, if the cluster has one. */
export function recoverySource(cluster: Obj): { objectStore: string; serverName: string } | undefined {
  const sourceName = cluster.spec?.bootstrap?.recovery?.source as string | undefined;
  if (!sourceName) return undefined;
  const ext = ((cluster.spec?.externalClusters ?? []) as Obj[]).find((e) => e.name === sourceName);
  const params = ext?.plugin?.name === BARMAN_CLOUD_PLUGIN ? ext.plugin.parameters ?? {} : undefined;
  if (!params?.barmanObjectName) return undefined;
  // The plugin reads the external cluster's `serverName`, else the recovering cluster's own name
  // (plugin internal/cnpgi/operator/config/config.go:157-164).
  return { objectStore: params.barmanObjectName as string, serverName: (params.serverName as string | undefined) ?? cluster.metadata.name };
}

/** The operator's phases for plugin trouble (cnpg api/v1/cluster_types.go:732-737). */
export const PHASE_UNKNOWN_PLUGIN = 'Cluster cannot proceed to reconciliation due to an unknown plugin being required';
export const PHASE_FAILURE_PLUGIN = 'Cluster cannot proceed to reconciliation due to an error while interacting with plugins';
/** cnpg api/v1/cluster_types.go:743. */
export const PHASE_UNRECOVERABLE = 'Cluster is unrecoverable and needs manual intervention';

/** The phase reason for an unregistered plugin (cnpg internal/controller/cluster_controller.go:241-244). */
export function unknownPluginReason(name: string): string {
  return `Unknown plugin: '${name}'. This may be caused by the plugin not being loaded correctly by the operator. `
    + 'Check the operator and plugin logs for errors';
}

/**
 * The phase reason when a registered plugin cannot be reached: "Error while discovering plugins: %s"
 * (cluster_controller.go:248-253) around "while getting plugin connection: %w" (cnpg
 * internal/cnpi/plugin/repository/connection.go:88-89). The innermost text is gRPC's dial error for a Service
 * without ready endpoints (gRPC's wording, not taken from a source fetched here).
 */
export function pluginUnreachableReason(service: Obj, port: string): string {
  const address = `${service.metadata.name}.${service.metadata.namespace}.svc:${port}`; // plugin_controller.go:247-249
  return 'Error while discovering plugins: while getting plugin connection: rpc error: code = Unavailable desc = '
    + `connection error: desc = "transport: Error while dialing: dial tcp ${address}: connect: connection refused"`;
}

/**
 * The instance-creation Job of a recovering primary: `<cluster>-1-full-recovery` (cnpg pkg/specs/jobs.go:208-225,
 * :316, :322-324). CNPG sets no backoffLimit, so Kubernetes' default of 6 retries applies; the Job controller waits
 * 10 s, 20 s, 40 s, ... (capped at 6 minutes) between failed pods (Kubernetes' documented Job back-off, not taken
 * from a source fetched here). Seconds per attempt are illustrative.
 */
export const RECOVERY_JOB_BACKOFF_LIMIT = 6;
export const RECOVERY_ATTEMPT_SECONDS = 20;
/** Seconds a successful restore of the base backup and replay of WAL takes (illustrative). */
export const RECOVERY_SECONDS = 120;

export function recoveryJobName(cluster: string): string {
  return `${cluster}-1-full-recovery`;
}

/** Start times (seconds after the Job's creation) of each attempt of a Job whose pods always fail. */
export function failingJobAttempts(): number[] {
  const starts = [0];
  for (let i = 0; i < RECOVERY_JOB_BACKOFF_LIMIT; i++) {
    starts.push(starts[i] + RECOVERY_ATTEMPT_SECONDS + Math.min(10 * 2 ** i, 360));
  }
  return starts;
}

/**
 * The phase reason once a primary's instance-creation Job has exhausted its back-off (cnpg
 * internal/controller/cluster_controller.go:848-864, with PhaseUnrecoverable): the cause itself is only in the
 * Job's logs.
 */
export function failedJobReason(job: string): string {
  return `Instance creation failed for the following jobs: ${job}. Check the job logs to investigate the cause of the failure.`;
}

/**
 * What `barman-cloud-check-wal-archive` reports for a destination that already holds WAL, and how the plugin
 * returns it: barman-cloud pkg/walarchive/cmd.go:171-194 wraps the exit status as "unexpected failure invoking %s"
 * (naming barman-cloud-wal-archive, the constant that code passes); the "Expected empty archive" line is barman's
 * own stderr, streamed to the log (barman's barman-cloud-check-wal-archive(1): the check passes only for an empty
 * archive; the wording is barman's, not taken from a source fetched here).
 */
export function nonEmptyArchiveError(): string {
  return 'unexpected failure invoking barman-cloud-wal-archive: exit status 1';
}
export function nonEmptyArchiveLog(serverName: string): string {
  return `ERROR: WAL archive check failed for server ${serverName}: Expected empty archive`;
}

/** A Barman object-store location: the ObjectStore's `destinationPath` and a server name under it. */
export interface ArchiveLocation {
  readonly destinationPath: string;
  readonly serverName: string;
}

/** Objects in object storage before the bring-up starts: what a lost homelab left behind. */
export interface Surroundings {
  /** Server names that hold a base backup and the WAL archived after it. */
  readonly archives: readonly ArchiveLocation[];
}

export function sameLocation(a: ArchiveLocation, b: ArchiveLocation): boolean {
  return a.serverName === b.serverName && a.destinationPath.replace(/\/+$/, '') === b.destinationPath.replace(/\/+$/, '');
}
