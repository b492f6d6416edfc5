import { App } from 'cdk8s';
import { HomelabConfig, PodSecurityLevel, ResolvedHomelabConfig } from '../config/homelab-config';
import { parseHomelabConfig } from '../config/parse';
import { phase0Signatures } from '../config/rules';
import { ArgoCdChart, buildArgoCdTree } from '../homelab/argocd-chart';
import { homelabRepoFor, repoUrlFor } from '../homelab/repo-url';
import { argoCdConfigRule } from '../homelab/validate-argocd-config';
import { BootstrapPlan } from '../homelab/bootstrap-plan';
import { addArgoCdTreeFlows } from '../homelab/network-flows';
import { helmValuesFile, placeSteps, planSteps, stepFiles } from '../output/render-steps';
import { AdoptableRelease, phase0AdoptionProblems } from '../homelab/phase0-adoption';
import { renderRunbook } from '../output/render-runbook';
import { buildPlan, HomelabPlan } from '../plan/homelab-plan';
import { renderOverview } from '../plan/render-overview';
import { MIN_KUBECTL_VERSION } from '../shared/pins';
import { SOPS_PLUGIN_NAME } from '../shared/names';
import { ARGOCD_DIST } from '../shared/dist-layout';
import { OutputFile, OutputFiles, OutputTree, serializeFiles } from '../output/output-tree';
import { assertValidOutput, ValidateOutputOptions } from '../validation/validate-output';
// Straight from the file: the coverage index imports this module.
import { missingApplicationPaths } from '../coverage/missing-paths';
import { phase0KustomizeProblems } from '../coverage/phase0-reach';
import { ConfigError } from '../shared/errors';

/** The built program: the cdk8s app and the plan, for tests and tools that look inside. */
export interface HomelabSynthesis {
  readonly app: App;
  /** The config as synthesized: validated, every default applied. */
  readonly config: ResolvedHomelabConfig;
  readonly bootstrap: BootstrapPlan;
  readonly argocd: ArgoCdChart;
  /** Every output file, keyed by its path relative to `dist/`, in sorted order. */
  readonly tree: OutputTree;
  /** The reviewed RBAC exceptions the output was validated with; pass them when validating it again. */
  readonly validation: ValidateOutputOptions;
  /** The plan `dist/README.md` was rendered from (`npm run plan` prints it). */
  readonly plan: HomelabPlan;
}

/**
 * Validates the config (any value: `npm run synth` does not type-check), builds every chart and renders the
 * whole output tree in memory. Throws a `ConfigError` listing every problem before anything is built; nothing
 * touches the disk.
 */
