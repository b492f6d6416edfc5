/**
 * What a Phase-0 component looks like inside an Argo CD Application, whatever the Application is called: the
 * Helm charts that install it, the repository paths that hold it, the images that run it. Argo CD syncs from
 * the git repository Forgejo serves, and Forgejo needs CNPG and storage, so an Application that carries any of
 * these re-creates the bootstrap circle. Pure data and matching; the rule that reports matches is in rules.ts.
 *
 * Chart names and repositories, as their projects publish them:
 * - Forgejo: chart `forgejo` at `oci://code.forgejo.org/forgejo-helm` (https://code.forgejo.org/forgejo-helm/forgejo-helm;
 *   `helm install forgejo oci://code.forgejo.org/forgejo-helm/forgejo`); earlier releases at `oci://codeberg.org/forgejo-contrib`.
 * - CloudNativePG: chart `cloudnative-pg` at `https://cloudnative-pg.github.io/charts` (https://github.com/cloudnative-pg/charts,
 *   `helm repo add cnpg https://cloudnative-pg.github.io/charts`), also pushed to `oci://ghcr.io/cloudnative-pg/charts`.
 *   The same repositories hold the `cluster` chart (a CNPG `Cluster`, not the operator), which is not a signature.
 * - Longhorn: chart `longhorn` at `https://charts.longhorn.io` (Longhorn v1.0.1 release notes: `helm repo add longhorn
 *   https://charts.longhorn.io`).
 * - Cilium: chart `cilium` at `https://helm.cilium.io` (https://docs.cilium.io/en/stable/installation/k8s-install-helm/:
 *   `helm repo add cilium https://helm.cilium.io/`). Phase 0 installs it and one Application may adopt it on purpose
 *   (`cilium.adoptedBy`); any other Application with this chart is a second owner of the CNI.
 * - Argo CD: chart `argo-cd` at `https://argoproj.github.io/argo-helm` (https://github.com/argoproj/argo-helm), also at
 *   `oci://ghcr.io/argoproj/argo-helm` (argoproj/argo-helm#2209).
 */
import type { z } from 'zod';
import type { Phase0SignatureSchema } from './schema';

/** How to recognise one Phase-0 component in an Application (declared in the schema: the config may add some). */
export type Phase0Signature = z.input<typeof Phase0SignatureSchema>;

/**
 * The Phase-0 components of the homelab, recognised by content; `phase0Signatures` in the config adds to them. A
 * source is reported for the first signature it matches, so the whole bootstrap tree comes before the root app.
 */
export const PHASE0_SIGNATURES: readonly Phase0Signature[] = [
  {
    component: 'forgejo',
    role: 'it serves the git repository Argo CD syncs from',
    charts: [{ chart: 'forgejo', repos: ['oci://code.forgejo.org/forgejo-helm', 'oci://codeberg.org/forgejo-contrib'] }],
    images: ['codeberg.org/forgejo/forgejo', 'code.forgejo.org/forgejo/forgejo'],
  },
  {
    component: 'cnpg-operator',
    role: 'it runs forgejo-db, the database Forgejo needs',
    charts: [{ chart: 'cloudnative-pg', repos: ['https://cloudnative-pg.github.io/charts', 'oci://ghcr.io/cloudnative-pg/charts'] }],
    images: ['ghcr.io/cloudnative-pg/cloudnative-pg'],
  },
  {
    component: 'longhorn',
    role: 'it provides the volumes of Forgejo and forgejo-db',
    charts: [{ chart: 'longhorn', repos: ['https://charts.longhorn.io'] }],
    images: ['longhornio/longhorn-manager', 'docker.io/longhornio/longhorn-manager'],
  },
  {
    component: 'cilium',
    role: 'it is the CNI: no pod, Forgejo and Argo CD included, runs before it; the runbook installs it and only the ' +
      'Application named by cilium.adoptedBy may take it over',
    charts: [{ chart: 'cilium', repos: ['https://helm.cilium.io'] }],
  },
  {
    component: 'bootstrap',
    role: 'it is the runbook\'s own input: namespaces, the CNPG operator, forgejo-db, Forgejo, the Argo CD install and the root app',
    paths: ['{distPath}/bootstrap'],
  },
  {
    component: 'argocd',
    role: 'the bootstrap installs it with its SOPS plugin and applies the root app-of-apps once; nothing syncs them back',
    charts: [{ chart: 'argo-cd', repos: ['https://argoproj.github.io/argo-helm', 'oci://ghcr.io/argoproj/argo-helm'] }],
    // seed-apps: the Applications the seed root app syncs from GitHub after the cutover; a second reader of them is a
    // second app-of-apps.
    paths: ['{distPath}/argocd/root', '{distPath}/argocd/seed-apps'],
    images: ['quay.io/argoproj/argocd'],
  },
];

