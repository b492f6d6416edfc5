import { helmValuesFile, RenderedStep } from './render-steps';
import {
  ApiEndpointsWithinPrecondition, GitMirrorCurrentPrecondition, HelmReleaseSpec, LocalFileSpec, NoteWhenExistsPrecondition,
  SelfSignedTlsSecretPrecondition, SkipWhenPrecondition, StepWait,
} from '../constructs/bootstrap/waits';
import { RemoteManifestSignature } from '../constructs/bootstrap/bootstrap-step';
import { manifestFileName, manifestSha256Problem, manifestUrlProblem, UNPINNED } from '../shared/manifest-integrity';
import { ipv4CidrProblem } from '../shared/network';
import { MIN_HELM_VERSION } from '../shared/pins';

/**
 * The cluster the runbook may change, as far as the caller knows it. The runbook always shows the current kube
 * context, its API server and the UID of its `kube-system` namespace, and asks before the first change; each
 * field set here must also match, or the runbook refuses.
 */
export interface ExpectedCluster {
  /**
   * Name of the kube context (`kubectl config current-context`).
   * @default - any context
   */
  readonly context?: string;
  /**
   * URL of the API server as the kubeconfig names it (`kubectl config view --minify -o jsonpath='{.clusters[0].cluster.server}'`).
   * @default - any API server
   */
  readonly apiServer?: string;
  /**
   * UID of the `kube-system` namespace (`kubectl get namespace kube-system -o jsonpath='{.metadata.uid}'`): it is
   * created with the cluster, so it tells a rebuilt cluster from the old one behind the same name and address.
   * @default - any cluster
   */
  readonly kubeSystemUid?: string;
}

/** Options for `renderRunbook()`. */
export interface RunbookOptions {
  /**
   * Oldest kubectl client the runbook accepts, `MAJOR.MINOR` or `MAJOR.MINOR.PATCH` (e.g. `'1.29'`).
   * The script checks `kubectl version --client` against it before it touches the cluster.
   */
  readonly minKubectlVersion: string;

  /**
   * Oldest helm client the runbook accepts when a step is a Helm release, `MAJOR.MINOR[.PATCH]`; checked next to
   * kubectl before it touches the cluster.
   *
   * @default MIN_HELM_VERSION (lib/shared/pins.ts)
   */
  readonly minHelmVersion?: string;

  /**
   * First line of the script's header comment and of its output.
   *
   * @default 'Homelab Phase-0 bootstrap'
   */
  readonly title?: string;

  /**
   * Seconds between two tries of a polling wait (webhook probes, Job status); fractions such as 0.25 are
   * allowed (GNU and busybox `sleep` take them). Timeouts stay whole seconds.
   *
   * @default 5
   */
  readonly pollIntervalSeconds?: number;

  /**
   * Seconds kubectl waits for any one request to the API server (`--request-timeout`), so no call hangs on an
   * unreachable cluster. Waits keep their own `--timeout`.
   *
   * @default 60
   */
  readonly requestTimeoutSeconds?: number;

  /**
   * The cluster the runbook may change.
   *
   * @default - none pinned: the runbook shows the cluster and asks (or takes `--yes`)
   */
  readonly expectedCluster?: ExpectedCluster;

  /**
   * The sha256 of every remote manifest a step applies (64 lower-case hex digits, as `sha256sum` prints them), keyed
   * by its URL, or `'unpinned'`. Each URL a step applies needs an entry; entries no step applies are not used (the
   * homelab reports them as stale pins of its config: lib/homelab/manifest-pins.ts).
   *
   * @default {} (only steps without remote manifests)
   */
  readonly manifestSha256?: Readonly<Record<string, string>>;
}

/** Folder of already-downloaded release manifests the runbook reads before it downloads one, and keeps downloads in. */
export const MANIFESTS_VARIABLE = 'HOMELAB_MANIFESTS';

/** Prefix of the server-side-apply field manager; each step applies as `<prefix>-<stepName>`. */
export const FIELD_MANAGER_PREFIX = 'homelab-bootstrap';

/** The field manager a step's objects are applied with, distinct per step so no step strips another's fields. */
export function fieldManagerFor(step: RenderedStep): string {
  return `${FIELD_MANAGER_PREFIX}-${step.step.stepName}`;
}


/**
 * Renders `dist/bootstrap/bootstrap.sh`: a bash runbook that applies every planned step in order with
 * `kubectl apply --server-side` and, after each step, performs its waits, so each step starts only when
 * what it needs is really serving. It needs bash, coreutils and kubectl (and helm, openssl, curl or git when a step
 * does), and is safe to re-run. Release manifests are downloaded once and verified before their step applies anything.
 *
 * The script is built from a fixed block of helpers (each prints its plan line under `--dry-run`) followed
 * by one call per action, so the bottom of the file reads as the runbook itself. The output depends only on
 * `planned` and `options`.
 */
export function renderRunbook(planned: readonly RenderedStep[], options: RunbookOptions): string {
  const title = options.title ?? 'Homelab Phase-0 bootstrap';
  const pollIntervalSeconds = options.pollIntervalSeconds ?? 5;
  const requestTimeoutSeconds = options.requestTimeoutSeconds ?? 60;
  const expected = options.expectedCluster ?? {};
  const minHelmVersion = options.minHelmVersion ?? MIN_HELM_VERSION;
  validateOptions(options, pollIntervalSeconds, requestTimeoutSeconds);
  if (!/^\d+\.\d+(\.\d+)?$/.test(minHelmVersion)) {
    throw new Error(`runbook: minHelmVersion must be MAJOR.MINOR or MAJOR.MINOR.PATCH (e.g. '3.8'), got '${minHelmVersion}'`);
  }
  const usesHelm = planned.some((p) => p.applyFlag === 'helm');
  const usesOpenssl = planned.some((p) => p.step.preconditions.some((pre) => pre.kind === 'self-signed-tls-secret'));
  const files = localFiles(planned);
  const manifests = remoteManifests(planned, options.manifestSha256 ?? {});
  const usesGit = planned.some((p) => p.step.preconditions.some((pre) => pre.kind === 'git-mirror-current'));
  const needs = [
    'bash', 'coreutils', 'sed', 'grep', `kubectl >= ${options.minKubectlVersion}`,
    ...(usesHelm ? [`helm >= ${minHelmVersion}`] : []),
    ...(usesOpenssl ? ['openssl (makes self-signed TLS certificates)'] : []),
    ...(manifests.length > 0 ? [`curl (downloads the pinned release manifests, unless $${MANIFESTS_VARIABLE} has them)`] : []),
    ...(usesGit ? ['git (reads the GitHub seed\'s branch)'] : []),
  ];
  const manifestHelp = manifests.length === 0 ? [] : [
    'Each is verified against its sha256 pin (manifestSha256 in the homelab config) before anything of its step',
    'is applied; a mismatch stops the runbook. Where upstream signs one, cosign (when installed) verifies that too.',
    `  ${MANIFESTS_VARIABLE}  folder of already-downloaded release manifests, each named as its URL ends`,
    `    (${[...new Set(manifests.map((m) => m.fileName))].join(', ')}): read there instead of downloaded, verified the`,
    '    same way; a manifest missing there is downloaded into it, so a re-run needs no network.',
  ];

  const when = (f: LocalFileSpec) => (f.checkedAt === 'step' ? ' [checked at its step]' : '');
  const env = files.map((f) => `#   ${f.variable.padEnd(20)} ${oneLine(f.hint)} (default: ${oneLine(f.defaultPath)})${when(f)}`);
  const usageEnv = files.map((f) => `  ${f.variable.padEnd(20)} ${oneLine(f.hint)} (default: ${oneLine(f.defaultPath)})${when(f)}`);
  const variables = new Set(files.map((f) => f.variable));
  const lines = [
    '#!/usr/bin/env bash',
    `# ${oneLine(title)}`,
    '#',
    '# Generated by lib/output/render-runbook.ts when the homelab is synthesized; do not edit by hand.',
    '# Applies every bootstrap step in order with `kubectl apply --server-side` and, after each step, waits for',
    '# exactly what the next step needs. Safe to re-run: applies are idempotent and finished waits pass at once.',
    '#',
    `# Needs: ${needs.slice(0, -1).join(', ')} and ${needs[needs.length - 1]}.`,
    `# Every kubectl request gives up after ${requestTimeoutSeconds}s (--request-timeout); waits have their own timeouts.`,
    '#',
    '# Usage: bootstrap.sh [--dry-run] [--yes] [--help]',
    '#',
    '# Before the first change it checks every local key file, shows the cluster (kube context, API server,',
    '# kube-system UID), refuses one that differs from the config\'s `cluster`, and asks; --yes answers for you.',
    '#',
    '# Steps:',
    ...planned.map((p) => `#   ${String(p.index).padStart(2)}. ${p.step.stepName}: ${oneLine(p.step.summary)}`),
    ...(env.length > 0 ? ['#', '# Local files (override the path with the variable):', ...env] : []),
    ...(manifestHelp.length > 0 ? ['#', '# Release manifests:', ...manifestHelp.map((l) => `#   ${l}`)] : []),
    'set -euo pipefail',
    '',
    'DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"',
    `TITLE=${shq(oneLine(title))}`,
    `MIN_KUBECTL_VERSION=${shq(options.minKubectlVersion)}`,
    ...(usesHelm ? [`MIN_HELM_VERSION=${shq(minHelmVersion)}`] : []),
    `STEPS=${planned.length}`,
    `POLL_SECONDS=${pollIntervalSeconds}`,
    `REQUEST_TIMEOUT=${requestTimeoutSeconds}s`,
    `EXPECTED_CONTEXT=${shq(expected.context ?? '')}`,
    `EXPECTED_API_SERVER=${shq(expected.apiServer ?? '')}`,
    `EXPECTED_KUBE_SYSTEM_UID=${shq(expected.kubeSystemUid ?? '')}`,
    'DRY_RUN=0',
    'ASSUME_YES=0',
    "PROBLEM=''",
    "FIX=''",
    "STAGING=''",
    "CURRENT_STEP='preflight'",
    // steps skip_when found the cluster already past, and the reason of the last one
    'SKIPPED=0',
    "SKIPPED_WHY=''",
    // the context confirm_cluster showed and confirmed; helm is pointed at it explicitly
    "KUBE_CONTEXT=''",
    ...(manifests.length > 0 ? [`${MANIFESTS_VARIABLE}="\${${MANIFESTS_VARIABLE}:-}"`] : []),
    '',
    'usage() {',
    "  cat <<'USAGE'",
    'Usage: bootstrap.sh [--dry-run] [--yes] [--help]',
    '',
    `${oneLine(title)}: applies every step in order with kubectl apply --server-side`,
    'and waits after each one for what the next step needs. Safe to re-run.',
    'Before the first change it shows the cluster and asks for confirmation.',
    '',
    '  --dry-run  print every step, file, precondition and wait; run no kubectl command',
    '  --yes      confirm the cluster without asking (it must still match the config)',
    '  --help     show this help',
    ...(usageEnv.length > 0 ? ['', 'Local files (override the path with the variable):', ...usageEnv] : []),
    ...(manifestHelp.length > 0 ? ['', 'Release manifests:', ...manifestHelp.map((l) => `  ${l}`)] : []),
    'USAGE',
    '}',
    '',
    HELPERS,
    '',
    '# ------------------------------------------------------------------------------------------------',
    '# The runbook',
    '',
    'while [ $# -gt 0 ]; do',
    '  case "$1" in',
    '    --dry-run) DRY_RUN=1 ;;',
    '    -y | --yes) ASSUME_YES=1 ;;',
    '    -h | --help) usage; exit 0 ;;',
    '    *) printf \'unknown option: %s\\n\\n\' "$1" >&2; usage >&2; exit 2 ;;',
    '  esac',
    '  shift',
    'done',
    '',
    ...files.map((f) => `default_path ${f.variable} ${homePath(f.defaultPath)}`),
    'begin',
    'check_kubectl',
    ...(usesHelm ? ['check_helm'] : []),
    ...(usesOpenssl ? ['check_openssl'] : []),
    ...(manifests.length > 0 ? [`check_manifest_tools ${manifests.filter((m) => m.signature).length} ${[...new Set(manifests.map((m) => m.fileName))].map(shq).join(' ')}`] : []),
    ...files.filter((f) => f.checkedAt !== 'step').map(needFile),
    'confirm_cluster',
    ...planned.flatMap((p) => ['', ...renderStep(p, variables, options.manifestSha256 ?? {})]),
    '',
    'finish',
    '',
  ];
  return lines.join('\n');
}

