import { App } from 'cdk8s';
import { ApplicationSource, chartRepoUrl } from '../constructs/argocd/application-source';
import { ArgoCdChart } from '../homelab/argocd-chart';
import { ARGOCD_DIST } from '../shared/dist-layout';
import { HomelabApplication } from '../constructs/argocd/homelab-application';
import { repoUrlFor } from '../homelab/repo-url';
import { FIRST_APP_TIER_WAVE, SYNC_WAVES } from '../shared/sync-waves';
import { BootstrapPlan } from '../homelab/bootstrap-plan';
import { BootstrapStep } from '../constructs/bootstrap/bootstrap-step';
import { allDependencies } from '../constructs/bootstrap/order-steps';
import { placeSteps } from '../output/render-steps';
import { describeWait, HelmReleaseSpec, Precondition } from '../constructs/bootstrap/waits';
import { ResolvedHomelabConfig } from '../config/homelab-config';
import { PlannedDataProtection, planDataProtection } from './data-protection';
import { PlannedNetwork, planNetwork } from './network';
import { configWarnings } from './config-warnings';
import { lifecycleWarnings, planPins, PlannedPin } from './pins';
import { OutputFile } from '../output/output-tree';
import { PlannedPromotion, planPromotionFlow } from './promotion-flow';
import { PlannedBuildPreconditions, planBuildPreconditions } from './build-preconditions';

/**
 * The plan of the whole bring-up, as plain data: Phase-0 steps in apply order, the Argo CD waves, and the
 * Phase-2 cutover. Built from the synthesized program by `buildPlan()` and rendered by `renderPlanText()`
 * (the terminal) and `renderOverview()` (`dist/README.md`), so the two can never disagree.
 */

/** What `buildPlan()` reads: the config and the two halves of the synthesized program. */
export interface PlanInput {
  /** The validated config the program was synthesized from. */
  readonly config: ResolvedHomelabConfig;
  /** The Phase-0 steps. */
  readonly bootstrap: BootstrapPlan;
  /** The steady-state Argo CD tree. */
  readonly argocd: ArgoCdChart;
  /** Every output file but `README.md`, keyed by its path relative to `dist/`: where the pins inventory reads the images. */
  readonly files: ReadonlyMap<string, OutputFile>;
}

/** A step another step needs, and why. */
export interface PlannedDependency {
  readonly stepName: string;
  readonly reason: string;
}

/** One Phase-0 step at its place in the apply order. */
export interface PlannedStep {
  /** 1-based position in the apply order (the `NN` of its file). */
  readonly index: number;
  readonly stepName: string;
  /** The step's file or folder under `dist/bootstrap/`: `NN-<stepName>.yaml` or `NN-<stepName>`. */
  readonly fileName: string;
  /**
   * What `fileName` is: a manifest file (`kubectl apply -f`), a kustomization folder (`-k`), or the folder of a Helm
   * release, which holds its `values.yaml` (`helm upgrade --install`).
   */
  readonly kind: 'manifest' | 'kustomization' | 'helm-release';
  /**
   * The Helm release the step installs, in words, e.g. `kube-system/cilium: chart cilium 1.20.0 from https://helm.cilium.io`.
   * @default - none: the step is applied with kubectl
   */
  readonly helmRelease?: string;
  readonly summary: string;
  /** Every step this one needs (declared, and implied by construct dependencies), with the reason. */
  readonly dependencies: readonly PlannedDependency[];
  /** What the runbook checks before applying the step, one line each. */
  readonly preconditions: readonly string[];
  /** What the runbook waits for after applying the step, one line each (`describeWait()`). */
  readonly waits: readonly string[];
}

/** One Application of the Argo CD tree. */
export interface PlannedApplication {
  readonly name: string;
  /** Destination namespace. */
  readonly namespace: string;
  readonly syncWave: number;
  /** The Application's file, relative to `dist/`. */
  readonly file: string;
  /** Each source, one line each: `git <path>`, `helm <chart> <version> from <repo>`, `plugin <name> at <path>`. */
  readonly sources: readonly string[];
  /** Values files read from the homelab repository, in order. */
  readonly valueFiles: readonly string[];
  /** Names of the Applications this one depends on, in declaration order. */
  readonly dependsOn: readonly string[];
}

