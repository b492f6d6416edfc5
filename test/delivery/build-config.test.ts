import { REFERENCE_HOMELAB } from '../../lib/config/defaults';
import { HomelabConfig } from '../../lib/config/homelab-config';
import { parseHomelabConfig } from '../../lib/config/parse';
import { validateConfig } from '../../lib/config/validate-config';
import { DeliveryConfig } from '../../lib/config/delivery/types';

const delivery = REFERENCE_HOMELAB.delivery!;

/** The reference homelab with `delivery` changed by `edit`. */
function withDelivery(edit: (d: DeliveryConfig) => DeliveryConfig): HomelabConfig {
  return { ...REFERENCE_HOMELAB, delivery: edit(delivery) };
}

function problems(config: HomelabConfig): string[] {
  return validateConfig(config).all.map((p) => `${p.path}: ${p.message}`);
}

const build = (b: Record<string, unknown>) => problems(withDelivery((d) => ({ ...d, build: b as DeliveryConfig['build'] })));
const registry = (r: Record<string, unknown>) => problems(withDelivery((d) => ({ ...d, registry: { ...d.registry, ...r } })));

describe('delivery.build and delivery.registry defaults', () => {
  test('the decision record\'s choices: pinned runner, rootless BuildKit and cosign images, one runner, the registry cache', () => {
    const parsed = parseHomelabConfig(REFERENCE_HOMELAB).delivery!;
    expect(parsed.build).toEqual({
      namespace: 'forgejo-runner',
      runnerImage: 'code.forgejo.org/forgejo/runner:12.10.2',
      buildkitImage: 'docker.io/moby/buildkit:v0.32.2-rootless',
      cosignImage: 'ghcr.io/sigstore/cosign/cosign:v3.1.2-dev',
      runnerLabel: 'buildkit',
      replicas: 1,
      cacheTag: 'buildcache',
      runnerCpuRequest: '100m',
      runnerMemory: '256Mi',
      buildkitCpuRequest: '500m',
      buildkitMemoryRequest: '1Gi',
      buildkitMemoryLimit: '4Gi',
      registrationTokenSecret: 'forgejo-runner-registration',
      cosignKeySecret: 'COSIGN_PRIVATE_KEY',
      cosignPasswordSecret: 'COSIGN_PASSWORD',
      registryUsernameSecret: 'REGISTRY_USERNAME',
      registryTokenSecret: 'REGISTRY_TOKEN',
    });
    expect(parsed.registry).toEqual({ pushHost: 'forgejo.homelab.example', insecure: true });
  });

  test('a valid node endpoint and image digests are accepted', () => {
    expect(registry({ nodeEndpoint: 'http://192.168.1.165:3000' })).toEqual([]);
    expect(build({ buildkitImage: `docker.io/moby/buildkit:v0.32.2-rootless@sha256:${'a'.repeat(64)}` })).toEqual([]);
  });
});

describe('delivery.registry', () => {
  test('fails for a node endpoint that is not an http(s) base URL, naming the path, the value and the fix', () => {
    expect(registry({ nodeEndpoint: 'ftp://x' })).toEqual([
      'delivery.registry.nodeEndpoint: \'ftp://x\' must start with \'http://\' or \'https://\' (Talos accepts only those schemes for a mirror endpoint).',
    ]);
    expect(registry({ nodeEndpoint: 'http://host:3000/v2' })).toEqual([
      'delivery.registry.nodeEndpoint: \'http://host:3000/v2\' must be a scheme, host and optional port without a path or trailing \'/\', ' +
        'e.g. \'http://192.168.1.165:3000\'.',
    ]);
    expect(registry({ nodeEndpoint: 'http://host:3000/' })).toEqual([
      'delivery.registry.nodeEndpoint: \'http://host:3000/\' must be a scheme, host and optional port without a path or trailing \'/\', ' +
        'e.g. \'http://192.168.1.165:3000\'.',
    ]);
    expect(registry({ nodeEndpoint: 'not a url' })).toEqual([
      'delivery.registry.nodeEndpoint: \'not a url\' is not a URL; write it like \'http://192.168.1.165:3000\' or \'https://forgejo.homelab.example\'.',
    ]);
  });

  test('fails for credentials in the node endpoint without showing them', () => {
    const found = registry({ nodeEndpoint: 'http://user:s3cret@host:3000' });
    expect(found).toHaveLength(1);
    expect(found[0]).toMatch(/^delivery\.registry\.nodeEndpoint: contains credentials in a http:\/\/ URL/);
    expect(found[0]).not.toContain('s3cret');
  });

  test('fails for insecure that is not a boolean', () => {
    expect(registry({ insecure: 'yes' })).toEqual(['delivery.registry.insecure: must be true or false, got the string \'yes\'.']);
  });
});