export function synthesizeHomelab(input: HomelabConfig): HomelabSynthesis {
  const config = parseHomelabConfig(input, { extraRules: [argoCdConfigRule] });
  const app = new App({ outdir: '.cdk8s.out' });
  const bootstrap = new BootstrapPlan(app, 'Bootstrap', { config, repoUrl: (forgejo) => repoUrlFor(config, forgejo) });
  // The steps are all defined now, so their order and file names are known: an Application that adopts a Phase-0
  // Helm release reads the very values file the runbook installs it with (helmValuesFile, the one place it is made).
  const placed = placeSteps(bootstrap.steps);
  const repo = homelabRepoFor(config, bootstrap.forgejo);
  const phase0Releases: AdoptableRelease[] = bootstrap.phase0Releases(config).map((r) => {
    const step = placed.find((p) => p.step === r.step)!;
    return { ...r, valuesFile: repo.distFile(`bootstrap/${helmValuesFile(step)}`) };
  });
  phase0AdoptionProblems(config, phase0Releases).check();
  const argocd = buildArgoCdTree(app, {
    config,
    forgejo: bootstrap.forgejo,
    phase0Postgres: { clusters: bootstrap.clusters, databases: bootstrap.databases },
    phase0Releases,
  });
  if (config.git.repoRoot !== undefined) {
    const missing = missingApplicationPaths(argocd, config.git.repoRoot);
    if (missing.length > 0) throw new ConfigError(missing);
    const phase0 = phase0KustomizeProblems(argocd, config.git.repoRoot, phase0Signatures(config));
    if (phase0.length > 0) throw new ConfigError(phase0);
  }
  addApplicationNamespaces(bootstrap, argocd);
  // What the Argo CD tree runs in, or reaches into, the Phase-0 namespaces: their policies are written by Phase 0 (after
  // the namespaces, which an Application that opts in must find defined first).
  addArgoCdTreeFlows(bootstrap, argocd, config);
  // An Application rendered by the SOPS plugin cannot sync without the age key: Phase 0 installs it, or refuses.
  const decrypts = [...argocd.applications.values()].some((a) => a.sources.some((s) => s.kind === 'plugin' && s.pluginName === SOPS_PLUGIN_NAME));
  if (decrypts) bootstrap.installSopsAgeKey(config.argocd.sopsSecrets.ageKeyFile);
  // Phase 0 applies the project and the root app once; from then on Argo CD reconciles them from git.
  bootstrap.argocdRoot.addObjectsFrom(() => [argocd.project.resource.toJson(), argocd.root.resource.toJson()]);
  // After the cutover a rebuild first applies the root app reading the GitHub seed, and it syncs a copy of the
  // Applications that read the seed too: Forgejo is empty until the mirror Job of that tree has run.
  const seedUrl = repoUrlFor({ ...config, git: { ...config.git, source: 'github' } }, bootstrap.forgejo);
  const seedApps = argocd.repo.distFile(ARGOCD_DIST.seedApps);
  bootstrap.seedRootStep?.addObjectsFrom(() => [
    argocd.project.resource.toJson(),
    readingRepo(argocd.root.resource.toJson(), seedUrl, seedApps),
  ]);
  // ... and a re-run on a cluster already flipped to Forgejo skips that seed root, so it never flips back.
  bootstrap.skipSeedRootOnceFlipped(argocd.root.resource);
  const planned = planSteps(bootstrap.steps);
  const files: OutputFiles = new Map<string, OutputFile>([
    ...stepFiles(planned, 'bootstrap/'),
    ['bootstrap/bootstrap.sh', renderRunbook(planned, {
      minKubectlVersion: MIN_KUBECTL_VERSION, expectedCluster: config.cluster, manifestSha256: config.manifestSha256,
    })],
    ...argocd.renderFiles(),
  ]);
  if (bootstrap.seedRootStep) {
    for (const [file, content] of [...files]) {
      if (!file.startsWith(`${ARGOCD_DIST.apps}/`) || typeof content === 'string') continue;
      files.set(`${ARGOCD_DIST.seedApps}/${file.slice(ARGOCD_DIST.apps.length + 1)}`, content.map((doc) => replaceString(doc, argocd.repo.url, seedUrl)));
    }
  }
  const plan = buildPlan({ config, bootstrap, argocd, files: new Map(files) });
  files.set('README.md', renderOverview(plan));
  // Nothing invalid or unsafe leaves the program: schemas, Pod Security, RBAC, secrets.
  const admin = bootstrap.forgejoAdmin;
  const validation: ValidateOutputOptions = {
    secretAccessAllowList: [{
      role: `${admin.namespace}/${admin.name}`,
      reason: `stores Forgejo's API token in Secret '${admin.tokenSecret.name}' (get and patch on that name only)`,
    }],
    podSecurityExceptions: argocd.delivery.flatMap((part) => part.podSecurityExceptions ?? []),
  };
  assertValidOutput(files, validation);
  return { app, config, bootstrap, argocd, tree: serializeFiles(files), validation, plan };
}

/** An Application with its single source reading `path` of `repoUrl` instead. */
function readingRepo(app: Record<string, any>, repoUrl: string, path: string): Record<string, any> {
  if (!app.spec?.source) throw new Error(`internal: Application '${app.metadata?.name}' has no single spec.source to point at ${repoUrl}`);
  return { ...app, spec: { ...app.spec, source: { ...app.spec.source, repoURL: repoUrl, path } } };
}

/** `value` with every string equal to `from` replaced by `to`, at any depth (a copy; `value` is not changed). */
function replaceString<T>(value: T, from: string, to: string): T {
  if (value === from) return to as T;
  if (Array.isArray(value)) return value.map((v) => replaceString(v, from, to)) as T;
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, replaceString(v, from, to)])) as T;
  }
  return value;
}

/** Namespaces every cluster has; Phase 0 never re-labels them. */
const SYSTEM_NAMESPACES = new Set(['default', 'kube-node-lease', 'kube-public', 'kube-system']);

/**
 * Creates every namespace an Application deploys to (or a referenced Secret lives in) in Phase 0, with the
 * Pod Security levels of the Application's `managedNamespaceMetadata`. Otherwise the wave-0 `sops-secrets`
 * Application could not deliver a Secret into, say, `temporal` before wave 8, and the root would stall.
 */
function addApplicationNamespaces(bootstrap: BootstrapPlan, argocd: ArgoCdChart): void {
  const level = (labels: Readonly<Record<string, string>> | undefined, mode: string) =>
    labels?.[`pod-security.kubernetes.io/${mode}`] as PodSecurityLevel | undefined;
  for (const app of [...argocd.applications.values()].sort((a, b) => (a.name < b.name ? -1 : 1))) {
    if (SYSTEM_NAMESPACES.has(app.namespace)) continue;
    const labels = app.managedNamespaceMetadata?.labels;
    const enforce = level(labels, 'enforce') ?? 'restricted';
    // The other managed labels too (the app tier's, which Kyverno selects by): the namespace exists before Argo CD syncs.
    const others = Object.entries(labels ?? {}).filter(([k]) => !k.startsWith('pod-security.kubernetes.io/'));
    bootstrap.addNamespace(app.namespace, enforce, level(labels, 'warn') ?? enforce, others.length > 0 ? Object.fromEntries(others) : undefined);
  }
  for (const secret of argocd.secretReferences) {
    if (!SYSTEM_NAMESPACES.has(secret.namespace)) bootstrap.addNamespace(secret.namespace, 'restricted');
  }
}
