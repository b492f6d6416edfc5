/**
 * `delivery.build`: the Forgejo Actions runner with rootless BuildKit and the generated build workflow (ADR 0001
 * Part B: "Build: DinD (privileged, cp-1) → rootless BuildKit + registry cache"). Owned by the build slice.
 */
import { z } from 'zod';
import { checkedString, integer, namespaceName, quantity, secretName } from '../fields';
import { show } from '../messages';

/**
 * A fully qualified image with a version tag: `<registry>/<repository>:<tag>`, optionally `@sha256:<digest>`. No
 * `latest`, no implicit Docker Hub: what a node pulls is exactly what the config says.
 */
const PINNED_IMAGE = /^([a-z0-9][a-z0-9.-]*\.[a-z0-9.-]+(?::[0-9]+)?)\/([a-z0-9][a-z0-9._/-]*):([A-Za-z0-9_][A-Za-z0-9._-]{0,127})(@sha256:[0-9a-f]{64})?$/;

/** Why `v` is not a pinned image reference; undefined when it is one. */
export function pinnedImageProblem(v: string): string | undefined {
  const m = PINNED_IMAGE.exec(v);
  if (!m) {
    return `${show(v)} is not a pinned image: write '<registry>/<repository>:<tag>' with the registry host and a version tag, ` +
      'e.g. \'docker.io/moby/buildkit:v0.32.2-rootless\'.';
  }
  if (m[3] === 'latest') return `${show(v)} uses the tag 'latest', which moves under the config; pin a version tag.`;
  return undefined;
}

/** A pinned image (see `pinnedImageProblem`). */
const pinnedImage = checkedString(pinnedImageProblem);

/**
 * BuildKit's rootless image: the `-rootless` tags run buildkitd as uid 1000 under RootlessKit
 * (moby/buildkit v0.32.2 Dockerfile, stage `rootless`: `USER 1000:1000`, `ENTRYPOINT ["rootlesskit", "buildkitd"]`).
 */
const rootlessBuildkitImage = checkedString((v) => pinnedImageProblem(v) ?? (/:[^:@/]*-rootless(@sha256:[0-9a-f]{64})?$/.test(v) ? undefined
  : `${show(v)} is not a rootless BuildKit image: its tag must end in '-rootless' (e.g. 'docker.io/moby/buildkit:v0.32.2-rootless'); ` +
    'the other tags run buildkitd as root and need a privileged container.'));

/**
 * A Forgejo Actions secret name as a workflow reads it (`secrets.NAME`): upper-case letters, digits and `_`, not
 * starting with a digit, and not one of the prefixes the platforms reserve.
 */
export const actionsSecretName = checkedString((v) => {
  if (!/^[A-Z_][A-Z0-9_]*$/.test(v)) return `${show(v)} is not a Forgejo Actions secret name: use upper-case letters, digits and '_', not starting with a digit, e.g. 'COSIGN_PRIVATE_KEY'.`;
  const reserved = ['GITHUB_', 'GITEA_', 'FORGEJO_'].find((p) => v.startsWith(p));
  return reserved === undefined ? undefined : `${show(v)} starts with '${reserved}', which Forgejo reserves for its own variables; choose another name.`;
});

/** A runner label as jobs name it in `runs-on` (the part before `:host`). */
const runnerLabel = checkedString((v) => (/^[a-z0-9][a-z0-9._-]{0,62}$/.test(v) ? undefined
  : `${show(v)} is not a runner label: use lower-case letters, digits, '.', '_' and '-', e.g. 'buildkit'.`));

/** An image tag (the OCI distribution spec's rule). */
const imageTag = checkedString((v) => (/^[A-Za-z0-9_][A-Za-z0-9._-]{0,127}$/.test(v) ? undefined
  : `${show(v)} is not an image tag: use letters, digits, '_', '.' and '-' (at most 128), e.g. 'buildcache'.`));

export const BuildSchema = z.strictObject({
  /** Namespace of the runner and its BuildKit daemon. @default 'forgejo-runner' */
  namespace: namespaceName.default('forgejo-runner'),
  /**
   * The Forgejo runner image (Alpine with `bash` and `git`, uid 1000; forgejo/runner `Dockerfile`).
   * @default 'code.forgejo.org/forgejo/runner:12.10.2'
   */
  runnerImage: pinnedImage.default('code.forgejo.org/forgejo/runner:12.10.2'),
  /** The rootless BuildKit image; also where the runner's `buildctl` is copied from. @default 'docker.io/moby/buildkit:v0.32.2-rootless' */
  buildkitImage: rootlessBuildkitImage.default('docker.io/moby/buildkit:v0.32.2-rootless'),
  /**
   * The cosign image the runner's `cosign` is copied from: the `-dev` variant, whose distroless `debug` base has the
   * busybox shell the copy needs (sigstore/cosign v3.1.2 Makefile, `ko-cosign-dev`).
   * @default 'ghcr.io/sigstore/cosign/cosign:v3.1.2-dev'
   */
  cosignImage: pinnedImage.default('ghcr.io/sigstore/cosign/cosign:v3.1.2-dev'),
  /** The label jobs use in `runs-on` to run on this runner (registered as `<label>:host`). @default 'buildkit' */
  runnerLabel: runnerLabel.default('buildkit'),
  /** Runner pods, each with its own BuildKit daemon; every one registers with Forgejo. @default 1 */
  replicas: integer(1).default(1),
  /** Tag of the registry cache next to each image (`<image>:<cacheTag>`, `--export-cache type=registry`). @default 'buildcache' */
  cacheTag: imageTag.default('buildcache'),
  /** CPU request of the runner container. @default '100m' */
  runnerCpuRequest: quantity({ example: '100m' }).default('100m'),
  /** Memory request and limit of the runner container. @default '256Mi' */
  runnerMemory: quantity({ example: '256Mi', bytes: true }).default('256Mi'),
  /** CPU request of the BuildKit daemon (no limit: a build may use idle cores). @default '500m' */
  buildkitCpuRequest: quantity({ example: '500m' }).default('500m'),
  /** Memory request of the BuildKit daemon. @default '1Gi' */
  buildkitMemoryRequest: quantity({ example: '1Gi', bytes: true }).default('1Gi'),
  /** Memory limit of the BuildKit daemon. @default '4Gi' */
  buildkitMemoryLimit: quantity({ example: '4Gi', bytes: true }).default('4Gi'),
  /**
   * Secret in `namespace` with key `token`: the runner registration token from Forgejo (site, organisation or
   * repository settings → Actions → Runners). Never in the config; deliver it with SOPS.
   * @default 'forgejo-runner-registration'
   */
  registrationTokenSecret: secretName.default('forgejo-runner-registration'),
  /** Forgejo Actions secret holding the cosign private key (PEM) the workflow signs with. @default 'COSIGN_PRIVATE_KEY' */
  cosignKeySecret: actionsSecretName.default('COSIGN_PRIVATE_KEY'),
  /** Forgejo Actions secret holding the cosign private key's password. @default 'COSIGN_PASSWORD' */
  cosignPasswordSecret: actionsSecretName.default('COSIGN_PASSWORD'),
  /** Forgejo Actions secret holding the user the workflow pushes images as. @default 'REGISTRY_USERNAME' */
  registryUsernameSecret: actionsSecretName.default('REGISTRY_USERNAME'),
  /** Forgejo Actions secret holding that user's access token (scope `write:package`). @default 'REGISTRY_TOKEN' */
  registryTokenSecret: actionsSecretName.default('REGISTRY_TOKEN'),
}).readonly();
