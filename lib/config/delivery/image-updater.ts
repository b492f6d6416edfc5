/**
 * `delivery.imageUpdater` (the Argo CD Image Updater install and its git write-back) and the per-application
 * `imageUpdates`. Owned by the Image Updater slice.
 *
 * Facts from argoproj-labs/argocd-image-updater at the pinned tag (v1.3.0, commit 098b544f), cited where used:
 * the strategies, the `allowTags` syntax, the write-back methods and which credentials can open a pull request.
 */
import { z } from 'zod';
import { checkedString, goDuration, secretName } from '../fields';
import { show } from '../messages';
import { goDurationSeconds, isGoDuration } from '../../shared/duration';
import { IMAGE_UPDATER_VERSION } from '../../shared/pins';

/**
 * How a new image reaches git. `commit`: the updater pushes a commit to the branch Argo CD reads. `pull-request`: it
 * pushes a branch `image-updater-<target>-<sha256>` and opens a GitHub pull request into that branch (v1.3.0
 * `pkg/argocd/pr_service.go` `PRBranchTemplate`, `pkg/argocd/pr_github.go`), which a person merges.
 */
export const WRITE_BACK_MODES = ['commit', 'pull-request'] as const;
export type WriteBackMode = (typeof WRITE_BACK_MODES)[number];

/**
 * The update strategies this homelab offers (v1.3.0 `registry-scanner/pkg/image/options.go` `ParseUpdateStrategy`
 * also knows `newest-build` and `alphabetical`; neither fits an image CI tags by commit and by release):
 * `digest` follows one mutable tag (`main`) by its digest; `semver` picks the highest release tag within a constraint.
 */
export const UPDATE_STRATEGIES = ['digest', 'semver'] as const;
export type UpdateStrategy = (typeof UPDATE_STRATEGIES)[number];

/**
 * Why `v` is not an `allowTags` value the updater understands; undefined when it is one. v1.3.0
 * `registry-scanner/pkg/image/options.go:37-70` (`ParseMatch`) accepts only `any` or `regexp:<re>`; anything else
 * (a bare regular expression, as the CRD's description suggests) logs "Invalid match option syntax" and matches NO tag,
 * so the image would silently never update. The expression is Go RE2: lookarounds and back-references do not compile.
 */
