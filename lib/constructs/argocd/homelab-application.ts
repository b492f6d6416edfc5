import { Duration } from 'cdk8s';
import { Construct } from 'constructs';
import { Application, ApplicationSpecSource, ApplicationSpecSources } from '../../../imports/argocd-application-argoproj.io';
import { COMMON_LABELS } from '../../shared/labels';
import { dnsLabelProblem } from '../../shared/names';
import { ApplicationSource, chartRepoUrl, VALUES_REF } from './application-source';
import { isPinnedChartVersion } from './chart-version';
import { CLUSTER_SCOPED_KINDS, ClusterScopedKind, compareGroupKind, GroupKind } from '../../shared/cluster-resources';
import { HomelabProject, IN_CLUSTER_SERVER, ProjectApplication } from './homelab-project';
import { HomelabRepo, repoPathProblem } from './homelab-repo';
import { backoffDuration, IgnoreDifference, ManagedNamespaceMetadata, sortedRecord, SYNC_OPTIONS, SyncOption } from './sync-policy';
import { ApplicationWave, appTierWaveProblem, SYNC_WAVE_ANNOTATION, syncWaveProblem } from '../../shared/sync-waves';

/** Properties for `HomelabApplication`. */
export interface HomelabApplicationProps {
  /** Name of the Application (`metadata.name`), kebab-case; also its file name under `argocd/apps/`. */
  readonly name: string;
  /** The project the Application belongs to; never Argo CD's `default` project. */
  readonly project: HomelabProject;
  /** The homelab repository: URL in use, tracked revision, and where `dist/` lives. */
  readonly repo: HomelabRepo;
  /**
   * Where the manifests come from: git paths of the homelab repository, pinned remote Helm charts whose
   * values come from the homelab repository, plugin-rendered directories, or a combination.
   */
  readonly sources: readonly ApplicationSource[];
  /** Destination namespace (`spec.destination.namespace`) on the in-cluster server. */
  readonly namespace: string;
  /**
   * Wave in which the root app-of-apps applies the Application: one of `SYNC_WAVES` (0–8), or for the app tier
   * (`appTier`) one of its waves after the platform (9–12).
   */
  readonly syncWave: ApplicationWave;
  /**
   * An Application of the app tier: it sits after every platform wave, so that its failures (an aborted canary, a
   * failed E2E hook, an unavailable signature gate) hold no platform Application.
   * @default false
   */
  readonly appTier?: boolean;
  /**
   * Applications that must be healthy first; each must sit in a strictly earlier wave.
   * @default []
   */
  readonly dependsOn?: readonly HomelabApplication[];
  /**
   * Application-level sync options, each rendered as `<Option>=true`.
   * @default []
   */
  readonly syncOptions?: readonly SyncOption[];
  /**
   * Labels and annotations of the namespace Argo CD creates; only valid with the `CreateNamespace` option.
   * @default - Argo CD does not touch the namespace's metadata
   */
  readonly managedNamespaceMetadata?: ManagedNamespaceMetadata;
  /**
   * Fields Argo CD ignores when comparing live and desired state.
   * @default []
   */
  readonly ignoreDifferences?: readonly IgnoreDifference[];
  /**
   * Sync automatically, pruning removed objects and reverting drift (`automated: {prune, selfHeal}`).
   * @default true
   */
  readonly automatedSync?: boolean;
  /**
   * How many times a failed sync is retried (`syncPolicy.retry.limit`); a negative value retries forever.
   * @default 5
   */
  readonly retryLimit?: number;
  /**
   * Wait before the first retry (`retry.backoff.duration`).
   * @default Duration.seconds(5)
   */
  readonly retryBackoffDuration?: Duration;
  /**
   * Factor the wait is multiplied by after each failed retry (`retry.backoff.factor`).
   * @default 2
   */
  readonly retryBackoffFactor?: number;
  /**
   * Longest wait between retries (`retry.backoff.maxDuration`).
   * @default Duration.minutes(3)
   */
  readonly retryBackoffMaxDuration?: Duration;
  /**
   * Cluster-scoped kinds the Application manages; they make up the project's cluster-resource allow-list.
   * `Namespace` is added when `CreateNamespace` is set.
   * @default []
   */
  readonly clusterResources?: readonly ClusterScopedKind[];
  /**
   * Namespaces other than `namespace` that the manifests write to (they set `metadata.namespace`).
   * @default []
   */
  readonly additionalNamespaces?: readonly string[];
  /**
   * The manifests may write to every namespace of the project (e.g. the SOPS secrets of all Applications).
   * The namespaces are computed from the other Applications when the project is rendered.
   * @default false
   */
  readonly spansProjectNamespaces?: boolean;
}

