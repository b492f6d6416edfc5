import { Duration } from 'cdk8s';
import { k8s } from 'cdk8s-plus-30';
import { gitRefProblem } from '../../shared/names';
import { IMAGES } from '../../shared/pins';
import { restrictedContainerSecurityContext, restrictedPodSecurityContext } from '../../shared/security';
import { DUMP_STORE_CA_PATH, DumpStore, dumpStoreEnv, dumpStoreProblem, DumpStoreSecretKey } from '../forgejo/dump-store';

/** Where the suite comes from: a git repository over HTTPS, a branch or tag, and the Playwright project's folder in it. */
export interface PlaywrightSuite {
  /** HTTPS URL of the repository, without credentials. */
  readonly repoURL: string;
  /** Branch or tag to check out (`git clone --branch`). */
  readonly revision: string;
  /** Folder of the Playwright project (package.json, package-lock.json, spec files) in the repository. */
  readonly path: string;
  /**
   * Secret with keys `username` and `password` (a read-only token) for a private repository.
   * @default - the repository is read anonymously
   */
  readonly credentialsSecret?: string;
}

/** The SSO federation journey: its spec file, the identity provider's URL and the test user, by Secret reference. */
export interface PlaywrightSso {
  /** Spec file of the journey, relative to the suite's folder. */
  readonly scenario: string;
  /** Public URL of the identity provider (`E2E_SSO_URL`). */
  readonly url: string;
  /** The test user's name (`E2E_SSO_USERNAME`). */
  readonly username: DumpStoreSecretKey;
  /** The test user's password (`E2E_SSO_PASSWORD`). */
  readonly password: DumpStoreSecretKey;
}

/** Properties for `playwrightRunPodSpec`: one run of Playwright journeys and the upload of their video and trace. */
export interface PlaywrightRunProps {
  /** Image with the browsers, Node.js, npm and git: the official Playwright image at a release. */
  readonly image: string;
  /**
   * The `@playwright/test` version the suite must install; a different one fails the run before any journey.
   * @default - not checked (an image other than the official one)
   */
  readonly playwrightVersion?: string;
  readonly suite: PlaywrightSuite;
  /** Spec files of the suite to run (Playwright `testMatch` entries), at least one. */
  readonly scenarios: readonly string[];
  /** The URL the journeys open (`baseURL`, `E2E_BASE_URL`). */
  readonly baseURL: string;
  /**
   * Also run the SSO federation journey.
   * @default - no SSO journey
   */
  readonly sso?: PlaywrightSso;
  /** Where the results go; each pod writes `<folder>/<runFolder>/<pod name>/`. */
  readonly artifacts: DumpStore;
  /** Folder of this run's results under the store's folder, e.g. `hello/canary`. */
  readonly runFolder: string;
  /** How long the whole run may take. */
  readonly timeout: Duration;
}

/** The uid the containers run as: any uid works (the browsers are world-readable, HOME is an emptyDir); `ubuntu` in the image. */
export const PLAYWRIGHT_UID = 1000;

/** Mount paths of the pod's emptyDirs. */
const WORK = '/work';
const RESULTS = '/results';
const TMP = '/tmp';

/**
 * The Playwright config the gate runs with, written next to the suite's own: the suite's config is for local runs; here
 * the browser is WebKit only (decision record: Safari's engine), there are no retries (a flaky journey is a failure),
 * and video and trace are always kept. `testMatch` strings are globs prefixed with `**\/` (microsoft/playwright v1.62.1
 * `packages/playwright/src/util.ts` `createFileMatcher`), so spec paths relative to the suite match.
 */
export const GATE_CONFIG = `// Written by the homelab's E2E gate; the suite's own config is for local runs.
import { defineConfig, devices } from '@playwright/test';

export default defineConfig({
  testDir: '.',
  testMatch: JSON.parse(process.env.E2E_SCENARIOS),
  outputDir: '${RESULTS}/test-results',
  forbidOnly: true,
  retries: 0,
  workers: 1,
  reporter: [['list'], ['junit', { outputFile: '${RESULTS}/junit.xml' }], ['html', { outputFolder: '${RESULTS}/report', open: 'never' }]],
  use: { video: 'on', trace: 'on', screenshot: 'only-on-failure' },
  projects: [{ name: 'webkit', use: { ...devices['Desktop Safari'], baseURL: process.env.E2E_BASE_URL } }],
});
`;

/** The file name of the gate's config in the suite's folder. */
export const GATE_CONFIG_FILE = 'playwright.homelab-gate.config.mjs';

/**
 * Clones the suite, installs its locked dependencies without downloading browsers (the image has them at
 * `PLAYWRIGHT_BROWSERS_PATH`), checks that the installed `@playwright/test` is the image's version (the image holds
 * browsers for its own release only: microsoft/playwright v1.62.1 `docs/src/docker.md`), and writes the gate's config.
 * A token, when there is one, reaches git through a credential helper reading the environment, never the command line.
 */