export function allowTagsProblem(v: string): string | undefined {
  if (v === 'any') return undefined;
  if (!v.startsWith('regexp:')) {
    return `${show(v)} is not an allowTags value Argo CD Image Updater understands: it accepts only 'any' or 'regexp:<expression>' ` +
      `(v1.3.0 ParseMatch); anything else matches no tag at all, so the image would never update. Write 'regexp:${v}' or 'any'.`;
  }
  const expression = v.slice('regexp:'.length);
  if (expression === '') return `${show(v)} has an empty expression; write 'any' to allow every tag, or 'regexp:<expression>'.`;
  if (/\(\?<?[=!]|\\[1-9]/.test(expression)) {
    return `${show(v)} uses a lookaround or a back-reference, which Go's RE2 (the updater's regexp package) cannot compile; ` +
      'rewrite the expression without them.';
  }
  try {
    new RegExp(expression);
  } catch {
    return `${show(v)} is not a valid regular expression; fix the part after 'regexp:'.`;
  }
  return undefined;
}

/** A GitHub repository URL the updater can push to: HTTPS (token or GitHub App) or SSH (deploy key). */
export const GITHUB_HTTPS_REPO = /^https:\/\/github\.com\/([A-Za-z0-9_.-]+)\/([A-Za-z0-9_.-]+?)(\.git)?$/;
export const GITHUB_SSH_REPO = /^(?:git@github\.com:|ssh:\/\/git@github\.com\/)([A-Za-z0-9_.-]+)\/([A-Za-z0-9_.-]+?)(\.git)?$/;

/** The shortest check interval the updater runs at without warning (v1.3.0 `cmd/run.go:126-127`: "not recommended to run below 1m0s"). */
export const MIN_CHECK_INTERVAL_SECONDS = 60;

export const ImageUpdaterSchema = z.strictObject({
  /**
   * Release of Argo CD Image Updater, installed from its `config/install.yaml` at this tag. The Helm chart is not used:
   * argo-helm's newest chart (argocd-image-updater-1.2.4) ships app v1.2.2, older than the pinned `ImageUpdater` CRD.
   * @default 'v1.3.0' (lib/shared/pins.ts IMAGE_UPDATER_VERSION)
   */
  version: checkedString((v) => (/^v\d+\.\d+\.\d+$/.test(v) ? undefined
    : `${show(v)} is not a pinned release of Argo CD Image Updater; write its tag, e.g. '${IMAGE_UPDATER_VERSION}' (a branch, 'stable' or a range would let the install change under the same commit).`))
    .default(IMAGE_UPDATER_VERSION),
  /**
   * The repository the updater writes to: the GitHub seed, since Forgejo's copy is a pull-mirror that refuses pushes
   * and Argo CD sees the commit through that mirror after the cutover. HTTPS (a fine-grained token, which can also open
   * pull requests) or SSH (a deploy key with write access: commits only).
   * @default - the HTTPS form of `git.githubSeedUrl`, e.g. `https://github.com/acme/homelab.git`
   */
  gitRepository: z.string().min(1).optional(),
  /**
   * Secret in Argo CD's namespace holding the write credential for `gitRepository` only, never Argo CD's read-only
   * deploy key: `username` and `password` (a fine-grained token with Contents: write, and Pull requests: write for
   * pull requests) for HTTPS, `sshPrivateKey` for SSH. Delivered by SOPS; referenced, never written by this program.
   * @default 'image-updater-github'
   */
  writeCredentialSecret: secretName.default('image-updater-github'),
  /**
   * Secret in Argo CD's namespace with read access to the registry (`kubernetes.io/dockerconfigjson`, key
   * `.dockerconfigjson`), used for `delivery.registry.pullHost` in `registries.conf`.
   * @default 'forgejo-registry-read'
   */
  registryPullSecret: secretName.default('forgejo-registry-read'),
  /**
   * How often the updater looks at the registry (`interval` of ConfigMap `argocd-image-updater-config`), a Go duration of at least 1m.
   * @default '2m0s' (the upstream default, v1.3.0 `cmd/run.go:310`)
   */
  checkInterval: goDuration.superRefine((v, ctx) => {
    if (isGoDuration(v) && goDurationSeconds(v) < MIN_CHECK_INTERVAL_SECONDS) {
      ctx.addIssue({ code: 'custom', input: v, message: `${show(v)} is below 1m0s: the updater warns that it "is not recommended to run below 1m0s" ` +
        '(v1.3.0 cmd/run.go) and every check lists the registry\'s tags. Write \'1m\' or more.' });
    }
  }).default('2m0s'),
  /** Author name of the write-back commits (`git.user`). @default 'argocd-image-updater' (upstream's) */
  gitUser: z.string().min(1).default('argocd-image-updater'),
  /** Author e-mail of the write-back commits (`git.email`). @default 'noreply@argoproj.io' (upstream's) */
  gitEmail: checkedString((v) => (/^[^\s@]+@[^\s@]+$/.test(v) ? undefined : `${show(v)} is not an e-mail address.`))
    .default('noreply@argoproj.io'),
  /**
   * How an app's new image reaches git unless its `imageUpdates.writeBack` says otherwise. `commit` to the branch Argo
   * CD reads: for the app tier, the gate is not a review but what follows the sync (Kyverno's signature check, the
   * canary's analysis, the E2E journeys), and a pull request per build would stall delivery behind a person. Use
   * `pull-request` where a person should see each change first (semver releases, a protected branch).
   * @default 'commit'
   */
  writeBack: z.enum(WRITE_BACK_MODES, {
    error: (issue) => `${show(issue.input)} is not a write-back mode; use ${WRITE_BACK_MODES.map((m) => `'${m}'`).join(' or ')}.`,
  }).default('commit'),
}).readonly();

/** How one application's image is updated; absent: the image is never updated by the updater. */
export const AppImageUpdatesSchema = z.strictObject({
  /**
   * `digest`: follow the digest of one tag (`tag`, e.g. `main`, which CI re-pushes on every build). `semver`: take the
   * highest release tag within `constraint` (tags that are not semantic versions are ignored).
   * @default 'digest'
   */
  strategy: z.enum(UPDATE_STRATEGIES, {
    error: (issue) => `${show(issue.input)} is not an update strategy; use ${UPDATE_STRATEGIES.map((s) => `'${s}'`).join(' or ')}.`,
  }).default('digest'),
  /** The tag whose digest is followed; only with `strategy: 'digest'`. @default - none: required for `digest` */
  tag: checkedString((v) => (/^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$/.test(v) ? undefined
    : `${show(v)} is not a container image tag: use letters, digits, '_', '.' and '-', at most 128 characters, not starting with '.' or '-'.`))
    .optional(),
  /**
   * A semantic-version constraint (Masterminds semver), e.g. `1.x`, `~1.4`, `>=1.2 <2`; only with `strategy: 'semver'`.
   * @default - none: required for `semver`
   */
  constraint: z.string().min(1).optional(),
  /** Tags the updater may consider: `any` or `regexp:<RE2 expression>`. @default - every tag */
  allowTags: checkedString(allowTagsProblem).optional(),
  /** Tags never considered, as globs (e.g. `*-rc*`). @default [] */
  ignoreTags: z.array(z.string().min(1)).readonly().default([]),
  /** `commit` or `pull-request`. @default - `delivery.imageUpdater.writeBack` */
  writeBack: z.enum(WRITE_BACK_MODES, {
    error: (issue) => `${show(issue.input)} is not a write-back mode; use ${WRITE_BACK_MODES.map((m) => `'${m}'`).join(' or ')}.`,
  }).optional(),
}).readonly();
