/**
 * The cross-field rules of `delivery.imageUpdater` and the apps' `imageUpdates`: where the updater writes (the GitHub
 * seed, never Forgejo's pull-mirror; outside the generated tree), what each strategy needs, and what a pull request
 * needs. Facts from argoproj-labs/argocd-image-updater v1.3.0, cited at each rule.
 */
import type { ProblemCollector } from '../../shared/errors';
import type { ResolvedHomelabConfig } from '../resolved';
import { show } from '../messages';
import { allowTagsProblem, GITHUB_HTTPS_REPO, GITHUB_SSH_REPO, WriteBackMode } from './image-updater';
import type { ResolvedDeliveryAppConfig, ResolvedDeliveryConfig } from './types';

/** Where an app's own directory is when `overlayPath` is not set: the updater writes its override file there. */
export function appOverlayPath(name: string, app: Pick<ResolvedDeliveryAppConfig, 'overlayPath'>): string {
  return app.overlayPath ?? `k8s/apps/${name}`;
}

/** The repository the updater writes to: `gitRepository`, or the HTTPS form of the GitHub seed. */
export function imageUpdaterGitRepository(config: Pick<ResolvedHomelabConfig, 'git'>, delivery: ResolvedDeliveryConfig): string {
  if (delivery.imageUpdater.gitRepository !== undefined) return delivery.imageUpdater.gitRepository;
  const seed = /^(?:git@github\.com:|ssh:\/\/git@github\.com\/)([^/\s]+)\/([^/\s]+?)(\.git)?$/.exec(config.git.githubSeedUrl);
  return seed ? `https://github.com/${seed[1]}/${seed[2]}.git` : config.git.githubSeedUrl;
}

/** Whether the updater talks to `repository` over SSH (a deploy key) rather than HTTPS (a token or a GitHub App). */
export function isSshRepository(repository: string): boolean {
  return GITHUB_SSH_REPO.test(repository);
}

/** An app's write-back mode: its own, or the updater's default. */
export function effectiveWriteBack(delivery: ResolvedDeliveryConfig, app: ResolvedDeliveryAppConfig): WriteBackMode {
  return app.imageUpdates?.writeBack ?? delivery.imageUpdater.writeBack;
}

/** `owner/repo` of a GitHub URL in any of its forms, lower-cased (GitHub names are case-insensitive); undefined otherwise. */
function githubRepoName(url: string): string | undefined {
  const m = GITHUB_HTTPS_REPO.exec(url) ?? GITHUB_SSH_REPO.exec(url);
  return m ? `${m[1]}/${m[2]}`.toLowerCase() : undefined;
}

/** The host of a URL in the URL or scp form (`git@host:path`), lower-cased. */
function hostOf(url: string): string | undefined {
  const m = /^[a-z+]+:\/\/(?:[^@/]*@)?([^/:]+)/i.exec(url) ?? /^[^@/\s]+@([^:/\s]+):/.exec(url);
  return m?.[1].toLowerCase();
}

/** Whether `host` is Forgejo: an in-cluster Service name, its ingress host, or the external name CI pushes images to. */
function isForgejoHost(host: string, config: ResolvedHomelabConfig, delivery: ResolvedDeliveryConfig): boolean {
  const names = [delivery.registry.pushHost.replace(/:\d+$/, '')];
  if (config.forgejo.expose.type === 'Ingress') names.push(config.forgejo.expose.host);
  return names.some((n) => n.toLowerCase() === host) || /\.svc(\.cluster\.local)?$/.test(host);
}

