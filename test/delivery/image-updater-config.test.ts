import { REFERENCE_HOMELAB } from '../../lib/config/defaults';
import type { DeliveryAppConfig, DeliveryConfig } from '../../lib/config/delivery/types';
import { HomelabConfig } from '../../lib/config/homelab-config';
import { parseHomelabConfig } from '../../lib/config/parse';
import { validateConfig } from '../../lib/config/validate-config';

const DELIVERY = REFERENCE_HOMELAB.delivery!;
const APP: DeliveryAppConfig = { image: 'homelab-owner/web', tag: '1.0.0' };

/** The reference homelab with `delivery.imageUpdater` replaced and one extra app `web`. */
function withUpdater(imageUpdater: Record<string, unknown>, web?: Record<string, unknown>): HomelabConfig {
  const delivery: DeliveryConfig = {
    ...DELIVERY,
    imageUpdater: imageUpdater as DeliveryConfig['imageUpdater'],
    apps: { ...DELIVERY.apps, ...(web ? { web: { ...APP, ...web } as DeliveryAppConfig } : {}) },
  };
  return { ...REFERENCE_HOMELAB, delivery };
}

/** The reference homelab with one extra app `web` whose `imageUpdates` are `updates`. */
function withApp(updates: Record<string, unknown>, extra: Record<string, unknown> = {}): HomelabConfig {
  return withUpdater({}, { imageUpdates: updates, ...extra });
}

function problems(config: HomelabConfig): string[] {
  return validateConfig(config).all.map((p) => `${p.path}: ${p.message}`);
}

