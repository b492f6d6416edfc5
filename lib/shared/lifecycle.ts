/**
 * The lifecycle of the upstream components the program pins: which are supported, and which are past their end of
 * life, retired, archived or deprecated, since when, according to which source, and what replaces them. The pins
 * inventory (`lib/plan/pins.ts`) looks every pinned image, chart, release manifest and CRD snapshot up here; a
 * component without an entry is shown as `unknown`, never as supported. Synthesis warns about each end-of-life,
 * retired or archived component still in use.
 *
 * Every entry names the source it was checked against. A claim that could not be confirmed at its source says so
 * in `source` instead of being asserted. Checked 2026-12-01.
 */

/** Where a component stands upstream. */
export type LifecycleStatus = 'supported' | 'end-of-life' | 'retired' | 'archived' | 'deprecated';

/** The statuses synthesis warns about: no more releases or security fixes are coming. */
export const UNMAINTAINED_STATUSES: ReadonlySet<LifecycleStatus> = new Set(['end-of-life', 'retired', 'archived']);

/** What a lifecycle entry is about. */
export type LifecycleSubject =
  /** A container image repository, without tag or digest: `registry.k8s.io/kubectl`. */
  | { readonly kind: 'image'; readonly repository: string }
  /** A Helm chart: its repository URL (or OCI registry) and its name. */
  | { readonly kind: 'chart'; readonly repoURL: string; readonly chart: string }
  /** An upstream project on GitHub (`owner/repo`): its release manifests and CRD snapshots. */
  | { readonly kind: 'project'; readonly project: string };

/** One component's lifecycle. */
export interface LifecycleEntry {
  /** The component in words, e.g. `Kubernetes 1.30 (kubectl)`. */
  readonly component: string;
  /** The images, charts and projects the entry covers. */
  readonly subjects: readonly LifecycleSubject[];
  /**
   * The versions the status applies to: a prefix of the version without its leading `v`, e.g. `1.30.`.
   * @default - every version
   */
  readonly versionPrefix?: string;
  readonly status: LifecycleStatus;
  /** Since when, as an ISO date (`2026-03-02`) or month (`2026-03`). */
  readonly since: string;
  /** Where the status was read: a URL, or an upstream file at a tag. */
  readonly source: string;
  /**
   * What the source says in its own words, and what could not be confirmed (said here rather than asserted).
   * @default - nothing to add
   */
  readonly notes?: string;
  /**
   * What to move to.
   * @default - none needed
   */
  readonly replacement?: string;
}