/** One sync wave that holds at least one Application. */
export interface PlannedWave {
  readonly wave: number;
  /** The wave's role from `SYNC_WAVES`, in words, e.g. `identity and cicd`. */
  readonly role: string;
  /** The wave's Applications, sorted by name. */
  readonly applications: readonly PlannedApplication[];
}

/** How Argo CD authenticates to the homelab repository, on one side of the cutover. */
export interface PlannedCredential {
  /** Name of the repository Secret; one per git host, so both can exist during the cutover. */
  readonly name: string;
  /** `ssh` (the GitHub deploy key) or `http-token` (a Forgejo access token). */
  readonly auth: string;
  /** The runbook variable that overrides the local file, e.g. `SEED_DEPLOY_KEY`. */
  readonly variable: string;
  /** The local file the key or token is read from at apply time. */
  readonly defaultPath: string;
  /** How to create the file. */
  readonly hint: string;
}

/** The Phase-2 cutover: Argo CD moves from the GitHub seed to Forgejo's in-cluster repository. */
export interface PlannedCutover {
  /** The current `git.source`. */
  readonly source: 'github' | 'forgejo';
  /** The URL Argo CD reads while `git.source` is `github` (the seed). */
  readonly githubUrl: string;
  /** The URL Argo CD reads once `git.source` is `forgejo` (Forgejo's in-cluster clone URL). */
  readonly forgejoUrl: string;
  /** The root app-of-apps and its file under `dist/`. */
  readonly rootApp: { readonly name: string; readonly file: string };
  /** Applications whose sources read the homelab repository, so their `repoURL` flips; sorted. */
  readonly flippedApplications: readonly string[];
  /** Applications that read chart repositories only and do not change; sorted. */
  readonly unchangedApplications: readonly string[];
  /** The AppProject: its `sourceRepos` permit both homelab URLs, so it does not change at the cutover. */
  readonly project: { readonly name: string; readonly file: string; readonly chartRepos: number };
  /** The repository credential Secrets (one per git host), applied by Phase 0. */
  readonly credential: {
    readonly namespace: string;
    readonly github: PlannedCredential;
    readonly forgejo: PlannedCredential;
  };
  /** The Application that pull-mirrors the GitHub seed into Forgejo, which must be healthy first. */
  readonly mirrorApp: { readonly name: string; readonly syncWave: number };
  /** The Phase-0 step that runs Forgejo. */
  readonly forgejoStep: string;
  /**
   * The Phase-0 files (under `dist/bootstrap/`) of the flip as the runbook applies them after the cutover, on the
   * live cluster and on a rebuild alike: the GitHub seed's credential and root app first, then the step that
   * verifies the Forgejo mirror and applies Forgejo's credential, then the root app reading Forgejo.
   */
  readonly reapply: {
    readonly seedCredential: string;
    readonly seedRoot: string;
    readonly credential: string;
    readonly root: string;
  };
  /** The branch the mirror must hold at the seed's commit before the root app flips (`git.targetRevision`). */
  readonly branch: string;
  /** The runbook, relative to `dist/`. */
  readonly runbook: string;
}

/** The whole plan. */
export interface HomelabPlan {
  readonly steps: readonly PlannedStep[];
  /** The step that hands over to Argo CD by applying the root app. */
  readonly handoverStep: string;
  readonly rootApp: string;
  readonly project: string;
  /** Waves that hold Applications, in ascending order. */
  readonly waves: readonly PlannedWave[];
  readonly cutover: PlannedCutover;
  /** What is backed up, where to, what a restore loses at most, and the keys kept off the cluster. */
  readonly dataProtection: PlannedDataProtection;
  /** The Phase-0 namespaces' isolation and the connectivity matrix. */
  readonly network: PlannedNetwork;
  /** Every pinned version the homelab deploys (images, charts, release manifests, CRD snapshots) and its lifecycle. */
  readonly pins: readonly PlannedPin[];
  /** How a new image reaches each app of `delivery.apps` (empty without a `delivery` section). */
  readonly promotion: readonly PlannedPromotion[];
  /**
   * Settings that lose data or protection by design, with their config paths; then the pins past their end of life,
   * retired or archived.
   */
  readonly warnings: readonly string[];
  /** What the image build needs outside Argo CD (Pod Security, Talos patches, adoption); absent without `delivery`. */
  readonly buildPreconditions?: PlannedBuildPreconditions;
}