export const SUITE_SCRIPT = `set -eu
mkdir -p "$HOME"
if [ -n "\${GIT_USERNAME:-}" ]; then
  # shellcheck disable=SC2016 # git's shell expands the variables when it calls the helper
  git config --global credential.helper '!f() { echo "username=$GIT_USERNAME"; echo "password=$GIT_PASSWORD"; }; f'
fi
git clone --quiet --depth 1 --branch "$SUITE_REVISION" -- "$SUITE_REPO" ${WORK}/repo
cd "${WORK}/repo/$SUITE_PATH"
npm ci --no-audit --no-fund
if [ -n "$PLAYWRIGHT_VERSION" ]; then
  installed=$(node -p "require('@playwright/test/package.json').version")
  if [ "$installed" != "$PLAYWRIGHT_VERSION" ]; then
    echo "the suite installs @playwright/test $installed, but the image has the browsers of $PLAYWRIGHT_VERSION: pin @playwright/test to $PLAYWRIGHT_VERSION in $SUITE_PATH/package.json" >&2
    exit 1
  fi
fi
printf '%s' "$E2E_CONFIG" > ${GATE_CONFIG_FILE}
`;

/** Runs the journeys and records their exit code for the upload; always exits 0 so that the results are uploaded. */
export const JOURNEYS_SCRIPT = `set -u
mkdir -p "$HOME"
cd "${WORK}/repo/$SUITE_PATH" || exit 1
status=0
npx --no-install playwright test --config ${GATE_CONFIG_FILE} || status=$?
echo "$status" > ${RESULTS}/exit-code
exit 0
`;

/**
 * Uploads the results (video, trace, HTML report, JUnit) and exits with the journeys' code: the Job fails exactly when a
 * journey failed, after its evidence is stored. A failed upload is reported but does not fail passing journeys, so an
 * object-store outage cannot hold every release.
 */
export const UPLOAD_SCRIPT = `set -u
code=$(cat ${RESULTS}/exit-code 2>/dev/null || echo 1)
target="$REMOTE/$RUN_FOLDER/$POD_NAME"
if rclone copy ${RESULTS} "$target"; then
  echo "video, trace and report uploaded to $target"
else
  echo "upload to $target failed; the journeys' result stands" >&2
fi
if [ "$code" != 0 ]; then
  echo "the journeys failed (playwright exit code $code); see $target" >&2
  exit 1
fi
`;