/**
 * An Argo CD `Application` of the homelab, typed so that a wrong one cannot be written: pinned charts only,
 * repo-relative paths, a project that is never `default`, a wave from the wave table, dependencies only on
 * earlier waves, and `managedNamespaceMetadata` only together with `CreateNamespace`.
 *
 * @see https://argo-cd.readthedocs.io/en/stable/operator-manual/declarative-setup/#applications
 */
export class HomelabApplication extends Construct implements ProjectApplication {
  public readonly name: string;
  public readonly project: HomelabProject;
  public readonly repo: HomelabRepo;
  public readonly sources: readonly ApplicationSource[];
  /** Destination namespace. */
  public readonly namespace: string;
  public readonly syncWave: ApplicationWave;
  /** Whether it is an Application of the app tier, after every platform wave. */
  public readonly appTier: boolean;
  /** Sorted, without duplicates. */
  public readonly syncOptions: readonly SyncOption[];
  public readonly managedNamespaceMetadata?: ManagedNamespaceMetadata;
  public readonly ignoreDifferences: readonly IgnoreDifference[];
  public readonly automatedSync: boolean;
  public readonly retryLimit: number;
  public readonly retryBackoffDuration: Duration;
  public readonly retryBackoffFactor: number;
  public readonly retryBackoffMaxDuration: Duration;
  /** Cluster-scoped kinds, sorted, including `Namespace` when the Application creates its namespace. */
  public readonly clusterResources: readonly GroupKind[];
  /** Destination namespace plus `additionalNamespaces`, sorted. */
  public readonly namespaces: readonly string[];
  public readonly spansProjectNamespaces: boolean;
  /** The `Application` object. */
  public readonly resource: Application;
  private readonly _dependsOn: HomelabApplication[] = [];