/** Where the runbook lives in `dist/`; `synthesizeHomelab` writes the bootstrap steps beside it. */
export const RUNBOOK_FILE = 'bootstrap/bootstrap.sh';

/** Builds the plan from the synthesized program. Pure: reads only its input, and sorts what it derives. */
export function buildPlan(input: PlanInput): HomelabPlan {
  const { bootstrap, argocd } = input;
  const placed = placeSteps(bootstrap.steps);
  const pins = planPins({ steps: placed, argocd, files: input.files });
  const steps = placed.map((p): PlannedStep => ({
    index: p.index,
    stepName: p.step.stepName,
    fileName: p.fileName,
    kind: p.applyFlag === 'helm' ? 'helm-release' : p.applyFlag === '-k' ? 'kustomization' : 'manifest',
    ...(p.step.helmRelease ? { helmRelease: describeHelmRelease(p.step.helmRelease) } : {}),
    summary: p.step.summary,
    dependencies: allDependencies(p.step).map((d) => ({ stepName: d.step.stepName, reason: d.reason })),
    preconditions: p.step.preconditions.map(describePrecondition),
    waits: p.step.waits.map(describeWait),
  }));

  const byWave = new Map<number, PlannedApplication[]>();
  for (const app of [...argocd.applications.values()].sort(byName)) {
    const list = byWave.get(app.syncWave) ?? [];
    list.push(planApplication(app));
    byWave.set(app.syncWave, list);
  }
  const waves = [...byWave.keys()].sort((a, b) => a - b).map((wave) => ({
    wave,
    role: waveRole(wave),
    applications: byWave.get(wave) ?? [],
  }));

  return {
    steps,
    handoverStep: bootstrap.argocdRoot.stepName,
    rootApp: argocd.root.name,
    project: argocd.project.name,
    waves,
    cutover: planCutover(input),
    dataProtection: planDataProtection(input.config, bootstrap, argocd),
    network: planNetwork(input.config, bootstrap),
    pins,
    promotion: planPromotionFlow(input.config, argocd),
    warnings: [...configWarnings(input.config), ...lifecycleWarnings(pins)],
    buildPreconditions: planBuildPreconditions(input.config, bootstrap, argocd),
  };
}

/** One line describing a precondition, for plans. */
/** A Helm release in words: `<namespace>/<release>: chart <chart> <version> from <repo>`. */
export function describeHelmRelease(r: HelmReleaseSpec): string {
  return `${r.namespace}/${r.releaseName}: chart ${r.chart} ${r.version} from ${r.repoURL}`;
}