/** Why `props` cannot be run (without the construct path, which the caller puts in front), or undefined. */
export function playwrightRunProblem(props: PlaywrightRunProps): string | undefined {
  if (props.scenarios.length === 0) return '\'scenarios\' is empty: name at least one spec file of the suite.';
  if (!/^https:\/\/[^/\s?#@]+\/\S+$/.test(props.suite.repoURL)) {
    return `'suite.repoURL' must be an HTTPS git URL without credentials, got '${props.suite.repoURL}'.`;
  }
  const ref = gitRefProblem(props.suite.revision);
  if (ref !== undefined) return `'suite.revision' must be a branch or tag: '${props.suite.revision}' ${ref}.`;
  if (!/^https?:\/\/[^/\s?#@]+(\/[^\s?#@]*)?$/.test(props.baseURL)) {
    return `'baseURL' must be an http(s) URL without credentials, got '${props.baseURL}'.`;
  }
  const store = dumpStoreProblem(props.artifacts);
  if (store !== undefined) return `'artifacts': ${store}`;
  if (props.timeout.toSeconds() < 60) return `'timeout' must be at least a minute, got ${props.timeout.toSeconds()}s.`;
  return undefined;
}

/**
 * The pod of one run, restricted: init container `suite` (clone and install), init container `journeys` (Playwright,
 * WebKit only), container `upload` (rclone; its exit code is the verdict). Read-only root filesystems; the clone, the
 * results, `/tmp` and HOME are emptyDirs. No service account token: nothing here talks to the API server.
 */
export function playwrightRunPodSpec(props: PlaywrightRunProps): k8s.PodSpec {
  const resources = (cpu: string, memory: string, limit: string): k8s.ResourceRequirements => ({
    requests: { cpu: k8s.Quantity.fromString(cpu), memory: k8s.Quantity.fromString(memory) },
    limits: { memory: k8s.Quantity.fromString(limit) },
  });
  const secretEnv = (name: string, ref: DumpStoreSecretKey): k8s.EnvVar => ({ name, valueFrom: { secretKeyRef: { name: ref.name, key: ref.key } } });
  const scenarios = [...props.scenarios, ...(props.sso ? [props.sso.scenario] : [])];
  const suiteEnv: k8s.EnvVar[] = [
    { name: 'SUITE_REPO', value: props.suite.repoURL },
    { name: 'SUITE_REVISION', value: props.suite.revision },
    { name: 'SUITE_PATH', value: props.suite.path },
    // npm and git write their caches and config under HOME; the root filesystem is read-only.
    { name: 'HOME', value: `${TMP}/home` },
  ];
  const playwrightContainer = (name: string, script: string, env: k8s.EnvVar[], res: k8s.ResourceRequirements): k8s.Container => ({
    name,
    image: props.image,
    command: ['/bin/bash', '-c', script],
    env: [...suiteEnv, ...env],
    terminationMessagePolicy: 'FallbackToLogsOnError',
    volumeMounts: [{ name: 'work', mountPath: WORK }, { name: 'results', mountPath: RESULTS }, { name: 'tmp', mountPath: TMP }],
    resources: res,
    securityContext: restrictedContainerSecurityContext(PLAYWRIGHT_UID),
  });
  const credentials = props.suite.credentialsSecret;
  return {
    restartPolicy: 'Never',
    automountServiceAccountToken: false,
    enableServiceLinks: false,
    securityContext: restrictedPodSecurityContext(PLAYWRIGHT_UID),
    initContainers: [
      playwrightContainer('suite', SUITE_SCRIPT, [
        { name: 'PLAYWRIGHT_VERSION', value: props.playwrightVersion ?? '' },
        // The image has the browsers; npm must not fetch them (microsoft/playwright v1.62.1 docs/src/browsers.md).
        { name: 'PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD', value: '1' },
        { name: 'E2E_CONFIG', value: GATE_CONFIG },
        ...(credentials ? [secretEnv('GIT_USERNAME', { name: credentials, key: 'username' }), secretEnv('GIT_PASSWORD', { name: credentials, key: 'password' })] : []),
      ], resources('250m', '512Mi', '1Gi')),
      playwrightContainer('journeys', JOURNEYS_SCRIPT, [
        { name: 'E2E_BASE_URL', value: props.baseURL },
        { name: 'E2E_SCENARIOS', value: JSON.stringify(scenarios) },
        { name: 'CI', value: 'true' },
        ...(props.sso ? [
          { name: 'E2E_SSO_URL', value: props.sso.url },
          secretEnv('E2E_SSO_USERNAME', props.sso.username),
          secretEnv('E2E_SSO_PASSWORD', props.sso.password),
        ] : []),
      ], resources('500m', '1Gi', '2Gi')),
    ],
    containers: [{
      name: 'upload',
      image: IMAGES.rclone,
      command: ['/bin/sh', '-c', UPLOAD_SCRIPT],
      env: [
        ...dumpStoreEnv(props.artifacts),
        { name: 'RUN_FOLDER', value: props.runFolder },
        // The folder of each run: the pod's name is unique and needs no clock in the generated YAML.
        { name: 'POD_NAME', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
      ],
      terminationMessagePolicy: 'FallbackToLogsOnError',
      volumeMounts: [
        { name: 'results', mountPath: RESULTS, readOnly: true },
        { name: 'tmp', mountPath: TMP },
        ...(props.artifacts.endpointCa ? [{ name: 'store-ca', mountPath: DUMP_STORE_CA_PATH, subPath: 'ca.crt', readOnly: true }] : []),
      ],
      resources: resources('50m', '128Mi', '256Mi'),
      securityContext: restrictedContainerSecurityContext(PLAYWRIGHT_UID),
    }],
    volumes: [
      { name: 'work', emptyDir: { sizeLimit: k8s.Quantity.fromString('2Gi') } },
      { name: 'results', emptyDir: { sizeLimit: k8s.Quantity.fromString('2Gi') } },
      { name: 'tmp', emptyDir: { sizeLimit: k8s.Quantity.fromString('2Gi') } },
      ...(props.artifacts.endpointCa ? [{
        name: 'store-ca',
        secret: { secretName: props.artifacts.endpointCa.name, items: [{ key: props.artifacts.endpointCa.key, path: 'ca.crt' }] },
      }] : []),
    ],
  };
}

/** The Secrets a run reads, sorted and without duplicates: for the tree's secret references. */
export function playwrightRunSecrets(props: PlaywrightRunProps): { name: string; keys: string[] }[] {
  const refs: DumpStoreSecretKey[] = [props.artifacts.accessKeyId, props.artifacts.secretAccessKey,
    ...(props.artifacts.region ? [props.artifacts.region] : []), ...(props.artifacts.endpointCa ? [props.artifacts.endpointCa] : []),
    ...(props.sso ? [props.sso.username, props.sso.password] : []),
    ...(props.suite.credentialsSecret ? [{ name: props.suite.credentialsSecret, key: 'username' }, { name: props.suite.credentialsSecret, key: 'password' }] : [])];
  const byName = new Map<string, Set<string>>();
  for (const r of refs) byName.set(r.name, new Set([...(byName.get(r.name) ?? []), r.key]));
  return [...byName].sort(([a], [b]) => (a < b ? -1 : 1)).map(([name, keys]) => ({ name, keys: [...keys].sort() }));
}