describe('delivery.imageUpdater', () => {
  test('defaults: the pinned release, the seed over HTTPS, its own credentials, a 2m interval, upstream\'s author, commit', () => {
    const u = parseHomelabConfig(withUpdater({})).delivery!.imageUpdater;
    expect(u).toEqual({
      version: 'v1.3.0', writeCredentialSecret: 'image-updater-github', registryPullSecret: 'forgejo-registry-read',
      checkInterval: '2m0s', gitUser: 'argocd-image-updater', gitEmail: 'noreply@argoproj.io', writeBack: 'commit',
    });
    expect(problems(REFERENCE_HOMELAB)).toEqual([]);
  });

  test('fails for a version that is not a release tag', () => {
    expect(problems(withUpdater({ version: 'stable' }))).toEqual([
      'delivery.imageUpdater.version: \'stable\' is not a pinned release of Argo CD Image Updater; write its tag, e.g. \'v1.3.0\' ' +
      '(a branch, \'stable\' or a range would let the install change under the same commit).',
    ]);
  });

  test('fails for a check interval below a minute, and for one that is not a Go duration', () => {
    expect(problems(withUpdater({ checkInterval: '30s' }))).toEqual([
      'delivery.imageUpdater.checkInterval: \'30s\' is below 1m0s: the updater warns that it "is not recommended to run below 1m0s" ' +
      '(v1.3.0 cmd/run.go) and every check lists the registry\'s tags. Write \'1m\' or more.',
    ]);
    expect(problems(withUpdater({ checkInterval: 'hourly' }))).toEqual([
      'delivery.imageUpdater.checkInterval: \'hourly\' is not a positive Go duration; write it like \'10m0s\' or \'8h\'.',
    ]);
    expect(problems(withUpdater({ checkInterval: '5m' }))).toEqual([]);
  });

  test('fails for a git author e-mail that is not an address, and an unknown write-back mode', () => {
    expect(problems(withUpdater({ gitEmail: 'bot' }))).toEqual(['delivery.imageUpdater.gitEmail: \'bot\' is not an e-mail address.']);
    expect(problems(withUpdater({ writeBack: 'push' }))).toEqual([
      'delivery.imageUpdater.writeBack: \'push\' is not a write-back mode; use \'commit\' or \'pull-request\'.',
    ]);
  });

  test('fails for credential Secret names that are not Kubernetes names', () => {
    expect(problems(withUpdater({ writeCredentialSecret: 'Image_Updater', registryPullSecret: 'a b' }))).toEqual([
      'delivery.imageUpdater.registryPullSecret: \'a b\' is not a valid Secret name: must consist of lower case letters, digits, ' +
      '\'-\' and \'.\', and start and end with a letter or digit.',
      'delivery.imageUpdater.writeCredentialSecret: \'Image_Updater\' is not a valid Secret name: must consist of lower case letters, ' +
      'digits, \'-\' and \'.\', and start and end with a letter or digit.',
    ]);
  });

  test('fails for a repository on Forgejo (a pull-mirror refuses pushes), naming the seed to use', () => {
    const mirror = 'Forgejo\'s copy of the homelab repository, a pull-mirror of the GitHub seed: Forgejo refuses pushes to a mirror, and ' +
      'the next mirror sync would overwrite them anyway. Write to the GitHub seed (remove gitRepository to use ' +
      '\'https://github.com/homelab-owner/homelab.git\'); Argo CD sees the commit through the mirror.';
    expect(problems(withUpdater({ gitRepository: 'http://forgejo-http.cicd.svc.cluster.local:3000/homelab-owner/homelab.git' }))).toEqual([
      `delivery.imageUpdater.gitRepository: 'http://forgejo-http.cicd.svc.cluster.local:3000/homelab-owner/homelab.git' is ${mirror}`,
    ]);
    expect(problems(withUpdater({ gitRepository: 'git@forgejo.homelab.example:homelab-owner/homelab.git' }))).toEqual([
      `delivery.imageUpdater.gitRepository: 'git@forgejo.homelab.example:homelab-owner/homelab.git' is ${mirror}`,
    ]);
  });

  test('fails for a repository that is not on GitHub, or not the seed', () => {
    expect(problems(withUpdater({ gitRepository: 'https://gitlab.com/homelab-owner/homelab.git' }))).toEqual([
      'delivery.imageUpdater.gitRepository: \'https://gitlab.com/homelab-owner/homelab.git\' is not a GitHub repository URL; write ' +
      '\'https://github.com/<owner>/<repo>.git\' (a token) or \'git@github.com:<owner>/<repo>.git\' (a deploy key with write access), ' +
      'or remove gitRepository to use the seed\'s HTTPS form.',
    ]);
    expect(problems(withUpdater({ gitRepository: 'https://github.com/homelab-owner/other.git' }))).toEqual([
      'delivery.imageUpdater.gitRepository: \'https://github.com/homelab-owner/other.git\' is not the homelab repository: Argo CD reads ' +
      '\'git@github.com:homelab-owner/homelab.git\' (through Forgejo\'s pull-mirror after the cutover), so a commit elsewhere would never ' +
      'reach the cluster. Point it at \'https://github.com/homelab-owner/homelab.git\', or remove gitRepository.',
    ]);
    // GitHub's names are case-insensitive, and the seed in its SSH form is the same repository (status asks for pull requests).
    expect(problems(withUpdater({ gitRepository: 'https://github.com/Homelab-Owner/homelab' }))).toEqual([]);
    expect(problems(withUpdater({ gitRepository: 'git@github.com:homelab-owner/homelab.git', writeBack: 'commit' }, { imageUpdates: { tag: 'main' } }))
      .filter((p) => p.startsWith('delivery.imageUpdater.'))).toEqual([]);
  });

  test('fails for pull requests over SSH, at the option that asked for them', () => {
    const ssh = { gitRepository: 'git@github.com:homelab-owner/homelab.git' };
    const message = '\'pull-request\' needs a token to open the pull request, but the updater writes to ' +
      '\'git@github.com:homelab-owner/homelab.git\' over SSH, and Argo CD Image Updater v1.3.0 refuses SSH credentials for pull requests ' +
      '("use HTTPS or GitHub App credentials"). Set delivery.imageUpdater.gitRepository to ' +
      '\'https://github.com/homelab-owner/homelab.git\' with a token in \'image-updater-github\', or use writeBack: \'commit\'.';
    // The reference's `status` asks for pull requests itself.
    expect(problems(withUpdater(ssh))).toEqual([`delivery.apps.status.imageUpdates.writeBack: ${message}`]);
    // An app without its own mode inherits the default.
    expect(problems(withUpdater({ ...ssh, writeBack: 'pull-request' }, { imageUpdates: { tag: 'main' } }))).toEqual([
      `delivery.imageUpdater.writeBack: ${message}`,
      `delivery.apps.status.imageUpdates.writeBack: ${message}`,
    ]);
  });
});