export function describePrecondition(pre: Precondition): string {
  switch (pre.kind) {
    case 'secret-exists':
      return `Secret ${pre.namespace}/${pre.name} exists. ${pre.hint}`;
    case 'local-file':
      return `local file ${pre.defaultPath} (or $${pre.variable}) exists. ${pre.hint}`;
    case 'secret-from-file':
      return `Secret ${pre.namespace}/${pre.name} (key ${pre.key}) applied from local file ${pre.defaultPath} (or $${pre.variable}). ${pre.hint}`;
    case 'secret-from-env-file':
      return `Secret ${pre.namespace}/${pre.name} (keys ${(pre.envKeys ?? []).join(', ')}) applied from local env file ${pre.defaultPath} ` +
        `(or $${pre.variable}). ${pre.hint}`;
    case 'self-signed-tls-secret':
      return `TLS Secret ${pre.namespace}/${pre.name} (${pre.usage} certificate, CN ${pre.commonName}` +
        `${pre.dnsNames.length > 0 ? `, DNS ${pre.dnsNames.join(', ')}` : ''}) exists and its certificate is valid for more than ` +
        `${pre.renewWithinDays} days; otherwise the runbook makes a self-signed one valid for ${pre.validityDays} days with openssl. ` +
        'Only a re-run of the runbook renews it.';
    case 'git-mirror-current':
      return `the Forgejo pull-mirror ${pre.repoOwner}/${pre.repoName} exists and its branch ${pre.branch} is at the commit ` +
        `${pre.seedUrl} has (git ls-remote with $${pre.seedKeyVariable}; Forgejo's API with $${pre.tokenVariable}), ` +
        `polled for up to ${pre.timeoutSeconds}s; otherwise the runbook stops before the root app flips. ${pre.hint}`;
    case 'skip-when':
      return `skipped when ${pre.jsonPath} of ${pre.resource}${pre.namespace !== undefined ? ` in ${pre.namespace}` : ''} is ` +
        `${pre.equals} (${pre.reason}); otherwise applied. An answer other than that value or NotFound stops the runbook.`;
    case 'note-when-exists':
      return `before applying, the runbook says whether ${pre.description} exists: if it does, ${pre.whenExists}` +
        `${pre.whenAbsent !== undefined ? `; if not, ${pre.whenAbsent}` : ''}. An answer other than the object or NotFound stops the runbook.`;
    case 'api-endpoints-within':
      return 'before applying, every address of the API server (EndpointSlices of Service default/kubernetes) lies in ' +
        `${pre.cidrs.join(', ')} (${pre.cidrsSetting}) and its https port is ${pre.port} (${pre.portSetting}); otherwise the runbook ` +
        `stops, naming the addresses to write: ${pre.consequence}.`;
    default: {
      // Kinds added later still get a line: the runbook's generated Secrets, then anything naming an object.
      const other: { readonly kind: string; readonly namespace?: string; readonly name?: string; readonly key?: string } = pre;
      if (other.kind === 'generated-secret') {
        return `Secret ${other.namespace}/${other.name} exists; when it does not, the runbook creates it with a random ` +
          `'${other.key}' and never changes it afterwards.`;
      }
      return `${other.kind}: ${[other.namespace, other.name].filter((x) => x !== undefined).join('/')}`;
    }
  }
}

/** One line describing an Application source. */
export function describeSource(source: ApplicationSource): string {
  switch (source.kind) {
    case 'git-path': {
      const filters = [source.recurse ? 'recursive' : '', source.include ? `include ${source.include}` : '',
        source.exclude ? `exclude ${source.exclude}` : ''].filter((f) => f !== '');
      return `git ${source.path}${filters.length > 0 ? ` (${filters.join(', ')})` : ''}`;
    }
    case 'plugin':
      return `plugin ${source.pluginName} at ${source.path}`;
    case 'helm-chart':
      return `helm ${source.chart} ${source.version} from ${chartRepoUrl(source)}`;
  }
}

function planApplication(app: HomelabApplication): PlannedApplication {
  return {
    name: app.name,
    namespace: app.namespace,
    syncWave: app.syncWave,
    file: `${ARGOCD_DIST.apps}/${app.name}.yaml`,
    sources: app.sources.map(describeSource),
    valueFiles: app.sources.flatMap((s) => (s.kind === 'helm-chart' ? s.valueFiles ?? [] : [])),
    dependsOn: app.dependsOn.map((d) => d.name),
  };
}

/**
 * What the app tier's waves mean, for the plan's readers; undefined when the plan has none. The sentence says why
 * they come last: a wave that never turns healthy holds every later one.
 */
export function appTierNote(plan: Pick<HomelabPlan, 'waves'>): string | undefined {
  const tier = plan.waves.filter((w) => w.wave >= FIRST_APP_TIER_WAVE).map((w) => w.wave);
  if (tier.length === 0) return undefined;
  const which = tier.length === 1 ? `Wave ${tier[0]} is` : `Waves ${tier[0]}-${tier[tier.length - 1]} are`;
  return `${which} the app tier (the signature policies and delivery.apps): derived after every platform wave, so a failing ` +
    'app, or a Kyverno that never becomes ready, holds no platform Application.';
}