/** A source of an Application as the matcher reads it (the config's sources, with their optional fields). */
export type SignatureSource =
  | { readonly kind: 'git-path'; readonly path: string; readonly recurse?: boolean }
  | { readonly kind: 'helm-chart'; readonly repoURL: string; readonly chart: string }
  | { readonly kind: 'plugin'; readonly path: string };

/** One way a source matches a signature. */
export interface SignatureMatch {
  readonly signature: Phase0Signature;
  /** What matched, for messages: `chart 'forgejo' from 'oci://code.forgejo.org/forgejo-helm'`. */
  readonly what: string;
}

/** A repository URL without scheme, trailing slashes or case: `oci://GHCR.io/x/` and `ghcr.io/x` are one repository. */
export function normalizeRepo(url: string): string {
  return url.trim().replace(/^[a-z][a-z0-9+.-]*:\/\//i, '').replace(/\/+$/, '').toLowerCase();
}

/** `{distPath}` of `pattern` replaced; `distPath` '.' (the repository root) leaves no leading `./`. */
export function signaturePath(pattern: string, distPath: string): string {
  const p = pattern.split('{distPath}').join(distPath);
  return p.startsWith('./') ? p.slice(2) : p;
}

function isInside(p: string, dir: string): boolean {
  return dir === '.' || p === dir || p.startsWith(`${dir}/`);
}

/** How `source` matches `signature`, or undefined when it does not. */
export function matchSignature(source: SignatureSource, signature: Phase0Signature, distPath: string): SignatureMatch | undefined {
  if (source.kind === 'helm-chart') {
    const chart = source.chart.trim().toLowerCase();
    const repo = normalizeRepo(source.repoURL);
    for (const c of signature.charts ?? []) {
      if (c.chart.toLowerCase() !== chart) continue;
      // The chart name written into an OCI URL as well (`oci://…/forgejo-helm/forgejo`) is the same chart.
      const known = c.repos.map(normalizeRepo);
      if (known.includes(repo) || known.some((k) => repo === `${k}/${chart}`)) {
        return { signature, what: `chart '${source.chart}' from '${source.repoURL}'` };
      }
    }
    return undefined;
  }
  for (const pattern of signature.paths ?? []) {
    const dir = signaturePath(pattern, distPath);
    if (isInside(source.path, dir)) {
      return { signature, what: source.path === dir ? `path '${source.path}'` : `path '${source.path}' (inside '${dir}')` };
    }
    if (source.kind === 'git-path' && source.recurse === true && isInside(dir, source.path)) {
      return { signature, what: `path '${source.path}' with recurse: true (which reads '${dir}')` };
    }
  }
  return undefined;
}

/** The image repository of an image reference, without tag or digest: `ghcr.io/x/y:1@sha256:…` → `ghcr.io/x/y`. */
export function imageRepository(image: string): string {
  const noDigest = image.split('@')[0];
  const slash = noDigest.lastIndexOf('/');
  const colon = noDigest.lastIndexOf(':');
  return (colon > slash ? noDigest.slice(0, colon) : noDigest).toLowerCase();
}

/** The signature whose images include `image`, if any. */
export function imageSignature(image: string, signatures: readonly Phase0Signature[]): Phase0Signature | undefined {
  const repo = imageRepository(image);
  return signatures.find((s) => (s.images ?? []).some((i) => imageRepository(i) === repo));
}
