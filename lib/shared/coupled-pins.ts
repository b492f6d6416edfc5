/**
 * Pins that must move together: bumping one alone leaves the program built against one version and deploying
 * another. Renovate groups each set into one pull request (`renovate.json`: a `packageRules` entry whose `groupName`
 * is `group` and whose `matchDepNames` lists every `depName` here); `test/renovate/renovate-config.test.ts` fails when a
 * member is missing from its group or no manager extracts it. Pure data.
 */

/** One pin of a coupled set, as Renovate names it. */
export interface CoupledPin {
  /** The `depName` a Renovate manager of `renovate.json` gives the pin. */
  readonly depName: string;
  /** Where the pin is written. */
  readonly where: string;
}

/** A set of pins that move together. */
export interface CoupledPinGroup {
  /** Renovate's `groupName` for the set. */
  readonly group: string;
  readonly pins: readonly CoupledPin[];
  /** Why they move together, with the source of the coupling. */
  readonly why: string;
}

/** The coupled pins of the project. */
export const COUPLED_PINS: readonly CoupledPinGroup[] = [
  {
    group: 'cloudnative-pg',
    pins: [
      { depName: 'cloudnative-pg/cloudnative-pg', where: 'lib/shared/pins.ts CNPG_VERSION; the CNPG CRD snapshot (scripts/crd-sources.json, cdk8s.yaml, imports/)' },
      { depName: 'cloudnative-pg/plugin-barman-cloud', where: 'lib/shared/pins.ts BARMAN_CLOUD_PLUGIN_VERSION; the ObjectStore CRD snapshot (scripts/crd-sources.json, cdk8s.yaml)' },
      { depName: 'github.com/cloudnative-pg/cloudnative-pg', where: 'tools/cnpg-webhook/go.mod: the operator\'s webhooks the cluster test serves' },
    ],
    why: 'The typed classes in imports/ and the schemas/ that validate the output are generated from the operator\'s CRDs at the ' +
      'pinned tag, and the cluster test serves that tag\'s webhooks. The Barman Cloud plugin requires a minimum CNPG ' +
      '(plugin-barman-cloud v0.14.0 web/docs/installation.mdx) and recovery is moving into the instance sidecar, so the two ' +
      'release notes are read together (lib/shared/pins.ts).',
  },
  {
    group: 'argo-cd',
    pins: [
      { depName: 'argoproj/argo-cd', where: 'lib/shared/pins.ts ARGOCD_VERSION; the Application and AppProject CRD snapshot (scripts/crd-sources.json, cdk8s.yaml)' },
      { depName: 'github.com/argoproj/argo-cd/v3', where: 'tools/lua-health/go.mod: Argo CD\'s Lua VM that runs the health checks in the tests' },
    ],
    why: 'The install manifest, the CRDs the Applications are typed and validated against, and the Lua VM the health checks are ' +
      'tested on must be the same release (README "Pins and upgrades").',
  },
  {
    group: 'kubernetes-api',
    pins: [
      { depName: 'registry.k8s.io/kubectl', where: 'lib/shared/pins.ts IMAGES.kubectl: the wait Jobs\' kubectl' },
      { depName: 'k8s.io/kubernetes', where: 'tools/control-plane/go.mod: the API server of the cluster test (then node scripts/build-control-plane.js --update)' },
    ],
    why: 'The program is built on the Kubernetes 1.30 API (cdk8s-plus-30, schemas/kubernetes-1.30.json); kubectl supports one ' +
      'minor of skew and the cluster test must run the API the output is written for. Renovate keeps both below 1.31: a new ' +
      'minor means a new cdk8s-plus-NN package, which is a code change, not a bump.',
  },
  {
    group: 'argo-rollouts',
    pins: [
      { depName: 'argoproj/argo-rollouts', where: 'lib/config/delivery/rollouts.ts ARGO_ROLLOUTS_VERSION: the release install.yaml; the Rollout and AnalysisTemplate CRD snapshot (scripts/crd-sources.json, cdk8s.yaml, imports/)' },
    ],
    why: 'The controller the argo-rollouts Application installs and the CRDs the Rollouts and AnalysisTemplates are typed and ' +
      'validated against must be the same release.',
  },
  {
    group: 'prometheus-operator',
    pins: [
      { depName: 'kube-prometheus-stack', where: 'lib/config/default-catalog.ts CHART_PINS.kubePrometheusStack' },
      { depName: 'github.com/prometheus-operator/prometheus-operator', where: 'scripts/crd-sources.json goModule: the PrometheusRule and PodMonitor CRD snapshot' },
      { depName: 'prometheus-operator/prometheus-operator', where: 'scripts/crd-sources.json and cdk8s.yaml URLs of the same CRDs' },
    ],
    why: 'The backup alerts are typed and validated against the CRDs of the operator that kube-prometheus-stack 88.5.3 ships ' +
      '(appVersion v0.93.1, versions.md §1), so a chart bump that moves the operator moves the snapshot.',
  },
  {
    group: 'kyverno',
    pins: [
      { depName: 'kyverno', where: 'lib/shared/kyverno-chart.ts KYVERNO_CHART: the chart the generated values (lib/constructs/delivery/kyverno-values.ts) are written for' },
      { depName: 'kyverno/kyverno', where: 'scripts/crd-sources.json and cdk8s.yaml: the ImageValidatingPolicy CRD snapshot the signature policies are typed and validated against' },
    ],
    why: 'Chart 3.9.0 ships Kyverno v1.19.0 (charts/kyverno/Chart.yaml appVersion; tag kyverno-chart-3.9.0 is the commit of v1.19.0), and the ' +
      'policies must validate against the CRD of the Kyverno that runs them; a chart bump also needs its values reviewed ' +
      '(delivery.kyverno.chartVersion rule).',
  },
];