function validateOptions(options: RunbookOptions, pollIntervalSeconds: number, requestTimeoutSeconds: number): void {
  if (!/^\d+\.\d+(\.\d+)?$/.test(options.minKubectlVersion)) {
    throw new Error(`runbook: minKubectlVersion must be MAJOR.MINOR or MAJOR.MINOR.PATCH (e.g. '1.29'), got '${options.minKubectlVersion}'`);
  }
  // `sleep` takes a plain decimal; fractions serve tests that must poll several times within a short timeout.
  if (!(pollIntervalSeconds >= 0.1) || !/^\d+(\.\d{1,3})?$/.test(String(pollIntervalSeconds))) {
    throw new Error('runbook: pollIntervalSeconds must be a number of seconds of at least 0.1 with at most 3 decimals '
      + `(e.g. 5 or 0.25), got ${pollIntervalSeconds}`);
  }
  if (!Number.isInteger(requestTimeoutSeconds) || requestTimeoutSeconds < 1) {
    throw new Error(`runbook: requestTimeoutSeconds must be a whole number of seconds of at least 1, got ${requestTimeoutSeconds}`);
  }
  for (const [field, value] of Object.entries(options.expectedCluster ?? {})) {
    if (typeof value === 'string' && (value === '' || /[\s\x00-\x1f\x7f]/.test(value))) {
      throw new Error(`runbook: expectedCluster.${field} must be non-empty, without spaces or control characters, got ${JSON.stringify(value)}`);
    }
  }
}

/** The local files the steps read, one per variable, in step order; throws on conflicting defaults. */
function localFiles(planned: readonly RenderedStep[]): LocalFileSpec[] {
  const byVariable = new Map<string, { file: LocalFileSpec; stepName: string }>();
  for (const p of planned) {
    for (const pre of p.step.preconditions) {
      if (pre.kind !== 'local-file' && pre.kind !== 'secret-from-file' && pre.kind !== 'secret-from-env-file') continue;
      const stepName = p.step.stepName;
      if (pre.kind === 'secret-from-env-file' && pre.format !== 'env-file') {
        throw new Error(`bootstrap step '${stepName}': Secret ${pre.namespace}/${pre.name} from ${pre.variable} reads an env file; its format must be 'env-file'`);
      }
      if (pre.format === 'env-file' && (pre.envKeys ?? []).length === 0) {
        throw new Error(`bootstrap step '${stepName}': the env file ${pre.variable} must name the keys it sets (envKeys)`);
      }
      for (const key of pre.envKeys ?? []) {
        if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(key)) {
          throw new Error(`bootstrap step '${stepName}': env-file key '${key}' of ${pre.variable} must be letters, digits and _, not starting with a digit`);
        }
      }
      if (!/^[A-Z_][A-Z0-9_]*$/.test(pre.variable)) {
        throw new Error(`bootstrap step '${stepName}': local-file variable '${pre.variable}' must be an upper-case shell variable name ` +
          '(letters, digits and _, e.g. SEED_DEPLOY_KEY)');
      }
      if (pre.kind === 'local-file' && pre.copyAs !== undefined) {
        if (p.applyFlag !== '-k') {
          throw new Error(`bootstrap step '${stepName}': local file ${pre.variable} has copyAs '${pre.copyAs}', but the step is a ` +
            'single manifest file. copyAs needs a kustomization step (useKustomization) whose generator reads the file.');
        }
        if (!/^[A-Za-z0-9._-]+$/.test(pre.copyAs) || pre.copyAs === '.' || pre.copyAs === '..') {
          throw new Error(`bootstrap step '${stepName}': copyAs of local file ${pre.variable} must be a plain file name, got '${pre.copyAs}'`);
        }
      }
      const seen = byVariable.get(pre.variable);
      if (seen && seen.file.defaultPath !== pre.defaultPath) {
        throw new Error(`bootstrap steps '${seen.stepName}' and '${stepName}' both read ${pre.variable} but default it to different files ` +
          `('${seen.file.defaultPath}' and '${pre.defaultPath}'). Use one path, or a separate variable per file.`);
      }
      if (seen && (seen.file.envKeys ?? []).join(',') !== (pre.envKeys ?? []).join(',')) {
        throw new Error(`bootstrap steps '${seen.stepName}' and '${stepName}' both read ${pre.variable} but expect different keys ` +
          `(${(seen.file.envKeys ?? []).join(', ')} and ${(pre.envKeys ?? []).join(', ')}). Use one set of keys, or a separate variable per file.`);
      }
      if (seen && seen.file.format !== pre.format) {
        throw new Error(`bootstrap steps '${seen.stepName}' and '${stepName}' both read ${pre.variable} but expect different formats ` +
          `(${seen.file.format ?? 'any'} and ${pre.format ?? 'any'}). Use one format, or a separate variable per file.`);
      }
      if (!seen) byVariable.set(pre.variable, { file: pre, stepName });
      // a file that one step needs before the first change is checked then, even if another checks it at its step
      else if (seen.file.checkedAt === 'step' && pre.checkedAt !== 'step') byVariable.set(pre.variable, { file: { ...seen.file, checkedAt: 'preflight' }, stepName: seen.stepName });
    }
  }
  return [...byVariable.values()].map((v) => v.file);
}

function needFile(f: LocalFileSpec): string {
  return [`need_file ${f.variable} ${f.format ?? 'any'} ${shq(oneLine(f.hint))}`, ...(f.envKeys ?? [])].join(' ');
}

/** The `ensure_tls_secret` call of a self-signed TLS Secret. */
function renderTlsSecret(stepName: string, t: SelfSignedTlsSecretPrecondition): string {
  const dnsName = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
  if (!/^[A-Za-z0-9][A-Za-z0-9 ._-]*$/.test(t.commonName) || !t.dnsNames.every((d) => dnsName.test(d))) {
    throw new Error(`bootstrap step '${stepName}': TLS Secret ${t.namespace}/${t.name} needs a plain common name and DNS names ` +
      `(letters, digits, '.', '-'), got '${t.commonName}' and [${t.dnsNames.join(', ')}]`);
  }
  if (!Number.isInteger(t.validityDays) || !Number.isInteger(t.renewWithinDays) || t.renewWithinDays < 1 || t.validityDays <= t.renewWithinDays) {
    throw new Error(`bootstrap step '${stepName}': TLS Secret ${t.namespace}/${t.name} needs whole days with validityDays (${t.validityDays}) ` +
      `greater than renewWithinDays (${t.renewWithinDays}) >= 1, or every re-run would make it again`);
  }
  return [`ensure_tls_secret ${shq(stepName)} ${shq(t.namespace)} ${shq(t.name)} ${t.usage} ${shq(t.commonName)}`,
    `${t.validityDays} ${t.renewWithinDays}`, ...t.dnsNames.map(shq)].join(' ');
}

/**
 * The calls of one step: header, checks, Job deletions, apply, waits. `variables`: the local files' variables. A step
 * with a `skip-when` precondition runs everything after its header only when `skip_when` finds the cluster not past it.
 */
function renderStep(p: RenderedStep, variables: ReadonlySet<string>, manifestSha256: Readonly<Record<string, string>>): string[] {
  const header = `step ${p.index} ${shq(p.step.stepName)} ${shq(oneLine(p.step.summary))}`;
  const skips = p.step.preconditions.filter((pre): pre is SkipWhenPrecondition => pre.kind === 'skip-when');
  if (skips.length > 1) {
    throw new Error(`bootstrap step '${p.step.stepName}' has ${skips.length} skip-when preconditions; at most one is allowed ` +
      '(the step is skipped when its one field has its value).');
  }
  if (skips.length === 0) return [header, ...stepBody(p, variables, manifestSha256)];
  return [header, `if ! ${renderSkipWhen(p.step.stepName, skips[0])}; then`, ...stepBody(p, variables, manifestSha256).map((l) => `  ${l}`), 'fi'];
}

/** What a step does once it is not skipped: checks, Job deletions, apply, waits. */
function stepBody(p: RenderedStep, variables: ReadonlySet<string>, manifestSha256: Readonly<Record<string, string>>): string[] {
  const name = p.step.stepName;
  // Read-only checks of the cluster come first, so a failed one stops the step before any of its changes.
  // Release manifests are downloaded and verified first: a mismatch stops the step before any of its changes.
  const remote = p.step.kustomization?.remoteResources ?? [];
  const lines: string[] = remote.map((url) => renderFetchManifest(p, url, manifestSha256));
  lines.push(...p.step.preconditions
    .filter((pre): pre is ApiEndpointsWithinPrecondition => pre.kind === 'api-endpoints-within')
    .map((pre) => renderApiEndpointsCheck(name, pre)));
  for (const pre of p.step.preconditions) {
    // local files are checked once, before anything is applied (see renderRunbook), unless checked at their step.
    if ((pre.kind === 'local-file' || pre.kind === 'secret-from-file' || pre.kind === 'secret-from-env-file') && pre.checkedAt === 'step') {
      lines.push(needFile(pre));
    }
    if (pre.kind === 'note-when-exists') lines.push(renderNoteWhenExists(name, pre));
    if (pre.kind === 'self-signed-tls-secret') lines.push(renderTlsSecret(name, pre));
    if (pre.kind === 'secret-from-env-file') {
      lines.push(`install_secret_env_file ${shq(name)} ${shq(pre.namespace)} ${shq(pre.name)} ${pre.variable}`);
    }
    if (pre.kind === 'git-mirror-current') lines.push(renderMirrorCheck(name, pre, variables));
    if (pre.kind === 'secret-exists') lines.push(`need_secret ${shq(pre.namespace)} ${shq(pre.name)} ${shq(oneLine(pre.hint))}`);
    if (pre.kind === 'generated-secret') {
      if (!/^[-._a-zA-Z0-9]+$/.test(pre.key) || !Number.isInteger(pre.bytes) || pre.bytes < 16) {
        throw new Error(`bootstrap step '${name}': generated Secret ${pre.namespace}/${pre.name} needs a plain key and at least 16 bytes`);
      }
      if (pre.encoding !== undefined && pre.encoding !== 'base64' && pre.encoding !== 'hex') {
        throw new Error(`bootstrap step '${name}': generated Secret ${pre.namespace}/${pre.name} has encoding '${String(pre.encoding)}'; ` +
          "use 'base64' or 'hex'");
      }
      // The encoding is only named when it is not the default, so the calls of existing Secrets stay as they were.
      const encoding = pre.encoding === 'hex' ? ' hex' : '';
      lines.push(`ensure_secret ${shq(pre.namespace)} ${shq(pre.name)} ${shq(pre.key)} ${pre.bytes}${encoding}`);
    }
    if (pre.kind === 'secret-from-file') {
      if (!/^[-._a-zA-Z0-9]+$/.test(pre.key)) {
        throw new Error(`bootstrap step '${name}': Secret ${pre.namespace}/${pre.name} from ${pre.variable} needs a plain key ` +
          `(letters, digits, '-', '_', '.'), got '${pre.key}'`);
      }
      lines.push(`install_secret_file ${shq(name)} ${shq(pre.namespace)} ${shq(pre.name)} ${shq(pre.key)} ${pre.variable}`);
    }
  }
  // Jobs are immutable: deleting them lets the re-applied Job run (and its wait pass) again.
  for (const job of jobsOf(p)) lines.push(`delete_job ${shq(job.namespace)} ${shq(job.name)}`);
  const copies = p.step.preconditions.flatMap((pre) => (pre.kind === 'local-file' && pre.copyAs !== undefined ? [`${pre.variable}=${pre.copyAs}`] : []));
  if (p.applyFlag === 'helm') {
    lines.push(renderHelmRelease(p));
  } else if (copies.length > 0 || remote.length > 0) {
    // The verified manifests go into the private copy next to its kustomization (kustomize's load restrictor refuses
    // files outside its root), which then names them instead of their URLs.
    lines.push(`apply_staged ${shq(name)} ${shq(p.fileName)} ${[...remote, ...copies].map(shq).join(' ')}`);
  } else {
    lines.push(`apply ${shq(name)} ${p.applyFlag} ${shq(p.fileName)}`);
  }
  lines.push(...p.step.waits.map(renderWait));
  return lines;
}