  constructor(scope: Construct, id: string, props: HomelabApplicationProps) {
    super(scope, id);
    this.name = props.name;
    this.project = props.project;
    this.repo = props.repo;
    this.sources = [...props.sources];
    this.namespace = props.namespace;
    this.syncWave = props.syncWave;
    this.appTier = props.appTier ?? false;
    this.syncOptions = SYNC_OPTIONS.filter((o) => (props.syncOptions ?? []).includes(o));
    this.managedNamespaceMetadata = props.managedNamespaceMetadata;
    this.ignoreDifferences = [...(props.ignoreDifferences ?? [])];
    this.automatedSync = props.automatedSync ?? true;
    this.retryLimit = props.retryLimit ?? 5;
    this.retryBackoffDuration = props.retryBackoffDuration ?? Duration.seconds(5);
    this.retryBackoffFactor = props.retryBackoffFactor ?? 2;
    this.retryBackoffMaxDuration = props.retryBackoffMaxDuration ?? Duration.minutes(3);
    this.spansProjectNamespaces = props.spansProjectNamespaces ?? false;
    this.namespaces = [...new Set([this.namespace, ...(props.additionalNamespaces ?? [])])].sort();

    const kinds: GroupKind[] = (props.clusterResources ?? []).map((k) => CLUSTER_SCOPED_KINDS[k]);
    if (this.syncOptions.includes('CreateNamespace')) kinds.push(CLUSTER_SCOPED_KINDS.Namespace);
    this.clusterResources = dedupeGroupKinds(kinds);

    this.validate(props);

    this.resource = new Application(this, 'Resource', {
      metadata: {
        name: this.name,
        namespace: this.project.namespace,
        labels: { ...COMMON_LABELS },
        annotations: { [SYNC_WAVE_ANNOTATION]: String(this.syncWave) },
      },
      spec: {
        project: this.project.name,
        destination: { server: IN_CLUSTER_SERVER, namespace: this.namespace },
        ...this.renderSources(),
        syncPolicy: {
          automated: this.automatedSync ? { prune: true, selfHeal: true } : undefined,
          syncOptions: this.syncOptions.length > 0 ? this.syncOptions.map((o) => `${o}=true`) : undefined,
          managedNamespaceMetadata: this.managedNamespaceMetadata ? {
            labels: this.managedNamespaceMetadata.labels ? sortedRecord(this.managedNamespaceMetadata.labels) : undefined,
            annotations: this.managedNamespaceMetadata.annotations ? sortedRecord(this.managedNamespaceMetadata.annotations) : undefined,
          } : undefined,
          retry: {
            limit: this.retryLimit,
            backoff: {
              duration: backoffDuration(this.retryBackoffDuration.toSeconds()),
              factor: this.retryBackoffFactor,
              maxDuration: backoffDuration(this.retryBackoffMaxDuration.toSeconds()),
            },
          },
        },
        ignoreDifferences: this.ignoreDifferences.length > 0 ? this.ignoreDifferences.map((d) => ({
          group: d.group ?? '',
          kind: d.kind,
          name: d.name,
          namespace: d.namespace,
          jsonPointers: d.jsonPointers ? [...d.jsonPointers] : undefined,
          jqPathExpressions: d.jqPathExpressions ? [...d.jqPathExpressions] : undefined,
          managedFieldsManagers: d.managedFieldsManagers ? [...d.managedFieldsManagers] : undefined,
        })) : undefined,
      },
    });

    this.project.addApplication(this);
    for (const dep of props.dependsOn ?? []) this.addDependsOn(dep);
  }

  /**
   * Declares that `app` must be healthy before this Application syncs. Argo CD orders Applications only by
   * wave, so `app` must sit in a strictly earlier wave; otherwise this throws, naming both and their waves.
   */
  public addDependsOn(app: HomelabApplication): void {
    if (app === this) throw new Error(`application '${this.name}' cannot depend on itself`);
    const problem = dependencyWaveProblem(this, app);
    if (problem) throw new Error(problem);
    if (this._dependsOn.includes(app)) return;
    this._dependsOn.push(app);
    this.node.addDependency(app);
  }

  /** Applications this one depends on, in declaration order. */
  public get dependsOn(): readonly HomelabApplication[] {
    return [...this._dependsOn];
  }

  /** Repository URLs the sources fetch from: the homelab repo and each chart repository, without duplicates. */
  public get sourceRepoUrls(): readonly string[] {
    const urls = this.sources.map((s) => (s.kind === 'helm-chart' ? chartRepoUrl(s) : this.repo.url));
    if (this.sources.some((s) => s.kind === 'helm-chart' && (s.valueFiles ?? []).length > 0)) urls.push(this.repo.url);
    return [...new Set(urls)];
  }

  /** Repo-relative paths of the git and plugin sources (Helm values files excluded). */
  public get repoPaths(): readonly string[] {
    return repoPathsOf(this.sources);
  }

  private validate(props: HomelabApplicationProps): void {
    const first = applicationProblems(props)[0];
    if (first) throw new Error(`application '${this.name}': ${first.message}`);
    if (!Number.isInteger(this.retryLimit)) {
      throw new Error(`application '${this.name}': retryLimit must be an integer, got ${props.retryLimit}.`);
    }
    if (!(this.retryBackoffFactor >= 1)) {
      throw new Error(`application '${this.name}': retryBackoffFactor must be at least 1, got ${props.retryBackoffFactor}.`);
    }
  }

