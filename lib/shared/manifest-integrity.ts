/**
 * The integrity pins of the release manifests the bootstrap applies by URL (the CNPG operator, the Barman Cloud
 * plugin, Argo CD): the sha256 of the bytes each URL serves. The config holds them (`manifestSha256`, keyed by URL);
 * the runbook downloads each manifest once, checks it against its pin and applies the verified local copy.
 */

/**
 * The value that says "not pinned" for a URL whose sha256 is not known yet: the runbook then downloads the manifest,
 * prints its sha256 and the config line that pins it, and applies it; synth and plan list it under Warnings.
 */
export const UNPINNED = 'unpinned';

/** A sha256 as `sha256sum` prints it: 64 lower-case hex digits. */
const SHA256_HEX = /^[0-9a-f]{64}$/;

/**
 * The sha256 pins of the reference homelab, keyed by the literal URL: a pin bump in lib/shared/pins.ts changes the URL
 * the output applies, so synth fails naming the new URL (and this stale entry) until someone pins the new bytes; the
 * hash is never carried over to a release it was not computed from.
 *
 * - Argo CD v3.5.1 `manifests/install.yaml` (argoproj/argo-cd tag v3.5.1, blob e7238840): raw.githubusercontent.com
 *   serves the file of the tag; sha256 from ../shared/manifests/README.md, checked with `git show v3.5.1:manifests/install.yaml | sha256sum`.
 * - CNPG 1.30.0: cloudnative-pg v1.30.0 `.github/workflows/release-publish.yml`, job `release`, checks out the tag and
 *   uploads the committed `releases/cnpg-1.30.0.yaml` as the release asset (nothing regenerates it in between), so the
 *   asset's sha256 is the blob's: `git show v1.30.0:releases/cnpg-1.30.0.yaml | sha256sum` (../shared/manifests/README.md).
 * - Barman Cloud plugin v0.14.0: not known. The asset is built by the release workflow (`task manifest`, Taskfile.yml at
 *   v0.14.0) with the release images, so it differs from the repository's `manifest.yaml`, and it cannot be downloaded
 *   here. Pin it from the runbook's first run, which prints it.
 */
export const REFERENCE_MANIFEST_SHA256: Readonly<Record<string, string>> = {
  'https://github.com/cloudnative-pg/cloudnative-pg/releases/download/v1.30.0/cnpg-1.30.0.yaml':
    'f8bede43fe4ee0d478c2355b204a36876b2ae4faac60f2a9452280b293da3b88',
  'https://github.com/cloudnative-pg/plugin-barman-cloud/releases/download/v0.14.0/manifest.yaml': UNPINNED,
  'https://raw.githubusercontent.com/argoproj/argo-cd/v3.5.1/manifests/install.yaml':
    '795a3a972224da6a7f9d32c3e946445f062b60fb46028476715affeb688236e3',
};

/** Why `value` is neither a sha256 nor `'unpinned'`, as a message without the path; undefined when it is one. */
export function manifestSha256Problem(value: string): string | undefined {
  if (value === UNPINNED || SHA256_HEX.test(value)) return undefined;
  const hint = /^[0-9A-Fa-f]{64}$/.test(value) ? ' (write the hex digits in lower case, as sha256sum prints them)' : '';
  return `'${value.length > 80 ? `${value.slice(0, 77)}...` : value}' is not a sha256: write the 64 lower-case hex digits that ` +
    `\`curl -fsSL <url> | sha256sum\` prints${hint}, or '${UNPINNED}' to have the runbook print them on its first run.`;
}

/** Why `url` cannot be a release manifest the runbook downloads (an https URL whose path ends in a file name). */
export function manifestUrlProblem(url: string): string | undefined {
  const name = manifestFileName(url);
  if (!/^https:\/\/[^\s/?#@]+\/[^\s?#]*$/.test(url) || name === undefined) {
    return `'${url}' is not the URL of a release manifest: use https://HOST/PATH ending in the file name, without credentials, query or fragment.`;
  }
  return undefined;
}

/**
 * The file name a release manifest is stored under, next to its kustomization and in the runbook's folder of
 * already-downloaded manifests (`HOMELAB_MANIFESTS`): the last segment of the URL's path, e.g. `cnpg-1.30.0.yaml`.
 * Undefined when that segment is not a plain file name.
 */
export function manifestFileName(url: string): string | undefined {
  const name = url.replace(/[?#].*$/, '').split('/').pop() ?? '';
  return /^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(name) ? name : undefined;
}
