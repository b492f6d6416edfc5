/**
 * A Phase-0 Helm release adopted by an Argo CD Application (ADR 0001's substrate: the runbook installs Cilium with
 * helm, then its wave-0 Application takes it over). Adoption without a diff needs the Application to render the
 * very same release: the same chart from the same repository at the same version, the same release name and
 * namespace, and the same values, read from the very file the runbook installed with. This checks the config
 * against the release the runbook installs and reports every disagreement with its config path.
 */
import type { ResolvedHomelabConfig } from '../config/homelab-config';
import { normalizeRepo } from '../config/phase0-signatures';
import type { HelmReleaseSpec } from '../constructs/bootstrap/waits';
import { ProblemCollector } from '../shared/errors';

/** A Phase-0 release and where its values file lives, as the adoption check and the Argo CD tree read it. */
export interface AdoptableRelease {
  /** The component (`cilium`, `longhorn`). */
  readonly component: string;
  /** Config key of the component, for messages (`cilium`). */
  readonly configPath: string;
  readonly release: HelmReleaseSpec;
  /** The Application the config names to adopt it, or null. */
  readonly adoptedBy: string | null;
  /** Repo-relative path of the generated values file (`<git.distPath>/bootstrap/NN-<step>/values.yaml`). */
  readonly valuesFile: string;
}

/**
 * Every way the adopting Applications of `releases` would render something else than what Phase 0 installed.
 * The values file is not compared but filled in (`adoptedValueFiles`): an Application that lists its own is told
 * to drop them.
 */
export function phase0AdoptionProblems(config: ResolvedHomelabConfig, releases: readonly AdoptableRelease[],
  problems = new ProblemCollector()): ProblemCollector {
  for (const r of releases) {
    if (r.adoptedBy === null) continue;
    const appName = r.adoptedBy;
    const app = config.argocd.applications[appName];
    const what = `Phase 0 installs ${r.component} with helm (release ${r.release.namespace}/${r.release.releaseName}, chart ` +
      `'${r.release.chart}' ${r.release.version} from ${r.release.repoURL})`;
    if (!app) {
      problems.add(`${r.configPath}.adoptedBy`, `'${appName}' names no Application under argocd.applications. ${what}; ` +
        `declare the Application that adopts it, or set ${r.configPath}.adoptedBy: null to leave the release to the runbook.`);
      continue;
    }
    const at = `argocd.applications.${appName}`;
    const charts = app.sources.map((s, i) => ({ s, i })).filter(({ s }) => s.kind === 'helm-chart' && s.chart === r.release.chart);
    if (charts.length !== 1) {
      problems.add(`${at}.sources`, `application '${appName}' adopts ${r.component} (${r.configPath}.adoptedBy) and must have exactly one ` +
        `helm-chart source of chart '${r.release.chart}', got ${charts.length}. ${what}; add that source, or set ${r.configPath}.adoptedBy ` +
        'to the Application that has it.');
      continue;
    }
    const { s, i } = charts[0];
    if (s.kind !== 'helm-chart') continue;
    const path = `${at}.sources[${i}]`;
    const differs = (field: string, got: string, want: string) => problems.add(`${path}.${field}`, `application '${appName}' adopts ` +
      `${r.component} (${r.configPath}.adoptedBy) but renders ${field} '${got}', while ${what}: Argo CD would change the running ` +
      `release on its first sync. Set it to '${want}' (the pin is PHASE0_CHARTS.${r.component} in lib/shared/pins.ts; use it, never a copy).`);
    if (normalizeRepo(s.repoURL) !== normalizeRepo(r.release.repoURL)) differs('repoURL', s.repoURL, r.release.repoURL);
    if (s.version !== r.release.version) differs('version', s.version, r.release.version);
    const releaseName = s.releaseName ?? appName;
    if (releaseName !== r.release.releaseName) differs('releaseName', releaseName, r.release.releaseName);
    if (s.skipCrds === true) differs('skipCrds', 'true', 'false');
    if (app.namespace !== r.release.namespace) {
      problems.add(`${at}.namespace`, `application '${appName}' adopts ${r.component} (${r.configPath}.adoptedBy) but deploys to ` +
        `namespace '${app.namespace}', while ${what}: set namespace: '${r.release.namespace}'.`);
    }
    // Fields the Application ignores in its diff (e.g. certificates the chart generates at each render) would still be
    // applied by a sync, replacing what the running release uses, unless the sync respects them too.
    if (app.ignoreDifferences.length > 0 && !app.syncOptions.includes('RespectIgnoreDifferences')) {
      problems.add(`${at}.syncOptions`, `application '${appName}' adopts ${r.component} (${r.configPath}.adoptedBy) and ignores ` +
        `${app.ignoreDifferences.length} field(s) in its diff (ignoreDifferences), but a sync would still apply them, replacing what the ` +
        'release Phase 0 installed uses. Add \'RespectIgnoreDifferences\' to syncOptions, so a sync keeps their live values.');
    }
    const files = s.valueFiles ?? [];
    if (files.length > 0 && !(files.length === 1 && files[0] === r.valuesFile)) {
      problems.add(`${path}.valueFiles`, `application '${appName}' adopts ${r.component} (${r.configPath}.adoptedBy) but reads values ` +
        `${files.map((f) => `'${f}'`).join(', ')}, while Phase 0 installed it with '${r.valuesFile}' (generated from ${r.configPath}). ` +
        'Remove valueFiles: synthesis points the Application at the generated file, so both read one file; change the values in the config.');
    }
  }
  return problems;
}

/** The valueFiles an adopting Application renders for `chart`: the generated one, or undefined when it adopts nothing. */
export function adoptedValueFiles(application: string, chart: string, releases: readonly AdoptableRelease[]): string[] | undefined {
  const r = releases.find((x) => x.adoptedBy === application && x.release.chart === chart);
  return r ? [r.valuesFile] : undefined;
}