  /** `source` for a single source, `sources` (with the `$values` ref last) otherwise. */
  private renderSources(): { source?: ApplicationSpecSource; sources?: ApplicationSpecSources[] } {
    const repoUrl = this.repo.url;
    const targetRevision = this.repo.targetRevision;
    const rendered: ApplicationSpecSources[] = this.sources.map((s) => {
      switch (s.kind) {
        case 'git-path': {
          // A directory source would apply SOPS ciphertext as-is; `sops-secrets` owns every *.enc.yaml.
          const directory = s.recurse || s.include || s.exclude
            ? { recurse: s.recurse ? true : undefined, include: s.include, exclude: withoutEncrypted(s.exclude) }
            : undefined;
          return { repoUrl, targetRevision, path: s.path, directory };
        }
        case 'plugin':
          return { repoUrl, targetRevision, path: s.path, plugin: { name: s.pluginName } };
        case 'helm-chart': {
          const oci = s.repoURL.startsWith('oci://');
          const valueFiles = (s.valueFiles ?? []).map((f) => `$${VALUES_REF}/${f}`);
          return {
            repoUrl: chartRepoUrl(s),
            ...(oci ? { path: '.' } : { chart: s.chart }),
            targetRevision: s.version,
            helm: {
              releaseName: s.releaseName ?? this.name,
              valueFiles: valueFiles.length > 0 ? valueFiles : undefined,
              skipCrds: s.skipCrds ? true : undefined,
            },
          };
        }
      }
    });
    if (this.sources.some((s) => s.kind === 'helm-chart' && (s.valueFiles ?? []).length > 0)) {
      rendered.push({ repoUrl, targetRevision, ref: VALUES_REF });
    }
    return rendered.length === 1 ? { source: rendered[0] as ApplicationSpecSource } : { sources: rendered };
  }
}

/** Repo-relative paths of the git and plugin sources among `sources` (Helm values files excluded). */
export function repoPathsOf(sources: readonly ApplicationSource[]): string[] {
  return sources.flatMap((s) => (s.kind === 'helm-chart' ? [] : [s.path]));
}

/** What `applicationProblems` checks: the config-level fields of an Application. */
export interface ApplicationRuleInput {
  readonly name: string;
  readonly sources: readonly ApplicationSource[];
  readonly namespace: string;
  readonly additionalNamespaces?: readonly string[];
  readonly syncWave: ApplicationWave;
  /** @default false: a platform Application, in waves 0–8 */
  readonly appTier?: boolean;
  readonly syncOptions?: readonly SyncOption[];
  readonly managedNamespaceMetadata?: ManagedNamespaceMetadata;
  readonly ignoreDifferences?: readonly IgnoreDifference[];
}

/** One broken rule of an Application: the field (relative to the Application, `''` for itself) and the message. */
export interface ApplicationProblem {
  readonly field: string;
  readonly message: string;
}

/**
 * Every rule of one Application that its own fields decide: a valid name, a wave from the wave table, valid
 * namespaces, at least one source, pinned charts from https/oci repositories, clean repo-relative paths,
 * `managedNamespaceMetadata` only with `CreateNamespace`, and `ignoreDifferences` entries that name a field.
 * `HomelabApplication` throws the first; `validateArgoCdConfig` reports them all with their config paths.
 */