/** The role of a wave from the `SYNC_WAVES` table, in lower-case words; the waves after it are the app tier's. */
function waveRole(wave: number): string {
  if (wave >= FIRST_APP_TIER_WAVE) return 'app tier, after the platform';
  const entry = Object.entries(SYNC_WAVES).find(([, w]) => w === wave);
  return entry ? entry[0].toLowerCase().replace(/_/g, ' ') : `wave ${wave}`;
}

function planCutover(input: PlanInput): PlannedCutover {
  const { config, bootstrap, argocd } = input;
  const source = config.git.source;
  const withSource = (s: 'github' | 'forgejo'): ResolvedHomelabConfig => ({ ...config, git: { ...config.git, source: s } });
  // The other side of the cutover, defined by the same code from the same config: its credential (auth, key
  // file) and step files are read from it, never retyped here. It lives in its own App and is never rendered.
  const otherConfig = withSource(source === 'github' ? 'forgejo' : 'github');
  const other = new BootstrapPlan(new App({ outdir: '.cdk8s.out' }), 'Bootstrap', {
    config: otherConfig,
    repoUrl: (forgejo) => repoUrlFor(otherConfig, forgejo),
  });
  const sides = source === 'github' ? { github: bootstrap, forgejo: other } : { github: other, forgejo: bootstrap };
  const placed = placeSteps(sides.forgejo.steps);
  const fileOf = (step: BootstrapStep | undefined) => {
    const p = placed.find((x) => x.step === step);
    if (!p) throw new Error('internal: the Forgejo side of the cutover lacks a seed or flip step');
    return p.fileName;
  };
  const forgejoFiles = {
    seedCredential: fileOf(sides.forgejo.seedCredentialStep),
    seedRoot: fileOf(sides.forgejo.seedRootStep),
    credential: fileOf(sides.forgejo.repoCredentialStep),
    root: fileOf(sides.forgejo.argocdRoot),
  };

  const apps = [...argocd.applications.values()].sort(byName);
  const readsRepo = (a: HomelabApplication) => a.sourceRepoUrls.includes(a.repo.url);
  return {
    source,
    githubUrl: repoUrlFor(withSource('github'), bootstrap.forgejo),
    forgejoUrl: repoUrlFor(withSource('forgejo'), bootstrap.forgejo),
    rootApp: { name: argocd.root.name, file: `${ARGOCD_DIST.root}/${argocd.root.name}.yaml` },
    flippedApplications: apps.filter(readsRepo).map((a) => a.name),
    unchangedApplications: apps.filter((a) => !readsRepo(a)).map((a) => a.name),
    project: {
      name: argocd.project.name,
      file: `${ARGOCD_DIST.projects}/${argocd.project.name}.yaml`,
      chartRepos: argocd.project.sourceRepos.length - argocd.repo.remotes.length,
    },
    credential: {
      namespace: bootstrap.repoCredential.namespace,
      github: planCredential(sides.github.repoCredentialStep, sides.github.repoCredential),
      forgejo: planCredential(sides.forgejo.repoCredentialStep, sides.forgejo.repoCredential),
    },
    mirrorApp: { name: argocd.forgejoMirrorApp.name, syncWave: argocd.forgejoMirrorApp.syncWave },
    forgejoStep: bootstrap.forgejoStep.stepName,
    reapply: forgejoFiles,
    branch: config.git.targetRevision,
    runbook: RUNBOOK_FILE,
  };
}

function planCredential(step: BootstrapStep, credential: { readonly name: string; readonly auth: string }): PlannedCredential {
  const file = step.preconditions.find((p): p is Extract<Precondition, { kind: 'local-file' }> => p.kind === 'local-file');
  if (!file) throw new Error(`internal: bootstrap step '${step.stepName}' reads no local key or token file`);
  return { name: credential.name, auth: credential.auth, variable: file.variable, defaultPath: file.defaultPath, hint: file.hint };
}

function byName(a: { name: string }, b: { name: string }): number {
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}