/** A release manifest a step applies by URL, with its pin and the name of its verified copy. */
interface RemoteManifest {
  readonly stepName: string;
  readonly url: string;
  /** 64 lower-case hex digits, or `UNPINNED`. */
  readonly sha256: string;
  readonly fileName: string;
  readonly signature?: RemoteManifestSignature;
}

/** Files of a kustomization folder a release manifest's copy may not overwrite. */
const KUSTOMIZATION_FILES = new Set(['kustomization.yaml', 'kustomization.yml', 'Kustomization', 'resources.yaml', 'values.yaml']);

/**
 * Every release manifest the steps apply by URL, in step order, checked against `manifestSha256`: each has a pin,
 * file names are plain and tell the URLs apart (the offline folder holds them side by side), and no
 * copy overwrites a file of its step.
 */
function remoteManifests(planned: readonly RenderedStep[], manifestSha256: Readonly<Record<string, string>>): RemoteManifest[] {
  const out: RemoteManifest[] = [];
  const byFileName = new Map<string, string>();
  for (const p of planned) {
    const k = p.step.kustomization;
    const stepName = p.step.stepName;
    for (const url of k?.remoteResources ?? []) {
      const urlProblem = manifestUrlProblem(url);
      if (urlProblem !== undefined) throw new Error(`bootstrap step '${stepName}': ${urlProblem}`);
      const sha256 = manifestSha256[url];
      if (sha256 === undefined) {
        throw new Error(`runbook: bootstrap step '${stepName}' applies ${url}, which manifestSha256 does not pin. Add its sha256 ` +
          `(\`curl -fsSL ${url} | sha256sum\`), or '${UNPINNED}'.`);
      }
      const shaProblem = manifestSha256Problem(sha256);
      if (shaProblem !== undefined) throw new Error(`runbook: manifestSha256 of ${url}: ${shaProblem}`);
      const fileName = manifestFileName(url)!;
      const seen = byFileName.get(fileName);
      if (seen !== undefined && seen !== url) {
        throw new Error(`runbook: ${seen} and ${url} end in the same file name '${fileName}'; the runbook stores release manifests by ` +
          'that name (next to the kustomization and in the offline folder), so they must differ.');
      }
      byFileName.set(fileName, url);
      const copies = p.step.preconditions.flatMap((pre) => (pre.kind === 'local-file' && pre.copyAs !== undefined ? [pre.copyAs] : []));
      if (KUSTOMIZATION_FILES.has(fileName) || fileName.startsWith('patch-') || copies.includes(fileName)) {
        throw new Error(`bootstrap step '${stepName}': the copy of ${url} would be '${fileName}', a file of the step's own folder; ` +
          'the runbook puts the verified manifest there under that name.');
      }
      const signature = k?.signatures?.find((sig) => sig.manifestUrl === url);
      out.push({ stepName, url, sha256, fileName, ...(signature ? { signature } : {}) });
    }
  }
  return out;
}

/** The `fetch_manifest` call of one release manifest of a step. */
function renderFetchManifest(p: RenderedStep, url: string, manifestSha256: Readonly<Record<string, string>>): string {
  const signature = p.step.kustomization?.signatures?.find((sig) => sig.manifestUrl === url);
  const args = [p.step.stepName, url, manifestSha256[url]];
  if (signature) args.push(signature.bundleUrl, signature.certificateIdentity, signature.certificateOidcIssuer);
  return `fetch_manifest ${args.map(shq).join(' ')}`;
}

/** The Jobs a step applies, with the namespace they end up in (kustomize's `namespace` wins). */
function jobsOf(p: RenderedStep): { namespace: string; name: string }[] {
  return p.objects
    .filter((o) => o.kind === 'Job' && typeof o.apiVersion === 'string' && o.apiVersion.startsWith('batch/'))
    .map((o) => {
      const namespace = p.step.kustomization?.namespace ?? o.metadata?.namespace;
      if (!namespace) {
        throw new Error(`bootstrap step '${p.step.stepName}': Job '${o.metadata?.name}' has no namespace. ` +
          'Set metadata.namespace, so the runbook deletes and waits for the Job where it really runs.');
      }
      return { namespace, name: o.metadata.name };
    });
}

