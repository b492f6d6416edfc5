// Runs the generated runbook (bootstrap/bootstrap.sh) as an operator would: bash, the real kubectl of the
// test's release first on PATH, KUBECONFIG pointing at the test control plane, key files generated for the
// run (never the operator's). Nothing in the runbook is replaced; what stands in for a cluster's controllers
// is the StatusWriter, and what stands in for programs that need a network (helm charts, git, a pod to exec
// into) is a recording stand-in named in `standIns`. The release manifests come down the runbook's own path: it
// reads them from HOMELAB_MANIFESTS, pre-seeded with the upstream files (`seedManifestFolder`), and verifies each
// against its pin; curl is a stand-in that fails, so a manifest missing there fails the run instead of reaching out.
import { ChildProcess, spawn, spawnSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import * as YAML from 'yaml';
import { ControlPlane } from './control-plane';
import { seedManifestFolder } from './output-tree';

/** A curl that refuses: every release manifest must come from HOMELAB_MANIFESTS (the test machine has no network). */
const NO_NETWORK_CURL = '#!/bin/sh\necho "curl (cluster-test stand-in): no network here; HOMELAB_MANIFESTS must hold every release manifest: $*" >&2\nexit 7\n';

/**
 * `PATH` without the folders that hold a `cosign`: CNPG's Sigstore bundle cannot be downloaded here, so the runbook
 * must take its "signature not verified: cosign not installed" path on every machine, whatever is installed.
 */
function pathWithoutCosign(searchPath: string): string {
  return searchPath.split(':').filter((d) => d !== '' && !fs.existsSync(path.join(d, 'cosign'))).join(':');
}

export interface RunbookEnv {
  readonly env: NodeJS.ProcessEnv;
  readonly dir: string;
}

const FIXTURES = path.join(__dirname, '..', 'fixtures');
const STANDIN_HELM = path.join(FIXTURES, 'standin-helm');
const STANDIN_LABELS = { 'homelab-test/stand-in': 'helm' };

/**
 * What the stand-in helm creates for each release: the objects the runbook waits for after its helm_release
 * line (wait_rollout NAMESPACE KIND/NAME, wait_object ... storageclass/NAME), read from the runbook itself, so
 * nothing here names Cilium's or Longhorn's objects a second time.
 */
export function standInReleases(tree: string): Map<string, any[]> {
  const releases = new Map<string, any[]>();
  let current: any[] | undefined;
  for (const line of fs.readFileSync(path.join(tree, 'bootstrap', 'bootstrap.sh'), 'utf8').split('\n')) {
    const helm = /^helm_release \S+ (\S+) /.exec(line);
    if (helm !== null) {
      current = [];
      releases.set(helm[1], current);
      continue;
    }
    if (/^step /.test(line)) current = undefined;
    if (current === undefined) continue;
    const rollout = /^wait_rollout (\S+) (deployment|daemonset|statefulset)\/(\S+) /.exec(line);
    if (rollout !== null) {
      const [, namespace, kind, name] = rollout;
      const labels = { ...STANDIN_LABELS, 'app.kubernetes.io/name': name };
      const template = { metadata: { labels }, spec: { containers: [{ name, image: 'registry.k8s.io/pause:3.9' }] } };
      const spec: any = { selector: { matchLabels: labels }, template };
      if (kind === 'statefulset') spec.serviceName = name;
      const kindName = { deployment: 'Deployment', daemonset: 'DaemonSet', statefulset: 'StatefulSet' }[kind];
      current.push({ apiVersion: 'apps/v1', kind: kindName, metadata: { name, namespace, labels }, spec });
    }
    const storageClass = /^wait_object \d+ storageclass\/(\S+) /.exec(line);
    if (storageClass !== null) {
      const annotations = line.includes('is-default-class') ? { 'storageclass.kubernetes.io/is-default-class': 'true' } : {};
      current.push({
        apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', metadata: { name: storageClass[1], labels: STANDIN_LABELS, annotations },
        provisioner: 'stand-in.homelab-test', allowVolumeExpansion: true,
      });
    }
  }
  return releases;
}

/** Secrets the runbook checks for and an operator creates by hand (`need_secret NAMESPACE NAME HINT`). */
export function operatorSecrets(tree: string): { namespace: string; name: string }[] {
  const script = fs.readFileSync(path.join(tree, 'bootstrap', 'bootstrap.sh'), 'utf8');
  return [...script.matchAll(/^need_secret (\S+) (\S+) /gm)].map((m) => ({ namespace: m[1], name: m[2] }));
}

/** Creates them as the hint says: a basic-auth Secret with `username` and `password` (CNPG's role format). */
export async function createOperatorSecrets(plane: ControlPlane, secrets: readonly { namespace: string; name: string }[]): Promise<void> {
  for (const { namespace, name } of secrets) {
    await plane.kubectl(['create', 'namespace', namespace]);
    const r = await plane.kubectl(['create', 'secret', 'generic', name, '-n', namespace, '--type=kubernetes.io/basic-auth',
      '--from-literal=username=app', `--from-literal=password=test-${Math.random().toString(36).slice(2)}`]);
    if (r.status !== 0) throw new Error(`creating Secret ${namespace}/${name}: ${r.stderr}`);
  }
}

/**
 * One-line secrets the runbook reads from a file (`need_file VARIABLE token 'HINT'`, e.g. the lost Forgejo's SECRET_KEY
 * a restore installs), at their default path under the run's HOME `dir`: `VARIABLE` → file. runbookEnv writes a made-up
 * value (no trailing newline, as the hints ask) into each that does not exist yet; a test may write its own first or after.
 */
export function tokenFiles(tree: string, dir: string): Map<string, string> {
  const script = fs.readFileSync(path.join(tree, 'bootstrap', 'bootstrap.sh'), 'utf8');
  return new Map([...script.matchAll(/^\s*need_file (\S+) token /gm)].map(([, variable]) => {
    const home = new RegExp(`^default_path ${variable} "\\$HOME"/(\\S+)$`, 'm').exec(script);
    if (home === null) throw new Error(`the runbook reads $${variable} from no path under $HOME`);
    return [variable, path.join(dir, home[1])] as const;
  }));
}

/**
 * The `kubernetes` Service's EndpointSlice a real control plane would publish for the tree's config: the runbook's
 * `check_api_endpoints 'CIDR...' PORT ...` line (the namespaces step, when Phase 0 is isolated) reads it before the
 * NetworkPolicies are applied. The test API server cannot publish its own: it advertises 127.0.0.1, and kube-apiserver
 * v1.30 writes the Endpoints `kubernetes` first and refuses a loopback address there ("may not be in the loopback
 * range", pkg/apis/core/validation/validation.go ValidateNonSpecialIP), so it never writes the EndpointSlice
 * (pkg/controlplane/reconcilers/endpointsadapter.go: the slice only after the Endpoints) and never overwrites this
 * one. Its port would be the random test port anyway, not the tree's. So this stands in for the control-plane node:
 * the first address of the first CIDR on the tree's port, shaped as kube-apiserver writes it (endpointSliceFromEndpoints:
 * name and label `kubernetes`, addressType IPv4, one ready endpoint per address, one port named https). The real kubectl
 * then evaluates the runbook's label selector and JSONPath on it. Undefined when the runbook has no check.
 */
export function apiServerEndpointSlice(tree: string): Record<string, unknown> | undefined {
  const script = fs.readFileSync(path.join(tree, 'bootstrap', 'bootstrap.sh'), 'utf8');
  const check = /^\s*check_api_endpoints '?([0-9./ ]+?)'? (\d+) /m.exec(script);
  if (check === null) return undefined;
  const [network, prefix] = check[1].split(' ')[0].split('/');
  const octets = network.split('.').map(Number);
  // the network's first host (a /32 is the host itself)
  if (Number(prefix) < 32) octets[3] += 1;
  return {
    apiVersion: 'discovery.k8s.io/v1',
    kind: 'EndpointSlice',
    metadata: { name: 'kubernetes', namespace: 'default', labels: { 'kubernetes.io/service-name': 'kubernetes' } },
    addressType: 'IPv4',
    endpoints: [{ addresses: [octets.join('.')], conditions: { ready: true } }],
    ports: [{ name: 'https', port: Number(check[2]), protocol: 'TCP' }],
  };
}

/**
 * A bin folder with the built kubectl, the stand-in helm and a curl that refuses first on PATH (and no cosign), the
 * release manifests in HOMELAB_MANIFESTS, an age identity and SSH deploy key made for the run, and the `kubernetes`
 * Service's EndpointSlice the runbook checks (`apiServerEndpointSlice`).
 */
export function runbookEnv(plane: ControlPlane, tree: string, extra: NodeJS.ProcessEnv = {}, options: { cutover?: boolean } = {}): RunbookEnv {
  const dir = path.join(plane.dir, 'runbook');
  const bin = path.join(dir, 'bin');
  const releases = path.join(dir, 'helm-releases');
  fs.mkdirSync(bin, { recursive: true });
  fs.mkdirSync(releases, { recursive: true });
  // After the cutover the runbook also reads the GitHub seed with git and asks Forgejo through kubectl exec.
  const tools = options.cutover === true
    ? [['kubectl', path.join(FIXTURES, 'standin-kubectl')], ['helm', STANDIN_HELM], ['git', path.join(FIXTURES, 'standin-git')]]
    : [['kubectl', plane.binaries.kubectl], ['helm', STANDIN_HELM]];
  for (const [name, target] of tools) {
    fs.rmSync(path.join(bin, name), { force: true });
    fs.symlinkSync(target, path.join(bin, name));
  }
  fs.writeFileSync(path.join(bin, 'curl'), NO_NETWORK_CURL, { mode: 0o755 });
  const manifests = seedManifestFolder(tree, path.join(dir, 'manifests'));
  for (const [release, objects] of standInReleases(tree)) {
    fs.writeFileSync(path.join(releases, `${release}.yaml`), objects.map((o) => YAML.stringify(o)).join('---\n'));
  }
  const age = path.join(dir, 'age-keys.txt');
  // The shape `age-keygen` writes (bech32, upper case); the runbook checks the format, SOPS would decrypt with it.
  fs.writeFileSync(age, '# created: test\n# public key: age1test\nAGE-SECRET-KEY-1' + 'QXYZ'.repeat(14) + 'QX\n', { mode: 0o600 });
  const deployKey = path.join(dir, 'seed_deploy_key');
  if (!fs.existsSync(deployKey)) {
    const r = spawnSync('openssl', ['genpkey', '-algorithm', 'ed25519', '-out', deployKey], { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`openssl genpkey failed: ${r.stderr}`);
    fs.chmodSync(deployKey, 0o600);
  }
  // The env files the runbook installs as Secrets (`need_file VARIABLE env-file 'HINT' KEY...`, e.g. the object-store
  // credentials of a Phase-0 cluster's backups): every key with a made-up value, in the variable the runbook reads.
  const envFiles: Record<string, string> = {};
  const script = fs.readFileSync(path.join(tree, 'bootstrap', 'bootstrap.sh'), 'utf8');
  for (const [line, variable] of script.matchAll(/^\s*need_file (\S+) env-file .*$/gm)) {
    const keys = line.slice(line.lastIndexOf('\'') + 1).trim().split(' ');
    envFiles[variable] = path.join(dir, `${variable.toLowerCase()}.env`);
    fs.writeFileSync(envFiles[variable], keys.map((k) => `${k}=test-${k.toLowerCase()}\n`).join(''), { mode: 0o600 });
  }
  const slice = apiServerEndpointSlice(tree);
  if (slice !== undefined) {
    const r = spawnSync(plane.binaries.kubectl, ['--kubeconfig', plane.kubeconfig, 'apply', '--server-side', '--field-manager=homelab-test-standin', '-f', '-'],
      { input: JSON.stringify(slice), encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`applying the stand-in EndpointSlice default/kubernetes failed: ${r.stderr}`);
  }
  for (const [variable, file] of tokenFiles(tree, dir)) {
    if (fs.existsSync(file)) continue;
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, `test-${variable.toLowerCase()}`, { mode: 0o600 });
  }
  return {
    dir,
    env: {
      ...envFiles,
      PATH: `${bin}:${pathWithoutCosign(process.env.PATH ?? '')}`,
      HOMELAB_MANIFESTS: manifests,
      HOME: dir,
      KUBECONFIG: plane.kubeconfig,
      SOPS_AGE_KEY_FILE: age,
      SEED_DEPLOY_KEY: deployKey,
      STANDIN_HELM_DIR: releases,
      STANDIN_HELM_LOG: path.join(dir, 'helm.log'),
      STANDIN_REAL_KUBECTL: plane.binaries.kubectl,
      STANDIN_GIT_LOG: path.join(dir, 'git.log'),
      STANDIN_EXEC_LOG: path.join(dir, 'exec.log'),
      LANG: 'C.UTF-8',
      ...extra,
    },
  };
}

export interface RunResult {
  readonly status: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly output: string;
  /** The step the run was killed in, when it was. */
  readonly killedAt?: number;
}

/** `[k/N] name:` headers the runbook printed, as step numbers. */
export function stepsStarted(output: string): number[] {
  return [...output.matchAll(/^\[(\d+)\/\d+\] /gm)].map((m) => Number(m[1]));
}

/**
 * Runs `bash bootstrap.sh --yes` in `tree`. With `killAtStep`, the whole process group is killed (SIGKILL, as a
 * lost SSH session or a power cut would) `killDelayMs` after that step's header appears, mid-step.
 */
export interface RunOptions {
  readonly killAtStep?: number;
  readonly killDelayMs?: number;
  readonly args?: string[];
  readonly timeoutMs?: number;
}

export function runRunbook(tree: string, env: RunbookEnv, options: RunOptions = {}): Promise<RunResult> {
  const script = path.join(tree, 'bootstrap', 'bootstrap.sh');
  return new Promise((resolve) => {
    const child: ChildProcess = spawn('bash', [script, '--yes', ...(options.args ?? [])], {
      cwd: env.dir, env: env.env, stdio: ['ignore', 'pipe', 'pipe'], detached: true,
    });
    let output = '';
    let killedAt: number | undefined;
    const kill = (): void => {
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // already gone
      }
    };
    const timer = setTimeout(() => { output += `\n[test] timed out after ${(options.timeoutMs ?? 300_000) / 1000} s\n`; kill(); }, options.timeoutMs ?? 300_000);
    const onData = (c: Buffer): void => {
      output += c.toString();
      if (options.killAtStep !== undefined && killedAt === undefined && stepsStarted(output).includes(options.killAtStep)) {
        killedAt = options.killAtStep;
        setTimeout(kill, options.killDelayMs ?? 0);
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('close', (status, signal) => {
      clearTimeout(timer);
      resolve({ status, signal, output, ...(killedAt === undefined ? {} : { killedAt }) });
    });
  });
}