/** A shell glob as the updater matches `ignoreTags` (Go `filepath.Match`): `*`, `?` and `[...]`. */
function globMatches(glob: string, value: string): boolean {
  const re = glob.replace(/[.+^${}()|\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.');
  try {
    return new RegExp(`^${re}$`).test(value);
  } catch {
    return false;
  }
}

/** A rule of lib/config/rules.ts's table (its `ConfigRule` shape; that file imports this one, so not the other way round). */
export const imageUpdaterRules: { readonly name: string; readonly check: (config: ResolvedHomelabConfig, problems: ProblemCollector) => void } = {
  name: 'Argo CD Image Updater writes to the GitHub seed, outside the generated tree, with what each strategy and write-back mode needs',
  check: (config, problems) => {
    const delivery = config.delivery;
    if (!delivery) return;
    const path = 'delivery.imageUpdater.gitRepository';
    const repository = imageUpdaterGitRepository(config, delivery);
    const host = hostOf(repository);
    const seed = githubRepoName(config.git.githubSeedUrl);
    if (delivery.imageUpdater.gitRepository !== undefined) {
      const name = githubRepoName(repository);
      if (host !== undefined && host !== 'github.com' && isForgejoHost(host, config, delivery)) {
        problems.add(path, `${show(repository)} is Forgejo's copy of the homelab repository, a pull-mirror of the GitHub seed: Forgejo ` +
          'refuses pushes to a mirror, and the next mirror sync would overwrite them anyway. Write to the GitHub seed ' +
          `(remove gitRepository to use 'https://github.com/${seed ?? '<owner>/<repo>'}.git'); Argo CD sees the commit through the mirror.`);
      } else if (name === undefined) {
        problems.add(path, `${show(repository)} is not a GitHub repository URL; write 'https://github.com/<owner>/<repo>.git' (a token) ` +
          'or \'git@github.com:<owner>/<repo>.git\' (a deploy key with write access), or remove gitRepository to use the seed\'s HTTPS form.');
      } else if (seed !== undefined && name !== seed) {
        problems.add(path, `${show(repository)} is not the homelab repository: Argo CD reads '${config.git.githubSeedUrl}' (through ` +
          'Forgejo\'s pull-mirror after the cutover), so a commit elsewhere would never reach the cluster. Point it at ' +
          `'https://github.com/${seed}.git', or remove gitRepository.`);
      }
    }

    const distPath = config.git.distPath;
    for (const name of Object.keys(delivery.apps).sort()) {
      const app = delivery.apps[name];
      const updates = app.imageUpdates;
      if (!updates) continue;
      const at = `delivery.apps.${name}.imageUpdates`;
      if (updates.strategy === 'digest') {
        problems.when(updates.tag === undefined, `${at}.tag`, () => 'is required with strategy \'digest\': name the tag whose digest ' +
          'the updater follows, e.g. \'main\' (the tag CI re-pushes on every build of the default branch).');
        problems.when(updates.constraint !== undefined, `${at}.constraint`, () => `${show(updates.constraint)} is a semver constraint, ` +
          'but strategy \'digest\' follows one tag and ignores it. Remove constraint, or set strategy: \'semver\'.');
      } else {
        problems.when(updates.constraint === undefined, `${at}.constraint`, () => 'is required with strategy \'semver\': give the ' +
          'range of release tags to take, e.g. \'1.x\' (any 1.y.z) or \'~1.4\' (1.4.z).');
        problems.when(updates.tag !== undefined, `${at}.tag`, () => `${show(updates.tag)} is only for strategy 'digest'; with 'semver' ` +
          'the updater picks the tag itself within constraint. Remove tag, or set strategy: \'digest\'.');
        problems.when(updates.constraint !== undefined && !/^[0-9xX*~^<>=!|,. -]*[0-9xX*][0-9A-Za-z*~^<>=!|,. -]*$/.test(updates.constraint),
          `${at}.constraint`, () => `${show(updates.constraint)} is not a semantic-version constraint; write it like '1.x', '~1.4' or '>=1.2 <2'.`);
      }
      // For `digest`, the tag list goes through allowTags and ignoreTags before the watched tag is picked (v1.3.0
      // pkg/argocd/update.go:105-107, registry-scanner/pkg/image/version.go:149-153): excluding it means no update, ever.
      if (updates.strategy === 'digest' && updates.tag !== undefined) {
        const tag = updates.tag;
        const allow = updates.allowTags;
        const excluded = allow !== undefined && allow.startsWith('regexp:') && allowTagsProblem(allow) === undefined &&
          !new RegExp(allow.slice('regexp:'.length)).test(tag);
        problems.when(excluded, `${at}.allowTags`, () => `${show(allow)} does not match the followed tag '${tag}', so the updater would ` +
          'never consider it. Widen the expression, or remove allowTags.');
        const ignoring = updates.ignoreTags.find((g) => globMatches(g, tag));
        problems.when(ignoring !== undefined, `${at}.ignoreTags`, () => `'${ignoring}' matches the followed tag '${tag}', so the updater ` +
          'would never consider it. Remove that entry.');
      }
      // Pull requests need a token: v1.3.0 pkg/argocd/pr_service.go commitChangesPR refuses credentials that are not an
      // SCMTokenProvider ("use HTTPS or GitHub App credentials"); only HTTPSCreds and GitHubAppCreds are (ext/git/creds.go).
      const mode = effectiveWriteBack(delivery, app);
      problems.when(mode === 'pull-request' && isSshRepository(repository),
        app.imageUpdates?.writeBack !== undefined ? `${at}.writeBack` : 'delivery.imageUpdater.writeBack',
        () => `'pull-request' needs a token to open the pull request, but the updater writes to ${show(repository)} over SSH, and ` +
          'Argo CD Image Updater v1.3.0 refuses SSH credentials for pull requests ("use HTTPS or GitHub App credentials"). Set ' +
          `delivery.imageUpdater.gitRepository to 'https://github.com/${githubRepoName(repository)}.git' with a token in ` +
          `'${delivery.imageUpdater.writeCredentialSecret}', or use writeBack: 'commit'.`);
      // The override file lands in the app's directory (the Application's source path): inside the generated tree, the
      // drift check (`npm run check`) would fail on it and the next synth would delete it, rolling the image back.
      const overlay = appOverlayPath(name, app);
      problems.when(overlay === distPath || overlay.startsWith(`${distPath}/`),
        `delivery.apps.${name}.overlayPath`, () => `'${overlay}' is inside the generated tree '${distPath}' (git.distPath), but the ` +
          `updater writes .argocd-source-${name}.yaml there: the next synth would delete it (rolling the image back) and npm run check ` +
          `would fail on it. Use a directory outside '${distPath}', e.g. 'k8s/apps/${name}'.`);
    }
  },
};
