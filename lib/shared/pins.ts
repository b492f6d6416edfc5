/**
 * Every upstream artefact the program deploys, pinned. Changing a pin changes the output; nothing here
 * floats. Sources: `../shared/reference/versions.md` and the CRD snapshots recorded in `imports/README.md`.
 */

/** CloudNativePG operator release; its CRDs are the ones in `imports/postgresql.cnpg.io.ts`. */
export const CNPG_VERSION = '1.30.0';
/** The release manifest of that version (Namespace `cnpg-system`, CRDs, webhooks, Deployment). */
export const CNPG_MANIFEST_URL =
  `https://github.com/cloudnative-pg/cloudnative-pg/releases/download/v${CNPG_VERSION}/cnpg-${CNPG_VERSION}.yaml`;

/**
 * The CNPG Barman Cloud plugin release (backups and recovery through CNPG-I); its `ObjectStore` CRD is the one in
 * `imports/`. It moves with CNPG: the plugin's `web/docs/installation.mdx` (v0.14.0) requires CNPG
 * `BARMAN_CLOUD_PLUGIN_MIN_CNPG_VERSION` or newer, and recovery is moving into the instance sidecar as CNPG brings
 * instance bootstrap in-process, so change both pins together and re-read both release notes.
 */
export const BARMAN_CLOUD_PLUGIN_VERSION = 'v0.14.0';
/** The oldest CNPG the pinned plugin supports (`web/docs/installation.mdx` at v0.14.0: "must be 1.26 or newer"). */
export const BARMAN_CLOUD_PLUGIN_MIN_CNPG_VERSION = '1.26.0';
/**
 * The plugin's release manifest (`versions.md` §2b; `web/docs/installation.mdx` at v0.14.0): the `ObjectStore` CRD,
 * RBAC, Deployment and Service `cnpg-system/barman-cloud`, and the cert-manager Issuer and Certificates of its mTLS
 * Secrets, which the bootstrap step deletes and replaces (lib/constructs/cnpg/barman-cloud-plugin.ts).
 */
export const BARMAN_CLOUD_PLUGIN_MANIFEST_URL =
  `https://github.com/cloudnative-pg/plugin-barman-cloud/releases/download/${BARMAN_CLOUD_PLUGIN_VERSION}/manifest.yaml`;

/** Argo CD release; its CRDs are the ones in `imports/argoproj.io.ts`. */
export const ARGOCD_VERSION = 'v3.5.1';
/** The upstream non-HA install manifest of that release. */
export const ARGOCD_INSTALL_URL = `https://raw.githubusercontent.com/argoproj/argo-cd/${ARGOCD_VERSION}/manifests/install.yaml`;

/**
 * Argo CD Image Updater release (ADR 0001 Part B, image promotion); its `ImageUpdater` CRD is the one in `imports/`.
 * Installed from `config/install.yaml` at this tag (image `quay.io/argoprojlabs/argocd-image-updater:v1.3.0`,
 * install.yaml:1222 at the tag), not from argo-helm: chart argocd-image-updater-1.2.4 ships app v1.2.2.
 */
export const IMAGE_UPDATER_VERSION = 'v1.3.0';

/** Container images, by tag. */
export const IMAGES = {
  /**
   * kubectl for wait Jobs. 1.30 matches the pinned Kubernetes API (kubectl supports one minor of skew).
   * Only its entrypoint is used (`args`, no shell), because newer tags are distroless.
   */
  kubectl: 'registry.k8s.io/kubectl:v1.30.14',
  /** Forgejo, rootless variant: uid 1000, HTTP on 3000, SSH on 2222, data in /var/lib/gitea. */
  forgejo: 'codeberg.org/forgejo/forgejo:16.0.3-rootless',
  /** Redis for Forgejo's cache, sessions and queues: user `redis` is uid/gid 999. */
  redis: 'docker.io/library/redis:8.10.1',
  /**
   * SOPS for the Argo CD Config Management Plugin sidecar that decrypts `*.enc.yaml` (alpine: has `sh`).
   * @see https://argo-cd.readthedocs.io/en/stable/operator-manual/config-management-plugins/
   */
  sops: 'ghcr.io/getsops/sops:v3.13.2-alpine',
  /**
   * rclone, the S3 client of Forgejo's backups and restore. rclone/rclone tag v1.75.0 (commit 9ee9d0a0, 2026-07-31):
   * `Dockerfile` builds on `alpine:latest` (BusyBox `sh` and `tar` with gzip; entrypoint `rclone`; user `rclone`
   * is uid 1009, but the image runs as root unless told), and `.github/workflows/build_publish_docker_image.yml`
   * tags it `{{version}}`, i.e. `1.75.0`, on Docker Hub `rclone/rclone` and on ghcr.io.
   */
  rclone: 'docker.io/rclone/rclone:1.75.0',
  /** PostgreSQL operand of CNPG 1.30.0 (its default). */
  postgres: 'ghcr.io/cloudnative-pg/postgresql:18.4-system-trixie',
} as const;

/** Minimum kubectl on the operator's machine: `--server-side` apply and `wait --for=jsonpath` (1.23+), skew ±1 of 1.30. */
export const MIN_KUBECTL_VERSION = '1.29';

/**
 * Helm charts the bootstrap runbook installs in Phase 0 (`helm upgrade --install`), from
 * `../shared/reference/versions.md` §1. An Argo CD Application that adopts one of these releases reads the same
 * pin (`lib/config/default-catalog.ts`), so the two cannot drift apart.
 */
export const PHASE0_CHARTS = {
  /** Cilium, the CNI: nothing with a pod network runs before it. */
  cilium: { repoURL: 'https://helm.cilium.io', chart: 'cilium', version: '1.20.0' },
  /** Longhorn, the storage: its StorageClass provisions the volumes of forgejo-db and Forgejo. */
  longhorn: { repoURL: 'https://charts.longhorn.io', chart: 'longhorn', version: '1.12.1' },
} as const;

/**
 * Minimum helm on the operator's machine, which runs `helm upgrade --install RELEASE CHART --repo URL --version V
 * --kube-context C` (no `helm repo add`). A floor, not a tested boundary: Helm 3 releases before 3.8 are long out of
 * support; Helm 4 keeps these flags.
 */
export const MIN_HELM_VERSION = '3.8';
