/**
 * Checks the `argocd` section of the homelab config on the config alone and collects every problem with its
 * config path (`argocd.applications.<name>.sources[0].version`), so users see them all at once. The rules are
 * the ones the constructs enforce (they stay as a second line of defence), called from here, not copied.
 */
import type { ResolvedApplicationConfig, ResolvedTemporalConfig } from '../config/argocd-config';
import type { ResolvedHomelabConfig } from '../config/homelab-config';
import { ConfigRule, phase0Components } from '../config/rules';
import { ProblemCollector } from '../shared/errors';
import type { ApplicationSource } from '../constructs/argocd/application-source';
import { applicationProblems, dependencyWaveProblem, repoPathsOf, syncWaveMessage } from '../constructs/argocd/homelab-application';
import { projectNameProblem, sharedPathProblems } from '../constructs/argocd/homelab-project';
import type { ManagedNamespaceMetadata } from '../constructs/argocd/sync-policy';
import { SYNC_WAVES } from '../shared/sync-waves';
import { temporalSettingProblems } from '../constructs/temporal/temporal-application';
import { TemporalPostgresStore, temporalValues, temporalValuesProblems } from '../constructs/temporal/temporal-values';

/** Names of the Applications the tree generates itself; `argocd.applications` may not use them. */
import { DELIVERY_APPLICATIONS, GENERATED_APPLICATIONS, generatedApplicationRole, ROOT_APPLICATION } from '../shared/application-names';
export { GENERATED_APPLICATIONS };

/** Keys in sorted order, so problems are reported in a stable order. */
function sortedKeys(record: Readonly<Record<string, unknown>> | undefined): string[] {
  return Object.keys(record ?? {}).sort();
}

/**
 * Every problem of `config.argocd` that the config alone decides: the project name, Application names and
 * fields (waves, namespaces, sources, pinned charts, paths, namespace metadata), dependencies (unknown, or not
 * in a strictly earlier wave), paths used twice or inside `argocd.unmanaged`, metadata of Phase-0 namespaces,
 * and Temporal (databases, chart version, shards, owners, values that leave PostgreSQL).
 */
export function validateArgoCdConfig(config: ResolvedHomelabConfig, problems = new ProblemCollector()): ProblemCollector {
  const argocd = config.argocd;
  const projectProblem = projectNameProblem(argocd.project);
  problems.when(projectProblem !== undefined, 'argocd.project', () => projectProblem!);
  applicationNameProblems(config, problems);

  const names = sortedKeys(argocd.applications);
  for (const name of names) {
    for (const p of applicationProblems({ name, ...argocd.applications[name] })) {
      problems.add(p.field === '' ? `argocd.applications.${name}` : `argocd.applications.${name}.${p.field}`, p.message);
    }
  }
  waveProblems(config, problems);

  const catalog = names.map((name) => {
    const app = argocd.applications[name];
    // Reported above when missing; the rules below only read the sources there are.
    const sources = Array.isArray(app.sources) ? app.sources : [];
    return { name, namespace: app.namespace, managedNamespaceMetadata: app.managedNamespaceMetadata, sources, repoPaths: repoPathsOf(sources) };
  });
  for (const p of sharedPathProblems(catalog)) problems.add(`argocd.applications.${p.name}.sources`, p.message);
  unmanagedProblems(argocd.unmanaged, catalog, problems);
  phase0NamespaceProblems(new Set(Object.keys(config.namespaces)), catalog, problems);
  if (argocd.temporal) temporalProblems(config, argocd.temporal, problems);
  return problems;
}

/**
 * The Argo CD section's rule for `parseHomelabConfig()`'s rule table: every problem of `validateArgoCdConfig`,
 * for the Applications that are not Phase-0 components (those are reported by lib/config and get no further advice).
 */
export const argoCdConfigRule: ConfigRule = {
  name: 'the Argo CD tree: project, Applications, waves, dependencies, paths and Temporal',
  check: (config, problems) => {
    const phase0 = phase0Components(config);
    const applications = Object.fromEntries(Object.entries(config.argocd.applications).filter(([app]) => !phase0.has(app)));
    validateArgoCdConfig({ ...config, argocd: { ...config.argocd, applications } }, problems);
  },
};

