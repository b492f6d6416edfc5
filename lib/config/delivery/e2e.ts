/**
 * `delivery.e2e` (the Playwright test image, the suite's source, the artifacts store, the SSO journey, the smoke runs) and
 * the per-application `e2e`. The decision record (ADR 0001 Part B, "Deployment verification"): Playwright journeys in
 * WebKit only, video and trace to the object store's `e2e-artifacts/` folder, credentials from the secret store as
 * environment variables, run as the deploy gate and as a continuous smoke test that alerts.
 */
import { z } from 'zod';
import { cronJobScheduleProblem } from '../../shared/backup';
import { checkedString, gitRef, integer, keyedRecord, namespaceName, repoRelativePath, secretKey, secretName } from '../fields';
import { show } from '../messages';
import { BackupObjectStoreSchema } from '../object-store';
import { dnsLabelProblem } from '../../shared/names';

/**
 * The official Playwright image (browsers and their system libraries, no Playwright package): Ubuntu 24.04 "noble",
 * tagged `v<Playwright version>-noble` (microsoft/playwright v1.62.1 `docs/src/docker.md`, `utils/docker/Dockerfile.noble`).
 * 1.65.1 is the newest `@playwright/test` on npm; the suite must install the same version (the runner checks it).
 */
export const PLAYWRIGHT_IMAGE = 'mcr.microsoft.com/playwright:v1.65.1-noble';

/** The repository of the official image, whose tag carries the Playwright version the suite must match. */
export const PLAYWRIGHT_IMAGE_REPOSITORY = 'mcr.microsoft.com/playwright';

/** `v1.65.1-noble` → `1.65.1`: the tags the Playwright release workflow publishes (`-noble`, `-jammy`). */
const PLAYWRIGHT_TAG = /^v(\d+\.\d+\.\d+)-(noble|jammy)$/;

/** The Playwright version of an official image reference, or undefined for any other image. */
export function playwrightImageVersion(image: string): string | undefined {
  if (!image.startsWith(`${PLAYWRIGHT_IMAGE_REPOSITORY}:`)) return undefined;
  return PLAYWRIGHT_TAG.exec(image.slice(PLAYWRIGHT_IMAGE_REPOSITORY.length + 1).split('@')[0])?.[1];
}

/** Why `v` is not a pinned image for the suite, or undefined. */
function testImageProblem(v: string): string | undefined {
  const m = /^([a-z0-9.-]+(?::\d+)?\/[a-z0-9._/-]+?)(?::([A-Za-z0-9_][A-Za-z0-9_.-]{0,127}))?(@sha256:[a-f0-9]{64})?$/.exec(v);
  if (!m || (m[2] === undefined && m[3] === undefined)) {
    return `${show(v)} is not a pinned image reference: write '<registry>/<repository>:<tag>' or '…@sha256:<digest>', e.g. '${PLAYWRIGHT_IMAGE}'.`;
  }
  if (m[2] === 'latest') return `${show(v)} floats: 'latest' is not a pin. Write a Playwright release, e.g. '${PLAYWRIGHT_IMAGE}'.`;
  if (m[1] === PLAYWRIGHT_IMAGE_REPOSITORY && m[2] !== undefined && !PLAYWRIGHT_TAG.test(m[2])) {
    return `${show(v)} is not a tag of the Playwright image: write 'v<Playwright version>-noble' (or '-jammy'), e.g. '${PLAYWRIGHT_IMAGE}'.`;
  }
  return undefined;
}

/** A scenario: one spec file of the suite, relative to `suite.path` (a Playwright `testMatch` entry). */
const scenario = checkedString((v) => (/^[A-Za-z0-9._-]+(\/[A-Za-z0-9._-]+)*\.spec\.(ts|js|mjs|cjs)$/.test(v) && !v.split('/').includes('..')
  ? undefined
  : `${show(v)} is not a scenario: name a spec file of the suite relative to delivery.e2e.suite.path, e.g. 'portainer/login.spec.ts'.`));