/** The lifecycle table. Entries with a `versionPrefix` come before a catch-all entry for the same subject. */
export const LIFECYCLE: readonly LifecycleEntry[] = [
  {
    component: 'Kubernetes 1.30 (kubectl)',
    subjects: [{ kind: 'image', repository: 'registry.k8s.io/kubectl' }],
    versionPrefix: '1.30.',
    status: 'end-of-life',
    since: '2025-07-15',
    source: 'https://kubernetes.io/releases/1.30/',
    notes: '"This release has reached End of Life on 2025-07-15"; its last patch is 1.30.14.',
    replacement: 'a supported Kubernetes minor, with the Kubernetes API the program is built on (cdk8s-plus-30) and the ' +
      'cluster test\'s control plane (lib/shared/coupled-pins.ts, kubernetes-api)',
  },
  {
    component: 'ingress-nginx',
    subjects: [{ kind: 'chart', repoURL: 'https://kubernetes.github.io/ingress-nginx', chart: 'ingress-nginx' }],
    status: 'retired',
    since: '2026-03',
    source: 'https://kubernetes.io/blog/2025/11/11/ingress-nginx-retirement/',
    notes: 'Best-effort maintenance until March 2026, then no releases, bug fixes or security fixes; the kubernetes/ingress-nginx ' +
      'README (at dbb11b92) says the same and tells new users to pick a Gateway API implementation.',
    replacement: 'a Gateway API implementation',
  },
  {
    component: 'Promtail',
    subjects: [{ kind: 'chart', repoURL: 'https://grafana.github.io/helm-charts', chart: 'promtail' }],
    status: 'end-of-life',
    since: '2026-03-02',
    source: 'https://grafana.com/docs/loki/latest/send-data/promtail/',
    notes: '"Promtail is end of life (EOL) as of March 2, 2026"; the chart\'s README in grafana/helm-charts (at 326dcb26) says ' +
      'deprecated. Migration: https://grafana.com/docs/alloy/latest/set-up/migrate/from-promtail/',
    replacement: 'Grafana Alloy',
  },
  {
    component: 'MinIO Community Edition (operator and tenant)',
    subjects: [
      { kind: 'chart', repoURL: 'https://operator.min.io/', chart: 'operator' },
      { kind: 'chart', repoURL: 'https://operator.min.io/', chart: 'tenant' },
    ],
    status: 'archived',
    since: '2026-04',
    source: 'https://github.com/cncf/landscape/pull/5047',
    notes: 'The server the tenant runs: minio/minio went maintenance-only (commit 27742d46), and "the github repo is archived" ' +
      '(cncf/landscape PR #5047, 2026-08-20). Not confirmed: the date, 25 April 2026 in third-party reports (apache/camel PR #26404, ' +
      'pgsty/silo#35), not read at GitHub; and whether minio/operator itself is archived: no operator release after v7.1.1 ' +
      '(2025-04) was found.',
    replacement: 'a maintained S3-compatible object store',
  },
  {
    component: 'CloudNativePG 1.30',
    subjects: [{ kind: 'project', project: 'cloudnative-pg/cloudnative-pg' }],
    versionPrefix: '1.30.',
    status: 'supported',
    since: '2026-06-29',
    source: 'cloudnative-pg v1.30.0 docs/src/supported_releases.md',
    notes: '1.30.x released 29 Jun 2026; end of life "~ Dec 2026", three months after 1.31.0.',
  },
  {
    component: 'Argo CD 3.5',
    subjects: [{ kind: 'project', project: 'argoproj/argo-cd' }],
    versionPrefix: '3.5.',
    status: 'supported',
    since: '2026-08-04',
    source: 'argo-cd v3.5.1 docs/developer-guide/release-process-and-cadence.md',
    notes: '"Only the three most recent minor versions are eligible for patch releases"; v3.5.0 was tagged 2026-08-04 and is the ' +
      'newest minor in the snapshot read.',
  },
  {
    component: 'Argo Rollouts 1.9',
    subjects: [{ kind: 'project', project: 'argoproj/argo-rollouts' }],
    versionPrefix: '1.9.',
    status: 'supported',
    since: '2026-07-06',
    source: 'argoproj/argo-rollouts tag v1.9.1 (commit b6bd3bcf, 2026-07-06)',
    notes: 'v1.9.1 is the newest release tag in the snapshot read (v1.10.0-rc1 is a release candidate). The repository at v1.9.1 has ' +
      'no support-policy document, so how long 1.9 gets fixes was not confirmed.',
  },
  {
    component: 'Playwright 1.65 (the E2E journeys\' browser image)',
    subjects: [{ kind: 'image', repository: 'mcr.microsoft.com/playwright' }],
    versionPrefix: '1.65.',
    status: 'supported',
    since: '2026-11',
    source: 'https://www.npmjs.com/package/@playwright/test',
    notes: '@playwright/test 1.65.1 is the newest release on npm (checked 2026-12-01); the month is PyPI\'s for the same line (playwright ' +
      '1.65.2, 2026-11), not read at the GitHub release. Playwright publishes no support window for older releases (none in ' +
      'microsoft/playwright v1.62.1 docs/src), so a new minor is the fix. Not confirmed: the tag v1.65.1-noble on MCR, which follows ' +
      'the documented pattern v<version>-noble (docs/src/docker.md) but was not queried.',
  },
  {
    component: 'Kyverno 1.19 (chart 3.9)',
    subjects: [{ kind: 'chart', repoURL: 'https://kyverno.github.io/kyverno/', chart: 'kyverno' }],
    versionPrefix: '3.9.',
    status: 'supported',
    since: '2026-08-20',
    source: 'https://raw.githubusercontent.com/endoflife-date/endoflife.date/4738afe3bb90efadb21d97acffd63be6e1efd82e/products/kyverno.md',
    notes: 'Chart 3.9.0 ships Kyverno v1.19.0 (charts/kyverno/Chart.yaml at tag kyverno-chart-3.9.0). endoflife.date: 1.19 released ' +
      '2026-08-20, not end of life, each minor supported until three minors later; its Kubernetes column for 1.19 says 1.33 - 1.35 ' +
      '(from kyverno.io/docs/installation, not read here), newer than the Kubernetes 1.30 API this program is built on, while the ' +
      'chart itself accepts kubeVersion >=1.25.0-0.',
  },
  {
    component: 'Kyverno 1.19',
    subjects: [{ kind: 'project', project: 'kyverno/kyverno' }],
    versionPrefix: '1.19.',
    status: 'supported',
    since: '2026-08-20',
    source: 'https://raw.githubusercontent.com/endoflife-date/endoflife.date/4738afe3bb90efadb21d97acffd63be6e1efd82e/products/kyverno.md',
    notes: 'The ImageValidatingPolicy CRD snapshot of v1.19.0; same lifecycle as the chart that ships it (above).',
  },
  {
    component: 'Argo CD Image Updater 1.3',
    subjects: [{ kind: 'project', project: 'argoproj-labs/argocd-image-updater' }],
    versionPrefix: '1.3.',
    status: 'supported',
    since: '2026-08-12',
    source: 'argocd-image-updater v1.3.0 SECURITY.md, README.md',
    notes: 'SECURITY.md: "We currently only support the most recent release"; v1.3.0 (tagged 2026-08-12, commit 098b544f) is the newest ' +
      'release in the snapshot read, so it is supported only until the next one. README.md "Current status": "under active development. ' +
      'We would not recommend it yet for *critical* production workloads".',
  },
  {
    component: 'BuildKit 0.32 (rootless, the image build)',
    subjects: [{ kind: 'image', repository: 'docker.io/moby/buildkit' }],
    versionPrefix: '0.32.',
    status: 'supported',
    since: '2026-08-04',
    source: 'moby/buildkit v0.32.2 PROJECT.md ("Release milestones")',
    notes: '"Once a new feature release is cut, no support is offered for the previous feature release. There are no LTS releases." ' +
      'v0.32.2 (tagged 2026-08-04) is the newest release tag in the snapshot read; a newer feature release ends 0.32\'s support.',
  },
  {
    component: 'cosign 3 (the runner\'s signing tool)',
    subjects: [{ kind: 'image', repository: 'ghcr.io/sigstore/cosign/cosign' }],
    versionPrefix: '3.',
    status: 'supported',
    since: '2026-07-17',
    source: 'sigstore/cosign v3.1.2 VERSIONING.md ("Supported versions")',
    notes: '"We fully support only the latest release"; security fixes go to "all major versions released in the past year". ' +
      'v3.1.2 (tagged 2026-07-17) is the newest tag in the snapshot read.',
  },
  {
    component: 'Forgejo runner 12',
    subjects: [{ kind: 'image', repository: 'code.forgejo.org/forgejo/runner' }],
    versionPrefix: '12.',
    status: 'supported',
    since: '2026-05-27',
    source: 'not confirmed at Forgejo (Codeberg and code.forgejo.org were not reachable): https://pkgs.alpinelinux.org/package/v3.24/community/x86_64/forgejo-runner',
    notes: 'Alpine v3.24 packages forgejo-runner 12.10.2 (built 2026-05-27); forgejo.org\'s installation docs show the image ' +
      '`data.forgejo.org/forgejo/runner:12`. The runner\'s support window and whether the 12.10.2 image tag exists were not checked.',
  },
];

/** The version without its leading `v`, for prefix matching. */
function bare(version: string): string {
  return version.replace(/^v/, '');
}

function sameSubject(a: LifecycleSubject, b: LifecycleSubject): boolean {
  switch (a.kind) {
    case 'image':
      return b.kind === 'image' && b.repository === a.repository;
    case 'chart':
      return b.kind === 'chart' && b.chart === a.chart && b.repoURL.replace(/\/$/, '') === a.repoURL.replace(/\/$/, '');
    case 'project':
      return b.kind === 'project' && b.project === a.project;
  }
}

/** The entry of `table` for `subject` at `version`, or undefined when the table does not know it. */
export function lifecycleOf(subject: LifecycleSubject, version: string, table: readonly LifecycleEntry[] = LIFECYCLE): LifecycleEntry | undefined {
  return table.find((e) => e.subjects.some((s) => sameSubject(s, subject)) &&
    (e.versionPrefix === undefined || bare(version).startsWith(e.versionPrefix)));
}
