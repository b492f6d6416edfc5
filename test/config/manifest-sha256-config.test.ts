import { REFERENCE_HOMELAB } from '../../lib/config/defaults';
import { HomelabConfig } from '../../lib/config/homelab-config';
import { parseHomelabConfig } from '../../lib/config/parse';
import { validateConfig } from '../../lib/config/validate-config';
import { configWarnings } from '../../lib/plan/config-warnings';
import { ConfigError } from '../../lib/shared/errors';
import { REFERENCE_MANIFEST_SHA256 } from '../../lib/shared/manifest-integrity';
import { ARGOCD_INSTALL_URL, BARMAN_CLOUD_PLUGIN_MANIFEST_URL, CNPG_MANIFEST_URL } from '../../lib/shared/pins';
import { synthesizeHomelab } from '../../lib/synth/synthesize-homelab';

const CNPG_SHA256 = 'f8bede43fe4ee0d478c2355b204a36876b2ae4faac60f2a9452280b293da3b88';
const ARGOCD_SHA256 = '795a3a972224da6a7f9d32c3e946445f062b60fb46028476715affeb688236e3';

function problems(config: unknown): string[] {
  return validateConfig(config as HomelabConfig).all.map((p) => `${p.path}: ${p.message}`);
}

/** The synth's config error, as its lines. */
function synthError(config: HomelabConfig): string[] {
  try {
    synthesizeHomelab(config);
  } catch (e) {
    if (e instanceof ConfigError) return e.message.split('\n');
    throw e;
  }
  throw new Error('synthesizeHomelab did not fail');
}

describe('manifestSha256', () => {
  test('defaults to the reference pins: CNPG and Argo CD by sha256, the Barman Cloud plugin unpinned', () => {
    expect(parseHomelabConfig(REFERENCE_HOMELAB).manifestSha256).toEqual({
      [CNPG_MANIFEST_URL]: CNPG_SHA256,
      [BARMAN_CLOUD_PLUGIN_MANIFEST_URL]: 'unpinned',
      [ARGOCD_INSTALL_URL]: ARGOCD_SHA256,
    });
  });

  test('the reference pins are keyed by the URLs the pinned versions serve (a pin bump must fail here, and at synth)', () => {
    expect(Object.keys(REFERENCE_MANIFEST_SHA256).sort()).toEqual([ARGOCD_INSTALL_URL, BARMAN_CLOUD_PLUGIN_MANIFEST_URL, CNPG_MANIFEST_URL].sort());
  });

  test('fails for a value that is not 64 lower-case hex digits or \'unpinned\', naming the path, the value and the fix', () => {
    expect(problems({
      ...REFERENCE_HOMELAB,
      manifestSha256: { ...REFERENCE_MANIFEST_SHA256, [CNPG_MANIFEST_URL]: 'f8bede43', [ARGOCD_INSTALL_URL]: ARGOCD_SHA256.toUpperCase() },
    })).toEqual([
      `manifestSha256.${CNPG_MANIFEST_URL}: 'f8bede43' is not a sha256: write the 64 lower-case hex digits that `
        + '`curl -fsSL <url> | sha256sum` prints, or \'unpinned\' to have the runbook print them on its first run.',
      `manifestSha256.${ARGOCD_INSTALL_URL}: '${ARGOCD_SHA256.toUpperCase()}' is not a sha256: write the 64 lower-case hex digits that `
        + '`curl -fsSL <url> | sha256sum` prints (write the hex digits in lower case, as sha256sum prints them), '
        + 'or \'unpinned\' to have the runbook print them on its first run.',
    ]);
  });

  test('fails for a key that is not an https URL ending in a file name', () => {
    expect(problems({ ...REFERENCE_HOMELAB, manifestSha256: { ...REFERENCE_MANIFEST_SHA256, 'http://example.com/a.yaml': CNPG_SHA256 } })).toEqual([
      'manifestSha256.http://example.com/a.yaml: \'http://example.com/a.yaml\' is not the URL of a release manifest: use '
        + 'https://HOST/PATH ending in the file name, without credentials, query or fragment.',
    ]);
  });

  test('fails at synth for a URL a step applies without a pin (a pin bump moved it), naming the URL, the path and the fix', () => {
    const { [CNPG_MANIFEST_URL]: _cnpg, ...rest } = REFERENCE_MANIFEST_SHA256;
    expect(synthError({ ...REFERENCE_HOMELAB, manifestSha256: rest })).toEqual([
      'The homelab config has 1 problem:',
      `  - manifestSha256.${CNPG_MANIFEST_URL}: bootstrap step 'cnpg-operator' applies ${CNPG_MANIFEST_URL}, which has no sha256 pin. `
        + `Add '${CNPG_MANIFEST_URL}': '<sha256>' with the 64 hex digits \`curl -fsSL ${CNPG_MANIFEST_URL} | sha256sum\` prints `
        + '(check them against the release\'s own checksum or signature), or \'unpinned\' to have the runbook print them on its first run.',
    ]);
  });

  test('fails at synth for a stale pin: a URL no step applies that is no release manifest of a pinned version', () => {
    const old = 'https://github.com/cloudnative-pg/cloudnative-pg/releases/download/v1.29.1/cnpg-1.29.1.yaml';
    const lines = synthError({ ...REFERENCE_HOMELAB, manifestSha256: { ...REFERENCE_MANIFEST_SHA256, [old]: CNPG_SHA256 } });
    expect(lines).toEqual([
      'The homelab config has 1 problem:',
      `  - manifestSha256.${old}: no bootstrap step applies ${old}, and it is not the release manifest of a pinned version (a stale pin: `
        + `the pinned release moved). Remove the entry; the steps apply ${[CNPG_MANIFEST_URL, BARMAN_CLOUD_PLUGIN_MANIFEST_URL, ARGOCD_INSTALL_URL].sort().join(', ')}.`,
    ]);
  });

  test('a pin of a pinned release whose component is off is kept: no backup, so no plugin step, and no error', () => {
    const noBackup: HomelabConfig = {
      ...REFERENCE_HOMELAB,
      postgresClusters: Object.fromEntries(Object.entries(REFERENCE_HOMELAB.postgresClusters).map(([k, c]) => [k, { ...c, backup: undefined }])),
      forgejo: { ...REFERENCE_HOMELAB.forgejo, backup: undefined },
    };
    const { bootstrap } = synthesizeHomelab(noBackup);
    expect(bootstrap.barmanCloudPluginStep).toBeUndefined();
  });

  test('an unpinned URL is listed under Warnings; a pinned one is not', () => {
    const warnings = configWarnings(parseHomelabConfig(REFERENCE_HOMELAB));
    expect(warnings.filter((w) => w.startsWith('manifestSha256'))).toEqual([
      `manifestSha256 leaves ${BARMAN_CLOUD_PLUGIN_MANIFEST_URL} 'unpinned': the runbook applies this release manifest without checking `
        + 'its bytes (it prints its sha256 to pin).',
    ]);
  });
});