/** A base URL the journeys open: http(s), a host, no credentials. */
const baseURL = checkedString((v) => (/^https?:\/\/[^/\s?#@]+(\/[^\s?#@]*)?$/.test(v) ? undefined
  : `${show(v)} is not a base URL: write 'http(s)://<host>[:port][/path]' without credentials, e.g. 'https://portainer.homelab.example'.`));

/** The folder of the artifacts in the bucket. */
const artifactsFolder = checkedString((v) => (/^[A-Za-z0-9._-]+(\/[A-Za-z0-9._-]+)*$/.test(v) && !v.split('/').includes('..') ? undefined
  : `${show(v)} is not a folder in a bucket: write it without a leading or trailing '/', e.g. 'e2e-artifacts'.`));

/** Where the suite (the Playwright project: package.json, package-lock.json, the spec files) comes from. */
export const E2eSuiteSchema = z.strictObject({
  /**
   * HTTPS URL of the git repository holding the suite. @default - the homelab repository on GitHub (the seed URL, in
   * its HTTPS form), where the decision record keeps the suite (`tests/e2e/`)
   */
  repoURL: checkedString((v) => (/^https:\/\/[^/\s?#@]+\/\S+$/.test(v) ? undefined
    : `${show(v)} is not an HTTPS git URL without credentials: write 'https://<host>/<owner>/<repo>.git' and put a token in ` +
      '\'credentialsSecret\'.')).optional(),
  /** Branch, tag or commit to check out. @default - the revision Argo CD tracks */
  revision: gitRef.optional(),
  /** Folder of the Playwright project in the repository. @default 'tests/e2e' */
  path: repoRelativePath.default('tests/e2e'),
  /**
   * Secret with keys `username` and `password` (a read-only token) for a private repository, in every namespace a
   * journey runs in. @default - the repository is read anonymously
   */
  credentialsSecret: secretName.optional(),
}).readonly();

/** Where the videos, traces and reports go: an S3-compatible store (the backups' shape), private, with expiry. */
export const E2eArtifactsSchema = z.strictObject({
  /** The object store; its credentials Secret must exist in every namespace a journey runs in. */
  objectStore: BackupObjectStoreSchema,
  /** Folder under `objectStore.path`; each run writes `<folder>/<pod name>/`. @default 'e2e-artifacts' */
  folder: artifactsFolder.default('e2e-artifacts'),
}).readonly();

/** The SSO identity provider of the journeys. */
export const SSO_PROVIDERS = ['authentik'] as const;

/**
 * The single sign-on journey: click the app's SSO button, sign in at Authentik with a test user, land back signed in.
 * It catches a mis-registered client, a wrong redirect URI or a broken provider that a green pod hides.
 */
export const E2eSsoSchema = z.strictObject({
  /** The identity provider. @default 'authentik' */
  provider: z.enum(SSO_PROVIDERS, {
    error: (issue) => `${show(issue.input)} is not an SSO provider; use one of ${SSO_PROVIDERS.map((p) => `'${p}'`).join(', ')}.`,
  }).default('authentik'),
  /** Public URL of the identity provider, e.g. `https://auth.homelab.example`; the journeys get it as `E2E_SSO_URL`. */
  url: baseURL,
  /** The spec file of the federation journey, run against each app with `sso: true`. @default 'sso/oidc-login.spec.ts' */
  scenario: scenario.default('sso/oidc-login.spec.ts'),
  /** Secret holding the test user's credentials (never in the config), in every namespace an SSO journey runs in. */
  credentialsSecret: secretName,
  /** Key of the user name. @default 'username' */
  usernameKey: secretKey.default('username'),
  /** Key of the password. @default 'password' */
  passwordKey: secretKey.default('password'),
}).readonly();

/** Journeys of something outside `delivery.apps` (Portainer, Authentik, Argo CD...), run by the smoke CronJobs only. */
export const E2eJourneySchema = z.strictObject({
  /** The URL the journeys open (`baseURL`); the public ingress hostname, as a user reaches it. */
  baseURL,
  /** Spec files of the suite. */
  scenarios: z.array(scenario).min(1, { error: 'lists no scenario: name at least one spec file of the suite.' }).readonly(),
  /** Also run the SSO federation journey (`delivery.e2e.sso.scenario`) against `baseURL`. @default false */
  sso: z.boolean().default(false),
}).readonly();

/** Names of smoke journeys become CronJob names (`e2e-smoke-<name>`, at most 52 characters). */
function journeyNameProblem(v: string): string | undefined {
  const why = dnsLabelProblem(v);
  if (why !== undefined) return `${show(v)} is not a valid journey name: ${why}.`;
  return v.length > 42 ? `${show(v)} is too long for a journey name: its CronJob 'e2e-smoke-${v}' may have at most 52 characters.` : undefined;
}

/** The continuous smoke test: a CronJob per journey set, alerting through the monitoring stack when one fails. */
export const E2eSmokeSchema = z.strictObject({
  /** When the journeys run: a Kubernetes CronJob schedule, five fields. @default '*\/30 * * * *' (every 30 minutes) */
  schedule: checkedString(cronJobScheduleProblem).default('*/30 * * * *'),
  /** Namespace of the smoke CronJobs (the `e2e-smoke` Application creates it, restricted). @default 'e2e-smoke' */
  namespace: namespaceName.default('e2e-smoke'),
  /** Journeys beyond the apps of `delivery.apps` (each app with `e2e` is smoke-tested too), keyed by name. @default {} */
  journeys: keyedRecord(journeyNameProblem, E2eJourneySchema).readonly().default({}),
}).readonly();

export const E2eSchema = z.strictObject({
  /**
   * The image the journeys run in: the official Playwright image at a release, which has the browsers but not the
   * Playwright package (the suite installs it at the same version). @default 'mcr.microsoft.com/playwright:v1.65.1-noble'
   */
  image: checkedString(testImageProblem).default(PLAYWRIGHT_IMAGE),
  /** Where the suite comes from. @default {} (the homelab repository's `tests/e2e`) */
  suite: E2eSuiteSchema.prefault({}),
  /**
   * Where videos, traces and reports are uploaded. Required as soon as a journey runs (the decision record keeps
   * them). @default - none: no journey may run
   */
  artifacts: E2eArtifactsSchema.optional(),
  /** The SSO federation journey. @default - none: no app may set `sso` */
  sso: E2eSsoSchema.optional(),
  /** The continuous smoke test. @default {} */
  smoke: E2eSmokeSchema.prefault({}),
  /** Minutes a run (install, journeys, upload) may take before its Job fails. @default 15 */
  timeoutMinutes: integer(2).default(15),
}).readonly();

/** The end-to-end journeys of one application; absent: the application has no E2E gate. */
export const AppE2eSchema = z.strictObject({
  /**
   * Spec files of the suite. A canary runs them against its canary Service before promotion (an analysis step); a
   * rolling app runs them after each sync (a PostSync hook).
   */
  scenarios: z.array(scenario).min(1, { error: 'lists no scenario: name at least one spec file of the suite.' }).readonly(),
  /**
   * The public URL users reach the app at, for the PostSync hook and the smoke run. @default - the app's stable
   * Service inside the cluster
   */
  baseURL: baseURL.optional(),
  /**
   * Also run the SSO federation journey against `baseURL` (after a rolling app's sync and in the smoke run; a canary's
   * SSO callback lands on the public hostname, i.e. on the stable pods, so its gate skips it). @default false
   */
  sso: z.boolean().default(false),
  /** Run the journeys in the smoke CronJobs too. @default true */
  smoke: z.boolean().default(true),
}).readonly();