/** Catalog names that clash with a generated Application, and dependencies on Applications that do not exist. */
export function applicationNameProblems(config: ResolvedHomelabConfig, problems: ProblemCollector): void {
  const argocd = config.argocd;
  const names = Object.keys(argocd.applications);
  const generated: string[] = Object.values(GENERATED_APPLICATIONS);
  // Phase-0 components as Applications are rejected by validateConfig() before the tree is built.
  for (const name of names.sort()) {
    const path = `argocd.applications.${name}`;
    problems.when(generated.includes(name) || name === ROOT_APPLICATION, path, () => `'${name}' is the name of an Application the tree generates ` +
      `(${ROOT_APPLICATION}, ${generated.join(', ')}). Rename it.`);
    // The runner is build-rules' (the generated one replaces the catalog's): its message says how to move over.
    const delivered = config.delivery !== undefined && name !== DELIVERY_APPLICATIONS.runner &&
      (Object.values(DELIVERY_APPLICATIONS) as string[]).includes(name);
    problems.when(delivered, path, () => `'${name}' is ${generatedApplicationRole(name)}, which the config's delivery section generates. ` +
      'Remove this catalog entry, or rename it.');
    for (const dep of argocd.applications[name].dependsOn) {
      problems.when(!applicationExists(config, dep), `${path}.dependsOn`,
        () => `'${dep}' is not an Application of the tree. Use a key of argocd.applications or a generated Application.`);
    }
  }
}

/** Whether `name` is a catalog Application or a generated one that this config generates. */
function applicationExists(config: ResolvedHomelabConfig, name: string): boolean {
  if (Object.keys(config.argocd.applications).includes(name)) return true;
  if (name === GENERATED_APPLICATIONS.temporal) return config.argocd.temporal !== undefined;
  if (name === GENERATED_APPLICATIONS.dataSchemas) return dataSchemasGenerated(config);
  return (Object.values(GENERATED_APPLICATIONS) as string[]).includes(name);
}

/** Whether the tree generates `data-schemas`: some cluster or database is delivered by Argo CD. */
export function dataSchemasGenerated(config: ResolvedHomelabConfig): boolean {
  return Object.values(config.postgresClusters).some((c) => c.deliveredBy === 'argocd')
    || Object.values(config.databases).some((d) => d.deliveredBy === 'argocd');
}

interface WaveNode {
  readonly wave: number;
  /** Config path of the wave (or of the dependency list) to report a contradiction at. */
  readonly path: string;
}

/** Waves of the generated Applications, and every dependency (catalog and generated) in a strictly earlier wave. */
function waveProblems(config: ResolvedHomelabConfig, problems: ProblemCollector): void {
  const argocd = config.argocd;
  const nodes = new Map<string, WaveNode>();
  const generated: [string, string, number | undefined, number, boolean][] = [
    [GENERATED_APPLICATIONS.projects, 'argocd', undefined, SYNC_WAVES.SUBSTRATE, true],
    [GENERATED_APPLICATIONS.sopsSecrets, 'argocd.sopsSecrets', argocd.sopsSecrets.syncWave, SYNC_WAVES.SUBSTRATE, true],
    [GENERATED_APPLICATIONS.forgejoMirror, 'argocd.forgejoMirror', argocd.forgejoMirror.syncWave, SYNC_WAVES.IDENTITY_AND_CICD, true],
    [GENERATED_APPLICATIONS.dataSchemas, 'argocd.dataSchemas', argocd.dataSchemas.syncWave, SYNC_WAVES.DATA, dataSchemasGenerated(config)],
    [GENERATED_APPLICATIONS.temporal, 'argocd.temporal', argocd.temporal?.syncWave, SYNC_WAVES.APPS, argocd.temporal !== undefined],
  ];
  for (const [name, section, wave, fallback, exists] of generated) {
    const message = wave === undefined ? undefined : syncWaveMessage(wave);
    problems.when(exists && message !== undefined, `${section}.syncWave`, () => message!);
    if (exists && message === undefined) nodes.set(name, { wave: wave ?? fallback, path: `${section}.syncWave` });
  }
  for (const name of sortedKeys(argocd.applications)) {
    const app: ResolvedApplicationConfig = argocd.applications[name];
    // A catalog name that clashes with a generated Application is reported on its own.
    if (!nodes.has(name) && syncWaveMessage(app.syncWave) === undefined) nodes.set(name, { wave: app.syncWave, path: `argocd.applications.${name}.dependsOn` });
  }

  // The dependencies the tree adds itself: the mirror and data-schemas read SOPS Secrets; Temporal needs its databases.
  const edges: [string, string][] = [
    [GENERATED_APPLICATIONS.forgejoMirror, GENERATED_APPLICATIONS.sopsSecrets],
    [GENERATED_APPLICATIONS.dataSchemas, GENERATED_APPLICATIONS.sopsSecrets],
  ];
  const temporal = argocd.temporal;
  if (temporal) {
    const dbs = [temporal.defaultDatabase, temporal.visibilityDatabase];
    if (dbs.some((d) => config.databases[d]?.deliveredBy === 'argocd')) edges.push([GENERATED_APPLICATIONS.temporal, GENERATED_APPLICATIONS.dataSchemas]);
  }
  for (const name of sortedKeys(argocd.applications)) {
    for (const dep of argocd.applications[name].dependsOn) edges.push([name, dep]);
  }
  for (const [name, dep] of edges) {
    const app = nodes.get(name);
    const target = nodes.get(dep);
    if (!app || !target) continue; // an unknown Application or an invalid wave is reported on its own
    if (name === dep) {
      problems.add(app.path, `application '${name}' cannot depend on itself`);
      continue;
    }
    const message = dependencyWaveProblem({ name, syncWave: app.wave }, { name: dep, syncWave: target.wave });
    problems.when(message !== undefined, app.path, () => message!);
  }
}

