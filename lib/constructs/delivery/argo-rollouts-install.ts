/**
 * The Argo Rollouts controller, installed by Argo CD from the upstream release manifest through a generated
 * kustomization (the way Phase 0 installs Argo CD itself). Pure data: the kustomization is a file of the tree, not an
 * API object.
 */

/** Namespace of the controller: install.yaml binds its ClusterRole to ServiceAccount `argo-rollouts` in `argo-rollouts`. */
export const ARGO_ROLLOUTS_NAMESPACE = 'argo-rollouts';

/** The controller image install.yaml names (with `:latest` in git at the tag, v1.9.1 manifests/install.yaml). */
export const ARGO_ROLLOUTS_IMAGE = 'quay.io/argoproj/argo-rollouts';

/**
 * The release asset `install.yaml` of `version`. Why the release asset and not the file in git, nor the Helm chart:
 * `manifests/install.yaml` at tag v1.9.1 says `image: quay.io/argoproj/argo-rollouts:latest`, and only the release
 * workflow renders it with the tag (`make manifests IMAGE_TAG=v1.9.1`, v1.9.1 .github/workflows/release.yaml,
 * hack/update-manifests.sh); the newest argo-helm chart, argo-rollouts-2.41.0, ships app v1.9.0, not the v1.9.1 whose
 * CRDs imports/ is generated from.
 */
export function argoRolloutsInstallUrl(version: string): string {
  return `https://github.com/argoproj/argo-rollouts/releases/download/${version}/install.yaml`;
}

/** What the controller requests: install.yaml (v1.9.1) sets only an ephemeral-storage limit. */
export const ARGO_ROLLOUTS_REQUESTS = { cpu: '50m', memory: '128Mi' } as const;

/**
 * The kustomization of the controller's folder: the release manifest in `argo-rollouts`, the image pinned to
 * `version` a second time (kustomize `images`, so the Deployment names the tag even if a release asset did not), and
 * resource requests like every other pod of the tree.
 */
export function argoRolloutsKustomization(version: string): Record<string, unknown> {
  if (!/^v\d+\.\d+\.\d+$/.test(version)) throw new Error(`argoRolloutsKustomization: 'version' must be a release tag such as 'v1.9.1', got '${version}'.`);
  return {
    apiVersion: 'kustomize.config.k8s.io/v1beta1',
    kind: 'Kustomization',
    namespace: ARGO_ROLLOUTS_NAMESPACE,
    resources: [argoRolloutsInstallUrl(version)],
    images: [{ name: ARGO_ROLLOUTS_IMAGE, newTag: version }],
    patches: [{
      target: { group: 'apps', version: 'v1', kind: 'Deployment', name: 'argo-rollouts' },
      patch: JSON.stringify([
        { op: 'add', path: '/spec/template/spec/containers/0/resources/requests', value: { ...ARGO_ROLLOUTS_REQUESTS } },
      ]),
    }],
  };
}