/** The `helm_release` call of a Helm release step. */
function renderHelmRelease(p: RenderedStep): string {
  const r: HelmReleaseSpec | undefined = p.step.helmRelease;
  if (!r) throw new Error(`internal: bootstrap step '${p.step.stepName}' is placed as a Helm release but has none`);
  if (!/^https:\/\/[^\s'"]+$/.test(r.repoURL)) {
    throw new Error(`bootstrap step '${p.step.stepName}': the chart repository must be an https:// Helm repository URL, got '${r.repoURL}'`);
  }
  if (!/^v?\d+\.\d+\.\d+([-+][0-9A-Za-z.-]+)?$/.test(r.version)) {
    throw new Error(`bootstrap step '${p.step.stepName}': the chart version must be exact (e.g. 1.20.0), got '${r.version}'`);
  }
  return `helm_release ${shq(p.step.stepName)} ${shq(r.releaseName)} ${shq(r.chart)} ${shq(r.repoURL)} ${shq(r.version)} ` +
    `${shq(r.namespace)} ${r.createNamespace ? 1 : 0} ${shq(helmValuesFile(p))} ${seconds(r.timeoutSeconds)}`;
}

/** The `skip_when` call of a step's `skip-when` precondition: succeeds when the step is skipped. */
function renderSkipWhen(stepName: string, s: SkipWhenPrecondition): string {
  if (!/^[a-z0-9]([-a-z0-9.]*[a-z0-9])?\/[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/.test(s.resource)) {
    throw new Error(`bootstrap step '${stepName}': skip-when resource must be '<resource>/<name>' in kubectl's lower-case form ` +
      `(e.g. 'applications.argoproj.io/root'), got '${s.resource}'`);
  }
  if (!/^\{\.[^{}\s]+\}$/.test(s.jsonPath)) {
    throw new Error(`bootstrap step '${stepName}': skip-when jsonPath must be one kubectl JSONPath field such as '{.spec.source.repoURL}', ` +
      `got '${s.jsonPath}'`);
  }
  if (s.equals === '' || /[\x00-\x1f\x7f]/.test(s.equals)) {
    // a missing field reads as empty: skipping on an empty value would skip on a cluster that is not past the step
    throw new Error(`bootstrap step '${stepName}': skip-when equals must be a non-empty single-line value, got ${JSON.stringify(s.equals)}`);
  }
  if (s.reason.trim() === '') throw new Error(`bootstrap step '${stepName}': skip-when needs a reason, printed when the step is skipped`);
  return `skip_when ${shq(s.resource)} ${shq(s.namespace ?? '')} ${shq(s.jsonPath)} ${shq(s.equals)} ${shq(oneLine(s.reason))}`;
}

/** The `check_api_endpoints` call of a step's `api-endpoints-within` precondition. */
function renderApiEndpointsCheck(stepName: string, c: ApiEndpointsWithinPrecondition): string {
  if (c.cidrs.length === 0) throw new Error(`bootstrap step '${stepName}': api-endpoints-within needs at least one CIDR (${c.cidrsSetting})`);
  for (const cidr of c.cidrs) {
    const problem = ipv4CidrProblem(cidr);
    if (problem !== undefined) throw new Error(`bootstrap step '${stepName}': api-endpoints-within ${c.cidrsSetting}: ${problem}`);
  }
  if (!Number.isInteger(c.port) || c.port < 1 || c.port > 65535) {
    throw new Error(`bootstrap step '${stepName}': api-endpoints-within ${c.portSetting} must be a TCP port (1-65535), got ${c.port}`);
  }
  for (const [field, value] of [['cidrsSetting', c.cidrsSetting], ['portSetting', c.portSetting]] as const) {
    if (!/^[A-Za-z0-9_.[\]-]+$/.test(value)) {
      throw new Error(`bootstrap step '${stepName}': api-endpoints-within ${field} must name a setting such as 'network.kubernetesApiPort', got '${value}'`);
    }
  }
  if (c.consequence.trim() === '') throw new Error(`bootstrap step '${stepName}': api-endpoints-within needs a consequence, printed when it fails`);
  return `check_api_endpoints ${shq(c.cidrs.join(' '))} ${c.port} ${shq(c.cidrsSetting)} ${shq(c.portSetting)} ${shq(oneLine(c.consequence))}`;
}

/** The `note_when_exists` call of a step's `note-when-exists` precondition. */
function renderNoteWhenExists(stepName: string, n: NoteWhenExistsPrecondition): string {
  if (!/^[a-z0-9]([-a-z0-9.]*[a-z0-9])?\/[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/.test(n.resource)) {
    throw new Error(`bootstrap step '${stepName}': note-when-exists resource must be '<resource>/<name>' in kubectl's lower-case form ` +
      `(e.g. 'clusters.postgresql.cnpg.io/forgejo-db'), got '${n.resource}'`);
  }
  for (const [field, value] of [['description', n.description], ['whenExists', n.whenExists]] as const) {
    if (value.trim() === '') throw new Error(`bootstrap step '${stepName}': note-when-exists on ${n.resource} needs a ${field}, printed by the runbook`);
  }
  return [`note_when_exists ${shq(n.resource)} ${shq(n.namespace ?? '')} ${shq(oneLine(n.description))} ${shq(oneLine(n.whenExists))}`,
    ...(n.whenAbsent === undefined ? [] : [shq(oneLine(n.whenAbsent))])].join(' ');
}

function renderMirrorCheck(stepName: string, m: GitMirrorCurrentPrecondition, variables: ReadonlySet<string>): string {
  for (const variable of [m.seedKeyVariable, m.tokenVariable]) {
    if (!variables.has(variable)) {
      throw new Error(`bootstrap step '${stepName}': the mirror check reads $${variable}, but no step declares that local file. ` +
        'Declare it with a local-file precondition, so the runbook knows its default path and checks it.');
    }
  }
  if (!/^[A-Za-z0-9._/-]+$/.test(m.branch) || m.branch === 'HEAD' || /^[0-9a-f]{40}$/.test(m.branch)) {
    throw new Error(`bootstrap step '${stepName}': the mirror check compares a branch, got '${m.branch}'. ` +
      'After the cutover git.targetRevision must name a branch (e.g. main), which the pull-mirror follows.');
  }
  for (const [field, value] of [['repoOwner', m.repoOwner], ['repoName', m.repoName]]) {
    if (!/^[A-Za-z0-9._-]+$/.test(value)) throw new Error(`bootstrap step '${stepName}': mirror ${field} must be a plain name, got '${value}'`);
  }
  if (!Number.isInteger(m.forgejoPort) || m.forgejoPort < 1 || m.forgejoPort > 65535) {
    throw new Error(`bootstrap step '${stepName}': forgejoPort must be a TCP port, got ${m.forgejoPort}`);
  }
  return [`verify_mirror ${seconds(m.timeoutSeconds)} ${shq(m.seedUrl)} ${m.seedKeyVariable} ${shq(m.branch)}`,
    `${shq(m.forgejoNamespace)} ${shq(m.forgejoDeployment)} ${m.forgejoPort} ${shq(m.repoOwner)} ${shq(m.repoName)}`,
    `${m.tokenVariable} ${shq(oneLine(m.hint))}`].join(' ');
}

function renderWait(w: StepWait): string {
  switch (w.kind) {
    case 'rollout':
      return `wait_rollout ${shq(w.namespace)} ${shq(`deployment/${w.deployment}`)} ${seconds(w.timeoutSeconds)}`;
    case 'statefulset-rollout':
      return `wait_rollout ${shq(w.namespace)} ${shq(`statefulset/${w.statefulSet}`)} ${seconds(w.timeoutSeconds)}`;
    case 'daemonset-rollout':
      return `wait_rollout ${shq(w.namespace)} ${shq(`daemonset/${w.daemonSet}`)} ${seconds(w.timeoutSeconds)}`;
    case 'object-exists':
      if ((w.jsonPath === undefined) !== (w.equals === undefined)) {
        throw new Error(`runbook: the wait '${w.description}' needs both jsonPath and equals, or neither`);
      }
      return `wait_object ${seconds(w.timeoutSeconds)} ${shq(w.resource)} ${shq(w.namespace ?? '')} ${shq(w.jsonPath ?? '')} ` +
        `${shq(w.equals ?? '')} ${shq(oneLine(w.description))}`;
    case 'crds-established':
      return `wait_crds ${seconds(w.timeoutSeconds)} ${w.crds.map(shq).join(' ')}`;
    case 'webhook-serving':
      return `wait_webhook ${seconds(w.timeoutSeconds)} ${shq(oneLine(w.description))} ${shq(JSON.stringify(w.probe))}`;
    case 'condition':
      return `wait_condition ${shq(w.namespace)} ${shq(w.resource)} ${shq(w.condition)} ${shq(w.messagePath)} ${seconds(w.timeoutSeconds)}`;
    case 'job-complete':
      return [`wait_job ${shq(w.namespace)} ${shq(w.job)} ${seconds(w.timeoutSeconds)}`,
        ...(w.failWhen ?? []).map((f) => {
          if (f.values.length === 0 || f.values.some((v) => v === '' || v.includes('|'))) {
            throw new Error(`wait for Job ${w.namespace}/${w.job}: the values that fail it must be non-empty and hold no '|': ${JSON.stringify(f.values)}`);
          }
          return `--fail-when ${shq(f.resource)} ${shq(f.jsonPath)} ${shq(f.values.join('|'))}`;
        }),
        ...w.watched.map((x) => `${shq(x.resource)} ${shq(x.messagePath)}`)].join(' ');
  }
}

function seconds(n: number): string {
  if (!Number.isInteger(n) || n < 1) throw new Error(`runbook: a wait timeout must be a whole number of seconds of at least 1, got ${n}`);
  return String(n);
}

/** Quotes `s` for bash: bare when it has only safe characters, else in single quotes. */
function shq(s: string): string {
  if (/^[A-Za-z0-9_@%+=:,./-]+$/.test(s)) return s;
  return `'${s.replace(/'/g, '\'\\\'\'')}'`;
}

/** A path for bash, with a leading `~` as `"$HOME"` (a quoted `~` would not expand). */
function homePath(p: string): string {
  if (p === '~') return '"$HOME"';
  if (p.startsWith('~/')) return p.length > 2 ? `"$HOME"/${shq(p.slice(2))}` : '"$HOME"/';
  return shq(p);
}

/** Text for a comment, a usage line or a message: one line. */
function oneLine(s: string): string {
  return s.replace(/\s*\n\s*/g, ' ');
}

/**
 * The script's helpers. Each action helper prints its plan line and returns under `--dry-run`, so the dry
 * run walks the very same calls as the real run. Written for bash 3.2 too (macOS): no `local -n`, no
 * `${var@Q}`, and no empty arrays under `set -u`.
 */
const HELPERS = `# ------------------------------------------------------------------------------------------------
# Helpers. Under --dry-run every action prints what it would do and runs no kubectl command.

if [ -t 1 ]; then CLEAR_LINE=$'\\r\\033[K'; else CLEAR_LINE=''; fi

dry_run() { [ "$DRY_RUN" = 1 ]; }

cleanup() {
  if [ -n "$STAGING" ]; then rm -rf "$STAGING"; fi
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

plan() { # what detail
  printf '  %-7s %s\\n' "$1" "$2"
}

# quote ARG...: the command line, quoted so that it can be pasted into a shell.
quote() {
  local arg line='' q="'"
  for arg in "$@"; do
    case "$arg" in
      '') arg="''" ;;
      *[!A-Za-z0-9_@%+=:,./-]*) arg="$q\${arg//$q/$q\\\\$q$q}$q" ;;
    esac
    line="$line $arg"
  done
  printf '%s' "\${line# }"
}

waiting() { # description timeout: a transient progress line, on a terminal only
  if [ -n "$CLEAR_LINE" ]; then printf '  … %s (up to %ss)' "$1" "$2"; fi
}

passed() { # description start-seconds
  printf '%s  ✓ %s (%ss)\\n' "$CLEAR_LINE" "$1" "$((SECONDS - $2))"
}

failed() { # description start-seconds [detail]: the first lines of a failure report
  printf '%s  ✗ FAILED: %s (after %ss)\\n' "$CLEAR_LINE" "$1" "$((SECONDS - $2))" >&2
  if [ -n "\${3:-}" ]; then printf '%s\\n' "$3" | sed 's/^/    /' >&2; fi
}

# kube ARG...: kubectl with every request to the API server bounded by REQUEST_TIMEOUT. Waits keep their own
# --timeout: kubectl wait and rollout status re-open a watch the request timeout closes.
kube() {
  kubectl "--request-timeout=$REQUEST_TIMEOUT" "$@"
}

# show KUBECTL-ARG...: runs a diagnostic kubectl command and prints it with its output; never fails.
show() {
  local out
  out="$(kube "$@" 2>&1)" || true
  printf '    $ kubectl %s\\n' "$(quote "$@")" >&2
  printf '%s\\n' "\${out:-(no output)}" | sed 's/^/      /' >&2
}

# inspect COMMAND-LINE: says how to look further, then stops the runbook.
inspect() {
  printf '    inspect: %s\\n' "$1" >&2
  abort
}

abort() {
  printf '\\nStopped at %s. Fix the cause, then re-run %s: finished steps pass again at once.\\n' "$CURRENT_STEP" "$0" >&2
  exit 1
}

# default_path VARIABLE PATH: sets VARIABLE to PATH unless the caller set it; expands a leading ~.
default_path() {
  local value="\${!1:-}" tilde='~'
  if [ -z "$value" ]; then value="$2"; fi
  # a path given as '~/...' in quotes reaches us unexpanded
  case "$value" in
    "$tilde") value="$HOME" ;;
    "$tilde"/*) value="$HOME/\${value#"$tilde"/}" ;;
  esac
  printf -v "$1" '%s' "$value"
}

version_at_least() { # have want: MAJOR.MINOR[.PATCH] each
  local h1 h2 h3 w1 w2 w3
  IFS=. read -r h1 h2 h3 <<<"$1"
  IFS=. read -r w1 w2 w3 <<<"$2"
  (( h1 * 1000000 + h2 * 1000 + \${h3:-0} >= w1 * 1000000 + w2 * 1000 + \${w3:-0} ))
}

begin() {
  printf '%s\\n' "$TITLE"
  if dry_run; then printf 'Dry run: prints the plan; runs no kubectl command and changes nothing.\\n'; fi
  printf '\\n[preflight]\\n'
}

check_kubectl() {
  local json version context
  if dry_run; then plan check "kubectl >= $MIN_KUBECTL_VERSION on PATH"; return 0; fi
  if ! command -v kubectl >/dev/null 2>&1; then
    printf '  ✗ FAILED: kubectl not found on PATH\\n    hint: install kubectl >= %s\\n' "$MIN_KUBECTL_VERSION" >&2
    abort
  fi
  json="$(kube version --client -o json 2>&1)" || true
  version="$(printf '%s\\n' "$json" | sed -nE 's/.*"gitVersion": *"v([0-9]+\\.[0-9]+\\.[0-9]+).*/\\1/p')"
  version="\${version%%$'\\n'*}"
  if [ -z "$version" ]; then
    failed "cannot read the client version from kubectl version --client -o json" "$SECONDS" "$json"
    abort
  fi
  if ! version_at_least "$version" "$MIN_KUBECTL_VERSION"; then
    printf '  ✗ FAILED: kubectl %s is older than %s\\n    hint: install kubectl >= %s\\n' "$version" "$MIN_KUBECTL_VERSION" "$MIN_KUBECTL_VERSION" >&2
    abort
  fi
  printf '  ✓ kubectl %s (>= %s)\\n' "$version" "$MIN_KUBECTL_VERSION"
}

check_helm() {
  local version
  if dry_run; then plan check "helm >= $MIN_HELM_VERSION on PATH"; return 0; fi
  if ! command -v helm >/dev/null 2>&1; then
    printf '  ✗ FAILED: helm not found on PATH\\n    hint: install helm >= %s (https://helm.sh/docs/intro/install/); the runbook installs the CNI and the storage with it\\n' "$MIN_HELM_VERSION" >&2
    abort
  fi
  version="$(helm version --template '{{.Version}}' 2>&1)" || true
  version="$(printf '%s\\n' "$version" | sed -nE 's/^v?([0-9]+\\.[0-9]+\\.[0-9]+).*/\\1/p' | head -n 1)"
  if [ -z "$version" ]; then
    failed "cannot read the version from helm version --template '{{.Version}}'" "$SECONDS"
    abort
  fi
  if ! version_at_least "$version" "$MIN_HELM_VERSION"; then
    printf '  ✗ FAILED: helm %s is older than %s\\n    hint: install helm >= %s (https://helm.sh/docs/intro/install/)\\n' "$version" "$MIN_HELM_VERSION" "$MIN_HELM_VERSION" >&2
    abort
  fi
  printf '  ✓ helm %s (>= %s)\\n' "$version" "$MIN_HELM_VERSION"
}

check_openssl() {
  local version
  if dry_run; then plan check "openssl on PATH (makes the self-signed TLS certificates)"; return 0; fi
  if ! command -v openssl >/dev/null 2>&1; then
    printf '  ✗ FAILED: openssl not found on PATH\\n    hint: install OpenSSL 1.1.1 or newer; the runbook makes self-signed TLS certificates with it\\n' >&2
    abort
  fi
  version="$(openssl version 2>&1)" || true
  printf '  ✓ %s\\n' "\${version%%$'\\n'*}"
}

# confirm_cluster: shows which cluster the runbook is about to change (kube context, API server, kube-system
# UID), refuses a cluster that differs from the one the config names, then asks (or takes --yes).
confirm_cluster() {
  local context server uid mismatch='' answer
  if dry_run; then
    plan confirm "the cluster: kube context, API server and kube-system UID$(expected_identity), then ask (--yes: do not ask)"
    return 0
  fi
  if ! context="$(kube config current-context 2>/dev/null)" || [ -z "$context" ]; then
    printf '  ✗ FAILED: kubectl has no current context: the runbook does not know which cluster to change\\n' >&2
    printf '    hint: select the cluster to bootstrap: kubectl config use-context NAME\\n' >&2
    abort
  fi
  server="$(kube config view --minify -o 'jsonpath={.clusters[0].cluster.server}' 2>/dev/null)" || server=''
  if ! uid="$(kube get namespace kube-system -o 'jsonpath={.metadata.uid}' 2>&1)" || [ -z "$uid" ]; then
    failed "read namespace kube-system through kube context $context (API server \${server:-unknown})" "$SECONDS" "$uid"
    inspect "$(quote kubectl --context "$context" get namespace kube-system)"
  fi
  KUBE_CONTEXT="$context"
  printf '  → kube context     %s\\n  → API server       %s\\n  → kube-system UID  %s\\n' "$context" "\${server:-(unknown)}" "$uid"
  if [ -n "$EXPECTED_CONTEXT" ] && [ "$context" != "$EXPECTED_CONTEXT" ]; then
    mismatch="$mismatch    kube context is $context; the config expects $EXPECTED_CONTEXT (cluster.context)"$'\\n'
  fi
  if [ -n "$EXPECTED_API_SERVER" ] && [ "$server" != "$EXPECTED_API_SERVER" ]; then
    mismatch="$mismatch    API server is \${server:-(unknown)}; the config expects $EXPECTED_API_SERVER (cluster.apiServer)"$'\\n'
  fi
  if [ -n "$EXPECTED_KUBE_SYSTEM_UID" ] && [ "$uid" != "$EXPECTED_KUBE_SYSTEM_UID" ]; then
    mismatch="$mismatch    kube-system UID is $uid; the config expects $EXPECTED_KUBE_SYSTEM_UID (cluster.kubeSystemUid)"$'\\n'
  fi
  if [ -n "$mismatch" ]; then
    printf '  ✗ FAILED: this is not the cluster the homelab config names:\\n%s' "$mismatch" >&2
    printf '    hint: switch with kubectl config use-context NAME, or correct cluster in the homelab config and synthesize again\\n' >&2
    abort
  fi
  if [ "$ASSUME_YES" = 1 ]; then
    printf '  ✓ cluster confirmed by --yes%s\\n' "$(expected_identity)"
    return 0
  fi
  if [ ! -t 0 ]; then
    printf '  ✗ FAILED: the cluster is not confirmed: standard input is not a terminal, so the runbook cannot ask\\n' >&2
    printf '    hint: check the cluster above, then re-run with --yes to confirm it non-interactively\\n' >&2
    abort
  fi
  printf '  Apply %s steps to this cluster? [y/N] ' "$STEPS"
  read -r answer || answer=''
  case "$answer" in
    y | Y | yes | Yes | YES) printf '  ✓ cluster confirmed\\n' ;;
    *)
      printf '  ✗ FAILED: the cluster is not confirmed (answer: %s); nothing was changed\\n' "\${answer:-none}" >&2
      abort
      ;;
  esac
}

# expected_identity: what the config pins of the cluster, as ' (compared with cluster.context, ...)', or nothing.
expected_identity() {
  local pinned=''
  if [ -n "$EXPECTED_CONTEXT" ]; then pinned="$pinned, cluster.context"; fi
  if [ -n "$EXPECTED_API_SERVER" ]; then pinned="$pinned, cluster.apiServer"; fi
  if [ -n "$EXPECTED_KUBE_SYSTEM_UID" ]; then pinned="$pinned, cluster.kubeSystemUid"; fi
  if [ -n "$pinned" ]; then printf ' (compared with %s)' "\${pinned#, }"; fi
}

# file_problem PATH FORMAT [KEY]...: sets PROBLEM (why the file cannot be used, empty when it can) and FIX (how to fix
# it, empty for the caller's hint); an env-file must set every KEY. Reads the file only with test, grep -q/-c and line
# numbers: its content is never printed.
file_problem() {
  local path="$1" mode bad key
  PROBLEM='' FIX=''
  if [ ! -e "$path" ]; then PROBLEM="no file at $path"; return 0; fi
  if [ ! -f "$path" ] || [ ! -r "$path" ]; then PROBLEM="$path is not a readable file"; return 0; fi
  if [ ! -s "$path" ]; then PROBLEM="$path is empty"; return 0; fi
  mode="$(ls -lLd -- "$path")"
  mode="\${mode%% *}"
  if [ "\${mode:4:6}" != '------' ]; then
    PROBLEM="$path can be read by group or others ($mode)"
    FIX="chmod 600 $(quote "$path")"
    return 0
  fi
  case "$2" in
    ssh-private-key)
      if [[ "$path" == *.pub ]] || grep -Eq '^(ssh-[a-z0-9]+|ecdsa-sha2-[a-z0-9]+|sk-[a-z0-9@.-]+) ' "$path"; then
        PROBLEM="$path is an SSH public key"
        FIX="point it at the private key: the same path without .pub"
      elif ! grep -Eq '^-----BEGIN [A-Z ]*PRIVATE KEY-----' "$path"; then
        PROBLEM="$path is not an SSH private key (it has no BEGIN ... PRIVATE KEY line)"
      fi
      ;;
    token)
      if [ "$(grep -c '' "$path")" -gt 1 ]; then PROBLEM="$path has more than one line; a token file holds the token only"; fi
      ;;
    age-identity)
      if ! grep -Eq '^AGE-SECRET-KEY-1[0-9A-Z]+$' "$path"; then
        PROBLEM="$path holds no age identity (a line AGE-SECRET-KEY-1...)"
        if grep -Eq '^age1[0-9a-z]+$' "$path"; then PROBLEM="$PROBLEM, only a recipient (age1...): the public half"; fi
      else
        bad="$(grep -Evn '^(#.*|[[:space:]]*|AGE-SECRET-KEY-1[0-9A-Z]+)$' "$path" | head -n 1 | cut -d: -f1)" || bad=''
        if [ -n "$bad" ]; then PROBLEM="$path line $bad is neither an age identity (AGE-SECRET-KEY-1...), a # comment nor blank"; fi
      fi
      ;;
    env-file)
      bad="$(grep -Evn '^(#.*|[[:space:]]*|[A-Za-z_][A-Za-z0-9_]*=.*)$' "$path" | head -n 1 | cut -d: -f1)" || bad=''
      if [ -n "$bad" ]; then PROBLEM="$path line $bad is neither KEY=value, a # comment nor blank"; return 0; fi
      for key in "\${@:3}"; do
        if ! grep -Eq "^$key=.+" "$path"; then PROBLEM="$path sets no $key (a line $key=value, the value without quotes)"; return 0; fi
      done
      ;;
  esac
}

need_file() { # variable format hint [env-file key]...
  local path="\${!1}"
  file_problem "$path" "$2" "\${@:4}"
  if dry_run; then
    if [ -z "$PROBLEM" ]; then plan needs "$1=$path (present)"
    elif [ ! -e "$path" ]; then plan needs "$1=$path (MISSING: $3)"
    else plan needs "$1=$path (NOT USABLE: $PROBLEM; \${FIX:-$3})"; fi
    return 0
  fi
  if [ -n "$PROBLEM" ]; then
    printf '  ✗ FAILED: %s: %s\\n    hint: %s\\n' "$1" "$PROBLEM" "\${FIX:-$3}" >&2
    abort
  fi
  printf '  ✓ %s=%s\\n' "$1" "$path"
}

step() { # index name summary
  CURRENT_STEP="step $1/$STEPS ($2)"
  printf '\\n[%s/%s] %s: %s\\n' "$1" "$STEPS" "$2" "$3"
}

need_secret() { # namespace name hint
  if dry_run; then plan check "Secret $1/$2 exists"; return 0; fi
  if ! kube get secret "$2" -n "$1" >/dev/null 2>&1; then
    printf '  ✗ FAILED: Secret %s/%s does not exist\\n    hint: %s\\n' "$1" "$2" "$3" >&2
    inspect "$(quote kubectl get secret "$2" -n "$1")"
  fi
  printf '  ✓ Secret %s/%s exists\\n' "$1" "$2"
}

ensure_secret() { # namespace name key bytes [hex]
  local file out encoding="\${5:-base64}"
  if dry_run; then plan check "Secret $1/$2 exists, else create it with $4 random bytes\${5:+ ($5)} in key $3"; return 0; fi
  if kube get secret "$2" -n "$1" >/dev/null 2>&1; then
    printf '  ✓ Secret %s/%s exists (kept)\\n' "$1" "$2"
    return 0
  fi
  if [ -z "$STAGING" ]; then STAGING="$(umask 077 && mktemp -d)"; fi
  file="$STAGING/generated-$2"
  # hex for a value that goes into a URL, where base64's '/', '+' and '=' would break it; od needs -v, or it writes
  # a line that repeats the one before as '*'
  if [ "$encoding" = hex ]; then
    (umask 077 && head -c "$4" /dev/urandom | od -An -v -tx1 | tr -d ' \\n' >"$file")
  else
    (umask 077 && head -c "$4" /dev/urandom | base64 | tr -d '\\n' >"$file")
  fi
  if ! out="$(kube create secret generic "$2" -n "$1" "--from-file=$3=$file" 2>&1)"; then
    rm -f "$file"
    failed "create Secret $1/$2" "$SECONDS" "$out"
    inspect "$(quote kubectl get secret "$2" -n "$1")"
  fi
  rm -f "$file"
  printf '  ✓ Secret %s/%s created with a random %s\\n' "$1" "$2" "$3"
}

# install_secret_env_file STEP-NAME NAMESPACE NAME VARIABLE: applies Secret NAMESPACE/NAME with one key per line
# KEY=value of the local env file named by VARIABLE (checked in the preflight), server-side and idempotently. The
# content goes from one kubectl to the other through a pipe, never to the terminal or a file.
install_secret_env_file() {
  local start=$SECONDS what="Secret $2/$3 from the env file \\$$4" out
  if dry_run; then plan install "$what, kubectl apply --server-side --field-manager=${FIELD_MANAGER_PREFIX}-$1"; return 0; fi
  # kubectl's own parse errors could quote a line of the file: they are not shown (the preflight checked its format)
  if ! out="$(kube create secret generic "$3" -n "$2" "--from-env-file=\${!4}" --dry-run=client -o yaml 2>/dev/null |
    kube apply --server-side --force-conflicts "--field-manager=${FIELD_MANAGER_PREFIX}-$1" -f - 2>&1)"; then
    failed "apply $what" "$start" "$out"
    inspect "$(quote kubectl get secret "$3" -n "$2")"
  fi
  passed "applied $what" "$start"
}

# ensure_tls_secret STEP-NAME NAMESPACE NAME USAGE CN VALIDITY-DAYS RENEW-DAYS [DNS-NAME]...: keeps the TLS Secret
# NAMESPACE/NAME when its certificate is valid for more than RENEW-DAYS days; otherwise makes a self-signed
# certificate with openssl (RSA 2048, cert-manager's default key; CN; the DNS names; extended key usage USAGE, server
# or client; VALIDITY-DAYS) and applies it server-side as type kubernetes.io/tls with tls.crt, tls.key and ca.crt (the
# certificate itself, as cert-manager's selfSigned issuer writes it). The key is made in a private folder (umask 077)
# that is removed at once, and reaches kubectl through a pipe; it is never printed. Only a re-run of the runbook
# renews it.
ensure_tls_secret() {
  local step="$1" namespace="$2" name="$3" usage="$4" cn="$5" days="$6" renew="$7" start=$SECONDS crt end dir out why status=0 san=''
  shift 7
  local what="TLS Secret $namespace/$name (self-signed $usage certificate, CN $cn)"
  if dry_run; then plan check "$what valid for more than $renew days, else made with openssl, valid $days days"; return 0; fi
  if [ -z "$STAGING" ]; then STAGING="$(umask 077 && mktemp -d)"; fi
  crt="$(kube get secret "$name" -n "$namespace" -o 'jsonpath={.data.tls\\.crt}' 2>"$STAGING/tls-get.err")" || status=$?
  if [ "$status" = 0 ]; then
    if [ -n "$crt" ] && printf '%s' "$crt" | base64 -d 2>/dev/null | openssl x509 -noout -checkend "$((renew * 86400))" >/dev/null 2>&1; then
      end="$(printf '%s' "$crt" | base64 -d 2>/dev/null | openssl x509 -noout -enddate 2>/dev/null)" || end=''
      printf '  ✓ %s kept: valid until %s (more than %s days)\\n' "$what" "\${end#notAfter=}" "$renew"
      return 0
    fi
    why="its certificate is missing or expires within $renew days"
  else
    case "$(cat "$STAGING/tls-get.err")" in
      *'(NotFound)'*) why='it did not exist' ;;
      *)
        failed "read $what" "$start" "$(cat "$STAGING/tls-get.err")"
        inspect "$(quote kubectl get secret "$name" -n "$namespace")"
        ;;
    esac
  fi
  for out in "$@"; do san="\${san:+$san,}DNS:$out"; done
  dir="$STAGING/tls-$name"
  rm -rf "$dir"
  (umask 077 && mkdir "$dir")
  {
    printf '[req]\\ndistinguished_name = dn\\nx509_extensions = ext\\nprompt = no\\n[dn]\\nCN = %s\\n[ext]\\n' "$cn"
    printf 'basicConstraints = critical, CA:FALSE\\nkeyUsage = critical, digitalSignature, keyEncipherment\\n'
    printf 'extendedKeyUsage = %s\\nsubjectKeyIdentifier = hash\\n' "$([ "$usage" = server ] && echo serverAuth || echo clientAuth)"
    if [ -n "$san" ]; then printf 'subjectAltName = %s\\n' "$san"; fi
  } >"$dir/openssl.cnf"
  if ! out="$(umask 077 && openssl req -x509 -new -newkey rsa:2048 -nodes -sha256 -days "$days" -config "$dir/openssl.cnf" \\
    -keyout "$dir/tls.key" -out "$dir/tls.crt" 2>&1)"; then
    rm -rf "$dir"
    failed "make $what with openssl" "$start" "$out"
    abort
  fi
  if ! out="$(kube create secret generic "$name" -n "$namespace" --type=kubernetes.io/tls "--from-file=tls.crt=$dir/tls.crt" \\
    "--from-file=tls.key=$dir/tls.key" "--from-file=ca.crt=$dir/tls.crt" --dry-run=client -o yaml 2>/dev/null |
    kube apply --server-side --force-conflicts "--field-manager=${FIELD_MANAGER_PREFIX}-$step" -f - 2>&1)"; then
    rm -rf "$dir"
    failed "apply $what" "$start" "$out"
    inspect "$(quote kubectl get secret "$name" -n "$namespace")"
  fi
  rm -rf "$dir"
  passed "made $what, valid $days days ($why)" "$start"
}

# skip_when RESOURCE NAMESPACE JSONPATH VALUE REASON: succeeds (the caller skips the rest of its step) when JSONPATH of
# RESOURCE (in NAMESPACE, or cluster-scoped when it is empty) is VALUE: the cluster is already past the step. Fails (the
# step runs) when the field differs or RESOURCE does not exist. One kubectl get, bounded by --request-timeout; any other
# error stops the runbook, since a step is never skipped, nor applied over a newer state, on a guess. Its stderr goes
# to a private file, so a warning on it cannot change the value compared.
skip_when() {
  local what="$3 of $1\${2:+ in $2}" out err status=0
  local args=(get "$1" -o "jsonpath=$3")
  if [ -n "$2" ]; then args=("\${args[@]}" -n "$2"); fi
  if dry_run; then plan skip "when $what is $4 ($5); otherwise:"; return 1; fi
  if [ -z "$STAGING" ]; then STAGING="$(umask 077 && mktemp -d)"; fi
  out="$(kube "\${args[@]}" 2>"$STAGING/skip-when.err")" || status=$?
  err="$(cat "$STAGING/skip-when.err")"
  if [ "$status" = 0 ] && [ "$out" = "$4" ]; then
    SKIPPED=$((SKIPPED + 1))
    SKIPPED_WHY="$5"
    printf '  ✓ skipped: %s (%s is %s)\\n' "$5" "$what" "$4"
    return 0
  fi
  if [ "$status" = 0 ]; then
    printf '  → not skipped: %s is %s, not %s\\n' "$what" "\${out:-empty}" "$4"
    return 1
  fi
  case "$err" in
    *'(NotFound)'*)
      printf '  → not skipped: %s does not exist\\n' "$1\${2:+ in $2}"
      return 1
      ;;
  esac
  failed "read $what, to tell whether the cluster is already past this step" "$SECONDS" "\${err:-kubectl exited with $status}"
  inspect "$(quote kubectl "\${args[@]}")"
}

# note_when_exists RESOURCE NAMESPACE DESCRIPTION WHEN-EXISTS [WHEN-ABSENT]: says, before the step changes anything, what
# applying it does not do to RESOURCE (in NAMESPACE, or cluster-scoped when empty) when that already exists, e.g. a
# Cluster's bootstrap runs only when it is created. One kube call; NotFound prints WHEN-ABSENT (if given); any other
# error stops the runbook, since the operator would not know which of the two happens. Changes and skips nothing.
note_when_exists() {
  local status=0 err
  local args=(get "$1" -o name)
  if [ -n "$2" ]; then args=("\${args[@]}" -n "$2"); fi
  if dry_run; then plan note "when $3 exists: $4\${5:+; otherwise: $5}"; return 0; fi
  if [ -z "$STAGING" ]; then STAGING="$(umask 077 && mktemp -d)"; fi
  kube "\${args[@]}" >/dev/null 2>"$STAGING/note-when-exists.err" || status=$?
  err="$(cat "$STAGING/note-when-exists.err")"
  if [ "$status" = 0 ]; then
    printf '  → %s exists: %s\\n' "$3" "$4"
    return 0
  fi
  case "$err" in
    *'(NotFound)'*)
      if [ -n "\${5:-}" ]; then printf '  → %s does not exist: %s\\n' "$3" "$5"; fi
      return 0
      ;;
  esac
  failed "read $3, to tell whether it exists already" "$SECONDS" "\${err:-kubectl exited with $status}"
  inspect "$(quote kubectl "\${args[@]}")"
}

# ipv4_number ADDRESS: the dotted IPv4 ADDRESS as one number (10# keeps a leading zero from reading as octal).
ipv4_number() {
  local a b c d
  IFS=. read -r a b c d <<<"$1"
  printf '%s' "$(( (10#$a << 24) + (10#$b << 16) + (10#$c << 8) + 10#$d ))"
}

# ipv4_in_cidrs ADDRESS 'CIDR...': succeeds when the IPv4 ADDRESS lies in one of the CIDRs.
ipv4_in_cidrs() {
  local address cidr network bits mask
  address="$(ipv4_number "$1")"
  for cidr in $2; do
    network="$(ipv4_number "\${cidr%/*}")"
    bits="\${cidr#*/}"
    mask=$(( bits == 0 ? 0 : (0xFFFFFFFF << (32 - bits)) & 0xFFFFFFFF ))
    if (( (address & mask) == (network & mask) )); then return 0; fi
  done
  return 1
}

# check_api_endpoints 'CIDR...' PORT CIDRS-SETTING PORT-SETTING CONSEQUENCE: before the step changes anything, checks
# that every address kube-apiserver publishes for Service default/kubernetes (its EndpointSlices, one endpoint per API
# server, the port named https) lies in one of the CIDRs and that the port is PORT: the step's NetworkPolicies let
# pods reach the API server only there, and a policy sees these addresses, not the Service's ClusterIP. One kube call;
# stops naming each address or port outside, the setting, CONSEQUENCE and the value that fits.
check_api_endpoints() {
  local cidrs="$1" port="$2" status=0 out err kind addresses ports address pair served='' all='' outside='' ipv6='' problems='' fix=''
  local args=(get endpointslices -n default -l kubernetes.io/service-name=kubernetes
    -o 'jsonpath={range .items[*]}{.addressType}{"\\t"}{range .endpoints[*]}{.addresses[*]}{" "}{end}{"\\t"}{range .ports[*]}{.name}={.port}{" "}{end}{"\\n"}{end}')
  local what="the API server's addresses lie in $3 and its port is $4 (EndpointSlices of Service default/kubernetes)"
  if dry_run; then plan check "the API server's addresses (EndpointSlices of Service default/kubernetes) lie in $cidrs ($3), its https port is $port ($4)"; return 0; fi
  if [ -z "$STAGING" ]; then STAGING="$(umask 077 && mktemp -d)"; fi
  out="$(kube "\${args[@]}" 2>"$STAGING/api-endpoints.err")" || status=$?
  err="$(cat "$STAGING/api-endpoints.err")"
  if [ "$status" != 0 ]; then
    failed "read the API server's addresses (EndpointSlices of Service default/kubernetes)" "$SECONDS" "\${err:-kubectl exited with $status}"
    inspect "$(quote kubectl "\${args[@]:0:6}" -o yaml)"
  fi
  while IFS=$'\\t' read -r kind addresses ports; do
    for address in $addresses; do
      all="$all$address"$'\\n'
      if [ "$kind" = IPv6 ] || [[ "$address" == *:* ]]; then ipv6="$ipv6 $address"
      elif ! [[ "$address" =~ ^[0-9]{1,3}(\\.[0-9]{1,3}){3}$ ]] || ! ipv4_in_cidrs "$address" "$cidrs"; then outside="$outside, $address"; fi
    done
    for pair in $ports; do
      if [ "\${pair%%=*}" = https ]; then served="$served\${pair#*=}"$'\\n'; fi
    done
  done <<<"$out"
  # sorted, unique, one line: 'a b c'
  all="$(printf '%s' "$all" | sort -u | paste -sd ' ' -)"
  served="$(printf '%s' "$served" | sort -u | paste -sd ' ' -)"
  if [ -z "$all" ]; then
    problems="no EndpointSlice of Service default/kubernetes lists an address (kube-apiserver writes one, named kubernetes)"$'\\n'
  elif [ -n "$ipv6" ]; then
    problems="the API server has IPv6 addresses (\${ipv6# }), but $3 holds IPv4 CIDRs only: no policy of this step can allow them"$'\\n'
    fix="isolate on an IPv4 cluster, or set network.isolatePhase0: false"$'\\n'
  elif [ -n "$outside" ]; then
    problems="API server addresses outside $3 ($cidrs): \${outside#, }"$'\\n'
    fix="set $3: [$(printf '%s\\n' "$all" | tr ' ' '\\n' | sed "s|.*|'&/32'|" | paste -sd ',' - | sed 's/,/, /g')] (every API server address)"$'\\n'
  fi
  if [ -n "$all" ] && [ "$served" != "$port" ]; then
    problems="\${problems}the API server serves on port \${served:-(none named https)}, but $4 is $port"$'\\n'
    if [[ "$served" =~ ^[0-9]+$ ]]; then fix="\${fix}set $4: $served"$'\\n'; fi
  fi
  if [ -n "$problems" ]; then
    failed "$what" "$SECONDS" "\${problems%$'\\n'}"
    printf '    Nothing of this step was applied: %s.\\n' "$5" >&2
    if [ -n "$fix" ]; then printf '%s' "$fix" | sed 's/^/    fix: /' >&2; printf '    (in the homelab config), then synthesize again and re-run\\n' >&2; fi
    inspect "$(quote kubectl "\${args[@]:0:6}" -o yaml)"
  fi
  printf "  ✓ the API server's addresses %s lie in %s (%s), its port is %s (%s)\\n" "\${all// /, }" "$3" "$cidrs" "$port" "$4"
}

delete_job() { # namespace name
  local out
  if dry_run; then plan delete "Job $1/$2 (Jobs are immutable: the re-applied Job runs again)"; return 0; fi
  if ! out="$(kube delete job -n "$1" "$2" --ignore-not-found --wait=true 2>&1)"; then
    failed "delete Job $1/$2 before re-applying it" "$SECONDS" "$out"
    inspect "$(quote kubectl get job "$2" -n "$1")"
  fi
  if [ -n "$out" ]; then printf '%s\\n' "$out" | sed 's/^/    /'; fi
}

# server_side_apply STEP-NAME -f|-k PATH LABEL [INSPECT]: INSPECT replaces the hint that re-runs the apply,
# for a PATH that does not outlive the runbook.
server_side_apply() {
  local start=$SECONDS out
  if ! out="$(kube apply --server-side --force-conflicts "--field-manager=${FIELD_MANAGER_PREFIX}-$1" "$2" "$3" 2>&1)"; then
    failed "apply $4" "$start" "$out"
    inspect "\${5:-$(quote kubectl apply --server-side --force-conflicts "--field-manager=${FIELD_MANAGER_PREFIX}-$1" "$2" "$3")}"
  fi
  if [ -n "$out" ]; then printf '%s\\n' "$out" | sed 's/^/    /'; fi
  passed "applied $4" "$start"
}

apply() { # step-name -f|-k path-relative-to-this-folder
  if dry_run; then plan apply "kubectl apply --server-side --force-conflicts --field-manager=${FIELD_MANAGER_PREFIX}-$1 $2 $3"; return 0; fi
  server_side_apply "$1" "$2" "$DIR/$3" "$3"
}

# apply_staged STEP-NAME FOLDER [URL | VARIABLE=FILE]...: applies a private temporary copy of the kustomization FOLDER,
# with the verified copy of each release manifest URL (fetch_manifest) put in and named in its resources instead of
# URL, and the local file named by each VARIABLE copied in as FILE; the copy is removed on exit.
apply_staged() {
  local name="$1" folder="$2" pair copies='' verified=''
  shift 2
  for pair in "$@"; do
    case "$pair" in
      https://*) verified="$verified \${pair##*/}" ;;
      *) copies="$copies $pair" ;;
    esac
  done
  if dry_run; then
    plan apply "kubectl apply --server-side --force-conflicts --field-manager=${FIELD_MANAGER_PREFIX}-$name -k <private copy of $folder>"
    for pair in "$@"; do
      case "$pair" in
        https://*) plan copy "the verified \${pair##*/} into the copy, named in its resources instead of $pair" ;;
        *) plan copy "\\$\${pair%%=*} into the copy as \${pair#*=}" ;;
      esac
    done
    return 0
  fi
  if [ -z "$STAGING" ]; then STAGING="$(umask 077 && mktemp -d)"; fi
  (
    umask 077
    cp -R "$DIR/$folder" "$STAGING/"
    for pair in "$@"; do
      case "$pair" in
        https://*) cp "$(manifest_file "$pair")" "$STAGING/$folder/\${pair##*/}" ;;
        *)
          local variable="\${pair%%=*}"
          cp "\${!variable}" "$STAGING/$folder/\${pair#*=}"
          ;;
      esac
    done
  )
  # kustomize's load restrictor refuses files outside the kustomization's folder: the copies sit next to it.
  for pair in "$@"; do
    case "$pair" in https://*) use_local_resource "$STAGING/$folder/kustomization.yaml" "$pair" ;; esac
  done
  # the private copy is removed on exit, so the hint names the step's folder in the output
  server_side_apply "$name" -k "$STAGING/$folder" "$folder\${copies:+ (with$copies)}\${verified:+ (verified$verified)}" \\
    "$(quote "$DIR/$folder/kustomization.yaml") (applied from a private copy of its folder\${copies:+ with$copies copied in}\${verified:+ naming the verified$verified}; the copy is removed on exit)"
}

# check_manifest_tools SIGNED FILE-NAME...: before the first change, the tools the release manifests need: sha256sum
# always, curl unless $HOMELAB_MANIFESTS holds every FILE-NAME; says whether cosign will check the SIGNED signatures.
check_manifest_tools() {
  local signed="$1" name missing='' version
  shift
  if dry_run; then
    plan check "sha256sum on PATH; curl unless \\$HOMELAB_MANIFESTS holds $*\${HOMELAB_MANIFESTS:+ (HOMELAB_MANIFESTS=$HOMELAB_MANIFESTS)}"
    if [ "$signed" -gt 0 ]; then plan check "cosign on PATH verifies the $signed signature(s) upstream publishes; without it they are not verified (the sha256 pins still are)"; fi
    return 0
  fi
  if [ -n "$HOMELAB_MANIFESTS" ] && [ ! -d "$HOMELAB_MANIFESTS" ]; then
    printf '  ✗ FAILED: HOMELAB_MANIFESTS=%s is not a folder\\n    hint: mkdir -p %s (the runbook keeps the manifests it downloads there), or unset HOMELAB_MANIFESTS\\n' \\
      "$HOMELAB_MANIFESTS" "$(quote "$HOMELAB_MANIFESTS")" >&2
    abort
  fi
  if ! command -v sha256sum >/dev/null 2>&1; then
    printf '  ✗ FAILED: sha256sum not found on PATH\\n    hint: install GNU coreutils; the runbook verifies the release manifests with it\\n' >&2
    abort
  fi
  for name in "$@"; do
    if [ -z "$HOMELAB_MANIFESTS" ] || [ ! -f "$HOMELAB_MANIFESTS/$name" ]; then missing="$missing $name"; fi
  done
  if [ -z "$missing" ]; then
    printf '  ✓ release manifests in HOMELAB_MANIFESTS=%s (%s): no download\\n' "$HOMELAB_MANIFESTS" "$*"
  elif ! command -v curl >/dev/null 2>&1; then
    printf '  ✗ FAILED: curl not found on PATH: the runbook downloads%s\\n    hint: install curl, or put the files in a folder and name it with HOMELAB_MANIFESTS=<folder>\\n' "$missing" >&2
    abort
  else
    version="$(curl --version 2>/dev/null | head -n 1)" || true
    printf '  ✓ %s (downloads%s%s)\\n' "\${version:-curl}" "$missing" "\${HOMELAB_MANIFESTS:+ into $HOMELAB_MANIFESTS}"
  fi
  if [ "$signed" -gt 0 ]; then
    if command -v cosign >/dev/null 2>&1; then
      printf '  ✓ cosign on PATH: verifies the signatures upstream publishes\\n'
    else
      printf '  ! cosign not installed: the signatures upstream publishes are not verified (the sha256 pins still are)\\n'
    fi
  fi
}

# download URL FILE: one download, bounded and retried; only https, redirects included.
download() {
  curl -fsSL --proto '=https' --proto-redir '=https' --connect-timeout 30 --max-time 600 --retry 3 --retry-delay 2 -o "$2" "$1"
}

# fetch_manifest STEP-NAME URL SHA256|unpinned [BUNDLE-URL IDENTITY ISSUER]: puts the release manifest URL, verified,
# into the private staging folder (manifest_file), before anything of the step is applied: read from
# $HOMELAB_MANIFESTS/<name> when there, else downloaded (and kept there when HOMELAB_MANIFESTS is set). Its sha256
# must be SHA256 ('unpinned': printed with the config line that pins it). With BUNDLE-URL, cosign (when installed)
# verifies the Sigstore bundle against the signing workflow's IDENTITY and its OIDC ISSUER.
fetch_manifest() {
  local start=$SECONDS url="$2" want="$3" name="\${2##*/}" file source actual out keep=''
  if dry_run; then
    if [ -n "$HOMELAB_MANIFESTS" ] && [ -f "$HOMELAB_MANIFESTS/$name" ]; then
      source="read $HOMELAB_MANIFESTS/$name"
    else
      source="download with curl\${HOMELAB_MANIFESTS:+ into $HOMELAB_MANIFESTS/$name}"
    fi
    if [ "$want" = unpinned ]; then plan fetch "$url: $source; NOT PINNED: print its sha256 and the config line that pins it"
    else plan verify "$url: $source; its sha256 must be $want"; fi
    if [ -n "\${4:-}" ]; then
      plan verify "its signature when cosign is installed: cosign verify-blob --bundle $4 --certificate-identity $5 --certificate-oidc-issuer $6"
    fi
    return 0
  fi
  if [ -z "$STAGING" ]; then STAGING="$(umask 077 && mktemp -d)"; fi
  file="$(manifest_file "$url")"
  mkdir -p "\${file%/*}"
  if [ -n "$HOMELAB_MANIFESTS" ] && [ -f "$HOMELAB_MANIFESTS/$name" ]; then
    cp "$HOMELAB_MANIFESTS/$name" "$file"
    source="read from $HOMELAB_MANIFESTS/$name"
  else
    waiting "download $url" 600
    if ! out="$(download "$url" "$file" 2>&1)"; then
      failed "download $url" "$start" "$out"$'\\n'"Nothing of this step was applied."
      inspect "$(quote curl -fsSL -o "$name" "$url") (or put the file in a folder named by HOMELAB_MANIFESTS)"
    fi
    source="downloaded from $url"
    keep="\${HOMELAB_MANIFESTS:+yes}"
  fi
  actual="$(sha256sum "$file")"
  actual="\${actual%% *}"
  if [ "$want" = unpinned ]; then
    printf '%s  ! %s is not pinned: its sha256 is %s (%s)\\n' "$CLEAR_LINE" "$url" "$actual" "$source"
    printf '    pin it: check it against the release, then set in the homelab config\\n'
    printf "      manifestSha256: { '%s': '%s' }\\n" "$url" "$actual"
  elif [ "$actual" != "$want" ]; then
    failed "sha256 of $url" "$start" "expected $want (manifestSha256 in the homelab config)"$'\\n'"actual   $actual ($source)"$'\\n'"Nothing of this step was applied: the manifest is not the one the config pins."
    if [ -z "$keep" ] && [ "$source" != "downloaded from $url" ]; then
      printf '    fix: delete %s to download it again, or put the pinned release there\\n' "$(quote "$HOMELAB_MANIFESTS/$name")" >&2
    fi
    printf '    fix: if the release changed on purpose, check the new file against the release (checksum, signature), pin its\\n' >&2
    printf '    sha256 in manifestSha256 and synthesize again; otherwise the download was altered: do not apply it\\n' >&2
    abort
  fi
  if [ -n "\${4:-}" ]; then verify_signature "$start" "$url" "$file" "$4" "$5" "$6" "$want"; fi
  if [ -n "$keep" ]; then cp "$file" "$HOMELAB_MANIFESTS/$name"; fi
  if [ "$want" != unpinned ]; then passed "verified $name: sha256 $actual ($source)" "$start"; fi
}

# verify_signature START URL FILE BUNDLE-URL IDENTITY ISSUER SHA256: cosign verify-blob of FILE with the Sigstore bundle,
# read from $HOMELAB_MANIFESTS like the manifest or downloaded; without cosign, says so.
verify_signature() {
  local start="$1" url="$2" file="$3" bundle_url="$4" name="\${4##*/}" bundle out
  if ! command -v cosign >/dev/null 2>&1; then
    if [ "$7" = unpinned ]; then
      printf '  ! signature of %s not verified: cosign not installed; its sha256 is not pinned either\\n' "$url"
    else
      printf '  ! signature of %s not verified: cosign not installed; the sha256 was verified\\n' "$url"
    fi
    return 0
  fi
  bundle="\${file%/*}/$name"
  if [ -n "$HOMELAB_MANIFESTS" ] && [ -f "$HOMELAB_MANIFESTS/$name" ]; then
    cp "$HOMELAB_MANIFESTS/$name" "$bundle"
  elif ! out="$(download "$bundle_url" "$bundle" 2>&1)"; then
    failed "download the signature of $url" "$start" "$out"$'\\n'"Nothing of this step was applied."
    inspect "$(quote curl -fsSL -o "$name" "$bundle_url")"
  elif [ -n "$HOMELAB_MANIFESTS" ]; then
    cp "$bundle" "$HOMELAB_MANIFESTS/$name"
  fi
  if ! out="$(cosign verify-blob "$file" --bundle "$bundle" --certificate-identity "$5" --certificate-oidc-issuer "$6" 2>&1)"; then
    failed "signature of $url (cosign verify-blob, identity $5)" "$start" "$out"$'\\n'"Nothing of this step was applied: the manifest is not signed by the release workflow."
    inspect "$(quote cosign verify-blob "$name" --bundle "\${bundle_url##*/}" --certificate-identity "$5" --certificate-oidc-issuer "$6")"
  fi
  printf '  ✓ signature of %s verified by cosign (%s)\\n' "\${url##*/}" "$5"
}

# manifest_file URL: where fetch_manifest puts the verified copy of the release manifest URL.
manifest_file() {
  printf '%s/manifests/%s' "$STAGING" "\${1##*/}"
}

# use_local_resource KUSTOMIZATION URL: names the verified copy (its file name) instead of URL in KUSTOMIZATION's
# resources; stops when URL is not one of them.
use_local_resource() {
  local line out='' found=''
  while IFS= read -r line || [ -n "$line" ]; do
    case "$line" in
      *"- $2") line="\${line%"$2"}\${2##*/}"; found=yes ;;
    esac
    out="$out$line"$'\\n'
  done <"$1"
  if [ -z "$found" ]; then
    failed "use the verified copy of $2" "$SECONDS" "$1 does not list it under resources"
    abort
  fi
  printf '%s' "$out" >"$1"
}

# install_secret_file STEP-NAME NAMESPACE NAME KEY VARIABLE: applies Secret NAMESPACE/NAME whose key KEY holds
# the local file named by VARIABLE (checked in the preflight), server-side and idempotently. The content goes
# from one kubectl to the other through a pipe, never to the terminal or a file.
install_secret_file() {
  local start=$SECONDS what="Secret $2/$3 (key $4) from \\$$5" out
  if dry_run; then plan install "$what, kubectl apply --server-side --field-manager=${FIELD_MANAGER_PREFIX}-$1"; return 0; fi
  if ! out="$(kube create secret generic "$3" -n "$2" "--from-file=$4=\${!5}" --dry-run=client -o yaml |
    kube apply --server-side --force-conflicts "--field-manager=${FIELD_MANAGER_PREFIX}-$1" -f - 2>&1)"; then
    failed "apply $what" "$start" "$out"
    inspect "$(quote kubectl get secret "$3" -n "$2")"
  fi
  passed "applied $what" "$start"
}

# helm_release STEP-NAME RELEASE CHART REPO VERSION NAMESPACE CREATE-NAMESPACE VALUES TIMEOUT: installs or upgrades
# RELEASE from the pinned CHART with the step's generated VALUES file, in the confirmed kube context. Idempotent: a
# re-run with the same values is an upgrade that changes nothing. helm's --timeout bounds its own waits and hooks;
# the whole call (chart download included) is bounded a minute later.
helm_release() {
  local start=$SECONDS what="Helm release $6/$2 (chart $3 $5 from $4)" out status=0
  local args=(upgrade --install "$2" "$3" --repo "$4" --version "$5" --namespace "$6")
  if [ "$7" = 1 ]; then args=("\${args[@]}" --create-namespace); fi
  if dry_run; then plan helm "helm --kube-context <confirmed> $(quote "\${args[@]}" -f "$8" --timeout "\${9}s") (at most $(( $9 + 60 ))s)"; return 0; fi
  waiting "$what" "$9"
  out="$(timeout "$(( $9 + 60 ))" helm --kube-context "$KUBE_CONTEXT" "\${args[@]}" -f "$DIR/$8" --timeout "\${9}s" 2>&1)" || status=$?
  if [ "$status" != 0 ]; then
    if [ "$status" = 124 ]; then out="helm did not finish within $(( $9 + 60 ))s\${out:+; $out}"; fi
    failed "$what" "$start" "$out"
    inspect "$(quote helm --kube-context "$KUBE_CONTEXT" status "$2" -n "$6"); $(quote helm --kube-context "$KUBE_CONTEXT" history "$2" -n "$6")"
  fi
  passed "installed $what" "$start"
}

# wait_object TIMEOUT RESOURCE NAMESPACE JSONPATH EXPECTED DESCRIPTION: polls until RESOURCE exists (in NAMESPACE, or
# cluster-scoped when it is empty) and, given a JSONPATH, that field equals EXPECTED: for objects a controller creates
# after the step (kubectl wait --for=create needs kubectl 1.31).
wait_object() {
  local timeout="$1" what="$6" start=$SECONDS out
  local args=(get "$2" -o name)
  if [ -n "$4" ]; then args=(get "$2" -o "jsonpath=$4"); fi
  if [ -n "$3" ]; then args=("\${args[@]}" -n "$3"); fi
  if dry_run; then plan wait "$what (timeout \${timeout}s)"; return 0; fi
  waiting "$what" "$timeout"
  until out="$(kube "\${args[@]}" 2>&1)" && { [ -z "$4" ] || [ "$out" = "$5" ]; }; do
    if (( SECONDS - start >= timeout )); then
      if [ -n "$4" ]; then out="$4 is '\${out}', expected '$5'"; fi
      failed "$what" "$start" "$out"
      inspect "$(quote kubectl get "$2" -o yaml \${3:+-n "$3"})"
    fi
    sleep "$POLL_SECONDS"
  done
  passed "$what" "$start"
}

wait_rollout() { # namespace kind/name timeout
  local kind=Deployment what start=$SECONDS out
  case "$2" in statefulset/*) kind=StatefulSet ;; daemonset/*) kind=DaemonSet ;; esac
  what="$kind $1/\${2#*/} rolled out"
  if dry_run; then plan wait "$what (timeout $3s)"; return 0; fi
  waiting "$what" "$3"
  if out="$(kube rollout status "$2" -n "$1" "--timeout=$3s" 2>&1)"; then passed "$what" "$start"; return 0; fi
  failed "$what" "$start" "$out"
  show get "$2" -n "$1" -o 'jsonpath={range .status.conditions[*]}{.type}={.status}: {.message}{"\\n"}{end}'
  inspect "$(quote kubectl describe "$2" -n "$1")"
}

wait_crds() { # timeout crd...
  local timeout="$1" what start=$SECONDS out left
  shift
  what="CRDs established: $(printf '%s, ' "$@")"
  what="\${what%, }"
  if dry_run; then plan wait "$what (timeout \${timeout}s)"; return 0; fi
  waiting "$what" "$timeout"
  # kubectl wait fails at once instead of waiting when a CRD has no status conditions yet (".status.conditions
  # accessor error"), which is how a CRD looks for a moment after it is created (seen against kube-apiserver
  # 1.30 by test/cluster): retry that case until the timeout.
  while :; do
    left=$(( timeout - (SECONDS - start) ))
    if (( left < 1 )); then left=1; fi
    if out="$(kube wait --for=condition=Established "\${@/#/crd/}" "--timeout=\${left}s" 2>&1)"; then passed "$what" "$start"; return 0; fi
    case "$out" in
      *'accessor error'*) if (( SECONDS - start < timeout )); then sleep 1; continue; fi ;;
    esac
    break
  done
  failed "$what" "$start" "$out"
  show get crd "$@"
  inspect "$(quote kubectl describe "crd/$1")"
}

# wait_webhook TIMEOUT DESCRIPTION PROBE-JSON: retries a server-side dry-run create of the probe object
# until the admission webhooks for its kind answer.
wait_webhook() {
  local timeout="$1" what="$2" probe="$3" start=$SECONDS out
  if dry_run; then plan wait "$what (timeout \${timeout}s)"; return 0; fi
  waiting "$what" "$timeout"
  until out="$(printf '%s\\n' "$probe" | kube create --dry-run=server -f - 2>&1)"; do
    if (( SECONDS - start >= timeout )); then
      failed "$what" "$start" "$out"
      printf '    probe: %s\\n' "$probe" >&2
      inspect "printf '%s\\n' $(quote "$probe") | kubectl create --dry-run=server -f -"
    fi
    sleep "$POLL_SECONDS"
  done
  passed "$what" "$start"
}

wait_condition() { # namespace resource condition message-jsonpath timeout
  local what="$2 in $1 reports $3" start=$SECONDS out
  if dry_run; then plan wait "$what (timeout $5s)"; return 0; fi
  waiting "$what" "$5"
  if out="$(kube wait "--for=condition=$3" "$2" -n "$1" "--timeout=$5s" 2>&1)"; then passed "$what" "$start"; return 0; fi
  failed "$what" "$start" "$out"
  show get "$2" -n "$1" -o "jsonpath=$4"
  inspect "$(quote kubectl describe "$2" -n "$1")"
}

# wait_job NAMESPACE JOB TIMEOUT [--fail-when RESOURCE JSONPATH 'VALUE|VALUE…']... [RESOURCE MESSAGE-JSONPATH]...: polls
# the Job's conditions until Complete (a --fail-when RESOURCE whose JSONPATH is one of the VALUEs fails it at once: its
# controller gave up)
# or Failed (kubectl wait --for=condition=complete would sit out the timeout on a failed Job); on failure
# shows the Job's logs and the status message of each RESOURCE it waits for.
wait_job() {
  local namespace="$1" job="$2" timeout="$3" what="Job $1/$2 complete" start=$SECONDS state type message outcome='' i value
  local fail_when=()
  shift 3
  while [ "\${1:-}" = --fail-when ]; do fail_when+=("$2" "$3" "$4"); shift 4; done
  if dry_run; then plan wait "$what (timeout \${timeout}s)"; return 0; fi
  waiting "$what" "$timeout"
  while [ -z "$outcome" ]; do
    state="$(kube get job "$job" -n "$namespace" -o 'jsonpath={range .status.conditions[?(@.status=="True")]}{.type}{"\\t"}{.message}{"\\n"}{end}' 2>/dev/null)" || state=''
    while IFS=$'\\t' read -r type message; do
      case "$type" in
        Complete) outcome='complete' ;;
        Failed) outcome="the Job failed\${message:+: $message}" ;;
      esac
    done <<<"$state"
    # A watched object whose controller gave up fails the wait at once, not at the Job's deadline.
    for ((i = 0; i < \${#fail_when[@]}; i += 3)); do
      [ -z "$outcome" ] || break
      value="$(kube get "\${fail_when[i]}" -n "$namespace" -o "jsonpath=\${fail_when[i+1]}" 2>/dev/null)" || value=''
      case "|\${fail_when[i+2]}|" in *"|$value|"*) [ -z "$value" ] || outcome="\${fail_when[i]} is '$value'" ;; esac
    done
    if [ -z "$outcome" ]; then
      if (( SECONDS - start >= timeout )); then outcome="the Job did not finish within \${timeout}s"; else sleep "$POLL_SECONDS"; fi
    fi
  done
  if [ "$outcome" = complete ]; then passed "$what" "$start"; return 0; fi
  failed "$what" "$start" "$outcome"
  show logs "job/$job" -n "$namespace" --all-containers
  while [ $# -ge 2 ]; do
    show get "$1" -n "$namespace" -o "jsonpath=$2"
    shift 2
  done
  inspect "$(quote kubectl describe "job/$job" -n "$namespace")"
}

# verify_mirror TIMEOUT SEED-URL KEY-VARIABLE BRANCH NAMESPACE DEPLOYMENT PORT OWNER REPO TOKEN-VARIABLE HINT:
# polls until Forgejo's mirror OWNER/REPO has BRANCH at the commit the GitHub seed has it at. The seed is read with
# git ls-remote over SSH with the deploy key; Forgejo through its API from inside its own container (kubectl exec,
# busybox or GNU wget on 127.0.0.1), the token passed on stdin, never on a command line. Stops naming whether the
# mirror is missing or stale; nothing after it (the flip to Forgejo) runs then.
verify_mirror() {
  local timeout="$1" seed="$2" key="\${!3}" branch="$4" namespace="$5" deployment="$6" port="$7" owner="$8" repo="$9"
  local token="\${!10}" hint="\${11}" start=$SECONDS url want have out problem
  url="http://127.0.0.1:$port/api/v1/repos/$owner/$repo/branches/$branch"
  local what="Forgejo mirror $owner/$repo holds the commit of $branch on $seed"
  if dry_run; then plan verify "$what (git ls-remote with \\$$3; Forgejo API $url through kubectl exec deploy/$deployment -n $namespace; timeout \${timeout}s)"; return 0; fi
  waiting "$what" "$timeout"
  while :; do
    if ! out="$(GIT_SSH_COMMAND="ssh -i $(quote "$key") -o IdentitiesOnly=yes -o BatchMode=yes -o StrictHostKeyChecking=accept-new" \\
      git ls-remote "$seed" "refs/heads/$branch" 2>&1)"; then
      failed "read $branch from the GitHub seed $seed with \\$$3" "$start" "$out"
      inspect "GIT_SSH_COMMAND=$(quote "ssh -i $key -o IdentitiesOnly=yes") git ls-remote $(quote "$seed" "refs/heads/$branch")"
    fi
    want="$(printf '%s\\n' "$out" | sed -nE 's/^([0-9a-f]{40,64})[[:space:]]+refs\\/heads\\/.*/\\1/p' | head -n 1)"
    if [ -z "$want" ]; then
      failed "$what" "$start" "the GitHub seed $seed has no branch $branch (git.targetRevision)"
      abort
    fi
    # shellcheck disable=SC2016 # expanded by the shell inside the Forgejo container
    if out="$(kube exec -i -n "$namespace" "deploy/$deployment" -- sh -c 'IFS= read -r t; wget -q -O - --header "Authorization: token $t" "$1"' sh "$url" <"$token" 2>&1)"; then
      have="$(printf '%s' "$out" | tr -d '\\n' | sed -nE 's/.*"commit":[[:space:]]*\\{[^{}]*"id":[[:space:]]*"([0-9a-f]{40,64})".*/\\1/p')"
      if [ -n "$have" ] && [ "$have" = "$want" ]; then passed "$what ($want)" "$start"; return 0; fi
      problem="the mirror is stale: Forgejo's $branch is at \${have:-an unreadable commit}, the GitHub seed's at $want"
    else
      case "$out" in
        *404*) problem="the mirror is missing: Forgejo has no repository $owner/$repo with a branch $branch" ;;
        *401* | *403*) problem="Forgejo refused the token in \\$\${10} (\${out%%$'\\n'*})" ;;
        *) problem="cannot ask Forgejo's API from inside deploy/$deployment in $namespace: \${out%%$'\\n'*}" ;;
      esac
    fi
    if (( SECONDS - start >= timeout )); then
      failed "$what" "$start" "$problem"
      if [ "$SKIPPED" = 0 ]; then
        printf '    Not flipping the root app to Forgejo: it keeps reading the GitHub seed.\\n' >&2
      else
        printf '    Not re-applying the root app: it is left as this run found it (skipped: %s).\\n' "$SKIPPED_WHY" >&2
      fi
      printf '    hint: %s\\n' "$hint" >&2
      inspect "$(quote kubectl exec -n "$namespace" "deploy/$deployment" -- wget -q -O - "$url") (add --header 'Authorization: token ...' for a private repository)"
    fi
    sleep "$POLL_SECONDS"
  done
}

finish() {
  CURRENT_STEP='the end'
  if dry_run; then printf '\\nDry run complete: %s steps planned, nothing applied.\\n' "$STEPS"; return 0; fi
  if [ "$SKIPPED" = 0 ]; then printf '\\nBootstrap complete: %s steps applied and ready.\\n' "$STEPS"; return 0; fi
  printf '\\nBootstrap complete: %s steps ready: %s applied, %s skipped (the cluster was already past them).\\n' \\
    "$STEPS" "$((STEPS - SKIPPED))" "$SKIPPED"
}`;