export function applicationProblems(app: ApplicationRuleInput): ApplicationProblem[] {
  const out: ApplicationProblem[] = [];
  const add = (field: string, message: string) => out.push({ field, message });
  const nameProblem = dnsLabelProblem(app.name, 53);
  if (nameProblem) add('', `name ${nameProblem}; rename the Application.`);
  const wave = app.appTier ? appTierWaveMessage(app.syncWave) : syncWaveMessage(app.syncWave);
  if (wave) add('syncWave', wave);
  const namespaces: [string, string][] = [['namespace', app.namespace],
    ...(app.additionalNamespaces ?? []).map((ns, i): [string, string] => [`additionalNamespaces[${i}]`, ns])];
  for (const [field, ns] of namespaces) {
    const p = dnsLabelProblem(ns);
    if (p) add(field, `namespace '${ns}' ${p}.`);
  }
  const sources: readonly ApplicationSource[] = Array.isArray(app.sources) ? app.sources : [];
  if (sources.length === 0) add('sources', 'has no sources. Give it a git path, a Helm chart or a plugin source.');
  sources.forEach((s, i) => {
    const at = `sources[${i}]`;
    if (s.kind !== 'helm-chart') {
      const p = repoPathProblem(s.path);
      if (p) add(`${at}.path`, `source path '${s.path}' ${p}.`);
      return;
    }
    if (!/^(https|oci):\/\/[^\s*]+$/.test(s.repoURL)) {
      add(`${at}.repoURL`, `chart repository '${s.repoURL}' must be an https:// Helm repository or an oci:// registry path.`);
    }
    if (s.chart.length === 0) add(`${at}.chart`, 'chart name must not be empty.');
    if (!isPinnedChartVersion(s.version)) {
      add(`${at}.version`, `chart '${s.chart}' version '${s.version}' is not pinned. ` +
        'A range, a wildcard, \'latest\' or an empty version lets the chart change under the same commit. ' +
        'Set an exact release version such as \'1.6.0\'.');
    }
    (s.valueFiles ?? []).forEach((f, j) => {
      const p = repoPathProblem(f);
      if (p || f === '.') add(`${at}.valueFiles[${j}]`, `values file '${f}' ${p ?? 'must name a file'}.`);
    });
  });
  if (app.managedNamespaceMetadata && !(app.syncOptions ?? []).includes('CreateNamespace')) {
    add('managedNamespaceMetadata', 'managedNamespaceMetadata is set but the sync option \'CreateNamespace\' is not; ' +
      'Argo CD applies namespace metadata only to a namespace it creates. ' +
      'Add \'CreateNamespace\' to syncOptions or remove managedNamespaceMetadata.');
  }
  (app.ignoreDifferences ?? []).forEach((d, i) => {
    const fields = (d.jsonPointers ?? []).length + (d.jqPathExpressions ?? []).length + (d.managedFieldsManagers ?? []).length;
    if (fields === 0) {
      add(`ignoreDifferences[${i}]`, `ignoreDifferences entry for kind '${d.kind}' names no field. ` +
        'Set jsonPointers, jqPathExpressions or managedFieldsManagers.');
    }
  });
  return out;
}

/** Why `wave` is not a wave of the wave table, with the fix; undefined when it is. */
export function syncWaveMessage(wave: unknown): string | undefined {
  const problem = syncWaveProblem(wave);
  return problem ? `syncWave ${problem}. Pick a wave from SYNC_WAVES (lib/shared/sync-waves.ts).` : undefined;
}

/** Why `wave` is not a wave of the app tier, with the fix; undefined when it is. */
export function appTierWaveMessage(wave: unknown): string | undefined {
  const problem = appTierWaveProblem(wave);
  return problem ? `syncWave ${problem}. An app-tier Application's wave is derived from its dependencies: depend on fewer Applications in a row.` : undefined;
}

/**
 * Why `app` may not depend on `dep` (Argo CD orders Applications only by wave, so `dep` must sit in a strictly
 * earlier wave), naming both and their waves; undefined when it may.
 */
export function dependencyWaveProblem(app: { name: string; syncWave: number }, dep: { name: string; syncWave: number }): string | undefined {
  if (dep.syncWave < app.syncWave) return undefined;
  return `application '${app.name}' (wave ${app.syncWave}) depends on '${dep.name}' (wave ${dep.syncWave}), ` +
    'but a dependency must sit in a strictly earlier wave. ' +
    `Lower the syncWave of '${dep.name}' below ${app.syncWave}, or raise the syncWave of '${app.name}' above ${dep.syncWave}.`;
}

function dedupeGroupKinds(kinds: readonly GroupKind[]): GroupKind[] {
  const seen = new Map<string, GroupKind>();
  for (const k of kinds) seen.set(`${k.group}/${k.kind}`, k);
  return [...seen.values()].sort(compareGroupKind);
}

/** Directory `exclude` that also skips `*.enc.yaml` (gobwas glob alternatives: `{a,b}`). */
export function withoutEncrypted(exclude: string | undefined): string {
  const encrypted = '*.enc.yaml';
  if (!exclude || exclude === encrypted) return encrypted;
  const inner = exclude.startsWith('{') && exclude.endsWith('}') ? exclude.slice(1, -1) : exclude;
  return inner.split(',').includes(encrypted) ? `{${inner}}` : `{${inner},${encrypted}}`;
}