describe('delivery.apps.<name>.imageUpdates', () => {
  test('defaults: digest, every tag, nothing ignored, the updater\'s write-back mode', () => {
    const web = parseHomelabConfig(withApp({ tag: 'main' })).delivery!.apps.web.imageUpdates;
    expect(web).toEqual({ strategy: 'digest', tag: 'main', ignoreTags: [] });
    expect(problems(withApp({ tag: 'main' }))).toEqual([]);
  });

  test('the reference homelab: hello follows main by digest; status takes 1.x releases by pull request', () => {
    const apps = parseHomelabConfig(REFERENCE_HOMELAB).delivery!.apps;
    expect(apps.hello.imageUpdates).toEqual({ strategy: 'digest', tag: 'main', ignoreTags: [] });
    expect(apps.status.imageUpdates).toEqual({
      strategy: 'semver', constraint: '1.x', allowTags: 'regexp:^1\\.[0-9]+\\.[0-9]+$', ignoreTags: [], writeBack: 'pull-request',
    });
  });

  test('fails for an unknown strategy and write-back mode', () => {
    expect(problems(withApp({ strategy: 'latest', writeBack: 'merge' }))).toEqual([
      'delivery.apps.web.imageUpdates.strategy: \'latest\' is not an update strategy; use \'digest\' or \'semver\'.',
      'delivery.apps.web.imageUpdates.writeBack: \'merge\' is not a write-back mode; use \'commit\' or \'pull-request\'.',
    ]);
  });

  test('digest needs a tag and takes no constraint', () => {
    expect(problems(withApp({ strategy: 'digest' }))).toEqual([
      'delivery.apps.web.imageUpdates.tag: is required with strategy \'digest\': name the tag whose digest the updater follows, e.g. ' +
      '\'main\' (the tag CI re-pushes on every build of the default branch).',
    ]);
    expect(problems(withApp({ tag: 'main', constraint: '1.x' }))).toEqual([
      'delivery.apps.web.imageUpdates.constraint: \'1.x\' is a semver constraint, but strategy \'digest\' follows one tag and ignores it. ' +
      'Remove constraint, or set strategy: \'semver\'.',
    ]);
  });

  test('semver needs a constraint, takes no tag, and the constraint must be one', () => {
    expect(problems(withApp({ strategy: 'semver' }))).toEqual([
      'delivery.apps.web.imageUpdates.constraint: is required with strategy \'semver\': give the range of release tags to take, e.g. ' +
      '\'1.x\' (any 1.y.z) or \'~1.4\' (1.4.z).',
    ]);
    expect(problems(withApp({ strategy: 'semver', constraint: '1.x', tag: 'main' }))).toEqual([
      'delivery.apps.web.imageUpdates.tag: \'main\' is only for strategy \'digest\'; with \'semver\' the updater picks the tag itself ' +
      'within constraint. Remove tag, or set strategy: \'digest\'.',
    ]);
    expect(problems(withApp({ strategy: 'semver', constraint: 'latest' }))).toEqual([
      'delivery.apps.web.imageUpdates.constraint: \'latest\' is not a semantic-version constraint; write it like \'1.x\', \'~1.4\' or \'>=1.2 <2\'.',
    ]);
    for (const constraint of ['~1.4', '>=1.2 <2', '^2.0.0', '1.2.x || 1.3.x', '2.x-0']) {
      expect(problems(withApp({ strategy: 'semver', constraint }))).toEqual([]);
    }
  });

  test('fails for a tag that is not a container image tag', () => {
    expect(problems(withApp({ tag: '-main' }))).toEqual([
      'delivery.apps.web.imageUpdates.tag: \'-main\' is not a container image tag: use letters, digits, \'_\', \'.\' and \'-\', at most 128 ' +
      'characters, not starting with \'.\' or \'-\'.',
    ]);
  });

  test('allowTags must be regexp:<RE2> or any: a bare expression would match no tag at all', () => {
    expect(problems(withApp({ tag: 'main', allowTags: '^main$' }))).toEqual([
      'delivery.apps.web.imageUpdates.allowTags: \'^main$\' is not an allowTags value Argo CD Image Updater understands: it accepts only ' +
      '\'any\' or \'regexp:<expression>\' (v1.3.0 ParseMatch); anything else matches no tag at all, so the image would never update. ' +
      'Write \'regexp:^main$\' or \'any\'.',
    ]);
    expect(problems(withApp({ tag: 'main', allowTags: 'regexp:' }))).toEqual([
      'delivery.apps.web.imageUpdates.allowTags: \'regexp:\' has an empty expression; write \'any\' to allow every tag, or \'regexp:<expression>\'.',
    ]);
    expect(problems(withApp({ tag: 'main', allowTags: 'regexp:^(?!dev).*' }))).toEqual([
      'delivery.apps.web.imageUpdates.allowTags: \'regexp:^(?!dev).*\' uses a lookaround or a back-reference, which Go\'s RE2 (the ' +
      'updater\'s regexp package) cannot compile; rewrite the expression without them.',
    ]);
    expect(problems(withApp({ tag: 'main', allowTags: 'regexp:^(main' }))).toEqual([
      'delivery.apps.web.imageUpdates.allowTags: \'regexp:^(main\' is not a valid regular expression; fix the part after \'regexp:\'.',
    ]);
    expect(problems(withApp({ tag: 'main', allowTags: 'any' }))).toEqual([]);
    expect(problems(withApp({ tag: 'main', allowTags: 'regexp:^main$' }))).toEqual([]);
  });

  test('fails when allowTags or ignoreTags exclude the tag a digest update follows', () => {
    expect(problems(withApp({ tag: 'main', allowTags: 'regexp:^v[0-9]+' }))).toEqual([
      'delivery.apps.web.imageUpdates.allowTags: \'regexp:^v[0-9]+\' does not match the followed tag \'main\', so the updater would never ' +
      'consider it. Widen the expression, or remove allowTags.',
    ]);
    expect(problems(withApp({ tag: 'main', ignoreTags: ['dev-*', 'ma*'] }))).toEqual([
      'delivery.apps.web.imageUpdates.ignoreTags: \'ma*\' matches the followed tag \'main\', so the updater would never consider it. Remove that entry.',
    ]);
    expect(problems(withApp({ tag: 'main', ignoreTags: ['dev-*', 'latest'] }))).toEqual([]);
  });

  test('fails when the app\'s directory, where the override file lands, is inside the generated tree', () => {
    expect(problems(withApp({ tag: 'main' }, { overlayPath: 'k8s/generated/apps/web' }))).toEqual([
      'delivery.apps.web.overlayPath: \'k8s/generated/apps/web\' is inside the generated tree \'k8s/generated\' (git.distPath), but the ' +
      'updater writes .argocd-source-web.yaml there: the next synth would delete it (rolling the image back) and npm run check would ' +
      'fail on it. Use a directory outside \'k8s/generated\', e.g. \'k8s/apps/web\'.',
    ]);
    // Without image updates the general rule of the app tier reports it once (synthesis would rewrite the overlay).
    expect(problems(withUpdater({}, { overlayPath: 'k8s/generated/apps/web' }))).toEqual([
      'delivery.apps.web.overlayPath: \'k8s/generated/apps/web\' is inside the generated tree (git.distPath \'k8s/generated\'): synthesis ' +
      'rewrites it, so Image Updater\'s write-back there would be undone and fail the drift check. Use a directory of its own, e.g. \'k8s/apps/web\'.',
    ]);
  });

  test('fails for an unknown key, naming the nearest one', () => {
    expect(problems(withApp({ tag: 'main', allowTag: 'any' }))).toEqual([
      'delivery.apps.web.imageUpdates.allowTag: unknown key; did you mean \'allowTags\'?',
    ]);
  });
});