/** An Application as the path and namespace rules see it. */
interface ApplicationPaths {
  readonly name: string;
  readonly sources: readonly ApplicationSource[];
}

/** No Application may read from a directory that `argocd.unmanaged` declares (paths and Helm values files). */
export function unmanagedProblems(unmanaged: readonly string[], apps: readonly ApplicationPaths[], problems: ProblemCollector): void {
  const inside = (p: string, dir: string) => p === dir || p.startsWith(`${dir}/`);
  for (const app of apps) {
    const paths = app.sources.flatMap((s) => (s.kind === 'helm-chart' ? [...(s.valueFiles ?? [])] : s.kind === 'git-path' ? [s.path] : []));
    for (const p of paths) {
      for (const dir of unmanaged) {
        problems.when(inside(p, dir), `argocd.applications.${app.name}`, () => `path '${p}' is inside '${dir}', which argocd.unmanaged ` +
          'declares experimental and unmanaged. Remove it from argocd.unmanaged or stop using the path.');
      }
    }
  }
}

/** The bootstrap owns the labels of Phase-0 namespaces; an Application must not manage their metadata. */
export function phase0NamespaceProblems(phase0: ReadonlySet<string>,
  apps: readonly { readonly name: string; readonly namespace: string; readonly managedNamespaceMetadata?: ManagedNamespaceMetadata }[],
  problems: ProblemCollector): void {
  for (const app of apps) {
    problems.when(app.managedNamespaceMetadata !== undefined && phase0.has(app.namespace), `argocd.applications.${app.name}`,
      () => `namespace '${app.namespace}' is created in Phase 0 (namespaces.${app.namespace}), which owns its labels. ` +
        'Remove managedNamespaceMetadata and CreateNamespace from the Application, or remove the namespace from namespaces.');
  }
}

/** Why Temporal's two databases cannot be used: both must be keys of `databases` on `argocd.temporal.cluster`. */
export function temporalDatabasesProblem(config: ResolvedHomelabConfig, temporal: ResolvedTemporalConfig): string | undefined {
  const names = [temporal.defaultDatabase, temporal.visibilityDatabase];
  if (names.every((n) => config.databases[n]?.cluster === temporal.cluster)) return undefined;
  return `databases '${names[0]}' and '${names[1]}' must both be keys of databases on cluster '${temporal.cluster}'. ` +
    `Declare them under databases with cluster: '${temporal.cluster}'.`;
}

function temporalProblems(config: ResolvedHomelabConfig, temporal: ResolvedTemporalConfig, problems: ProblemCollector): void {
  const databases = temporalDatabasesProblem(config, temporal);
  if (databases) {
    problems.add('argocd.temporal', databases);
    return;
  }
  const pgNames = [temporal.defaultDatabase, temporal.visibilityDatabase];
  const user = config.databases[pgNames[0]].owner;
  for (const p of temporalSettingProblems({
    chartVersion: temporal.chartVersion,
    numHistoryShards: temporal.numHistoryShards,
    user,
    databases: pgNames.map((pgName) => ({ pgName, owner: config.databases[pgName].owner })),
  })) problems.add(p.prop === 'owner' ? `databases.${p.pgName}.owner` : `argocd.temporal.${p.prop}`, p.message);

  // The guard reads only the layout, plugins and overrides; the connection details do not matter to it.
  const store = (databaseName: string): TemporalPostgresStore => ({ databaseName, connectAddr: '', user, existingSecret: '', secretKey: 'password' });
  const valuesWith = (valuesOverride: Readonly<Record<string, unknown>> | undefined) => temporalValuesProblems(temporalValues({
    defaultStore: store(pgNames[0]),
    visibilityStore: store(pgNames[1]),
    sqlPlugin: temporal.sqlPlugin,
    numHistoryShards: temporal.numHistoryShards,
    valuesOverride,
  }));
  const withoutOverride = new Set(valuesWith(undefined));
  for (const p of valuesWith(temporal.valuesOverride)) {
    problems.add(withoutOverride.has(p) ? 'argocd.temporal.sqlPlugin' : 'argocd.temporal.valuesOverride', p);
  }
}