describe('delivery.build', () => {
  test('fails for images that are not pinned, or use latest, naming each path', () => {
    expect(build({ runnerImage: 'moby/buildkit', cosignImage: 'ghcr.io/a/b:latest' })).toEqual([
      'delivery.build.cosignImage: \'ghcr.io/a/b:latest\' uses the tag \'latest\', which moves under the config; pin a version tag.',
      'delivery.build.runnerImage: \'moby/buildkit\' is not a pinned image: write \'<registry>/<repository>:<tag>\' with the registry host ' +
        'and a version tag, e.g. \'docker.io/moby/buildkit:v0.32.2-rootless\'.',
    ]);
  });

  test('fails for a BuildKit image that is not a rootless tag', () => {
    expect(build({ buildkitImage: 'docker.io/moby/buildkit:v0.32.2' })).toEqual([
      'delivery.build.buildkitImage: \'docker.io/moby/buildkit:v0.32.2\' is not a rootless BuildKit image: its tag must end in \'-rootless\' ' +
        '(e.g. \'docker.io/moby/buildkit:v0.32.2-rootless\'); the other tags run buildkitd as root and need a privileged container.',
    ]);
  });

  test('fails for a runner label, cache tag, replica count, quantity and Secret name out of range', () => {
    expect(build({ runnerLabel: 'Build Kit', cacheTag: '-x', replicas: 0, runnerMemory: '1x', registrationTokenSecret: 'Bad_Name' })).toEqual([
      'delivery.build.cacheTag: \'-x\' is not an image tag: use letters, digits, \'_\', \'.\' and \'-\' (at most 128), e.g. \'buildcache\'.',
      'delivery.build.registrationTokenSecret: \'Bad_Name\' is not a valid Secret name: must consist of lower case letters, digits, \'-\' and ' +
        '\'.\', and start and end with a letter or digit.',
      'delivery.build.replicas: must be an integer of at least 1, got 0.',
      'delivery.build.runnerLabel: \'Build Kit\' is not a runner label: use lower-case letters, digits, \'.\', \'_\' and \'-\', e.g. \'buildkit\'.',
      'delivery.build.runnerMemory: \'1x\' is not a Kubernetes quantity; write it like \'256Mi\'.',
    ]);
  });

  test('fails for Forgejo Actions secret names in lower case or with a reserved prefix', () => {
    expect(build({ cosignKeySecret: 'cosign_key', cosignPasswordSecret: 'GITHUB_PW', registryUsernameSecret: '1USER', registryTokenSecret: 'FORGEJO_T' }))
      .toEqual([
        'delivery.build.cosignKeySecret: \'cosign_key\' is not a Forgejo Actions secret name: use upper-case letters, digits and \'_\', not ' +
          'starting with a digit, e.g. \'COSIGN_PRIVATE_KEY\'.',
        'delivery.build.cosignPasswordSecret: \'GITHUB_PW\' starts with \'GITHUB_\', which Forgejo reserves for its own variables; choose another name.',
        'delivery.build.registryTokenSecret: \'FORGEJO_T\' starts with \'FORGEJO_\', which Forgejo reserves for its own variables; choose another name.',
        'delivery.build.registryUsernameSecret: \'1USER\' is not a Forgejo Actions secret name: use upper-case letters, digits and \'_\', not ' +
          'starting with a digit, e.g. \'COSIGN_PRIVATE_KEY\'.',
      ]);
  });

  test('fails for a misspelled key, naming the known ones', () => {
    const found = build({ buildkitImages: 'x' });
    expect(found).toHaveLength(1);
    expect(found[0]).toMatch(/^delivery\.build\.buildkitImages: unknown key; /);
  });
});

describe('delivery.build rules across fields', () => {
  test('fails when the catalog still has a forgejo-runner Application: the generated runner replaces it', () => {
    const apps = REFERENCE_HOMELAB.argocd.applications!;
    const config: HomelabConfig = {
      ...REFERENCE_HOMELAB,
      argocd: { ...REFERENCE_HOMELAB.argocd, applications: { ...apps, 'forgejo-runner': { ...apps['duckdns'], namespace: 'ci' } } },
    };
    expect(problems(config)).toEqual([
      'argocd.applications.forgejo-runner: \'forgejo-runner\' is the Application delivery.build generates (a Forgejo runner with rootless ' +
        'BuildKit, no privileged container). Remove this catalog entry, and delete the folder it reads once the generated runner takes jobs.',
    ]);
  });

  test('fails when the runner shares a namespace with an app or with Forgejo', () => {
    expect(build({ namespace: 'hello' })).toEqual([
      'delivery.build.namespace: \'hello\' is also the namespace of delivery.apps.hello; the runner\'s namespace enforces Pod Security ' +
        '\'privileged\' (rootless BuildKit runs with Unconfined seccomp), which an application namespace must never do. Give the runner a ' +
        'namespace of its own.',
    ]);
    expect(build({ namespace: REFERENCE_HOMELAB.forgejo.namespace ?? 'cicd' })).toEqual([
      'delivery.build.namespace: \'cicd\' is Forgejo\'s namespace (a Phase-0 namespace); the runner\'s enforces Pod Security \'privileged\'. ' +
        'Give the runner a namespace of its own.',
    ]);
  });

  test('fails when the BuildKit memory request is above its limit', () => {
    expect(build({ buildkitMemoryRequest: '8Gi', buildkitMemoryLimit: '4Gi' })).toEqual([
      'delivery.build.buildkitMemoryRequest: memory request \'8Gi\' is above its limit \'4Gi\'; the API server rejects it. Lower the request or raise the limit.',
    ]);
  });
});
