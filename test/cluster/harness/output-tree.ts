// A synthesized output tree, made applicable on a machine without internet: the bootstrap kustomizations pull
// the Argo CD and CNPG release manifests by URL, and ../shared/manifests/ holds those exact files, unmodified,
// with the checksums of the bytes the URLs serve. The runbook takes them from a folder pre-seeded with them
// (HOMELAB_MANIFESTS, `seedManifestFolder`) and verifies them itself, down its real path; a test that applies a
// kustomization with kubectl directly gets a staged copy that names the local file (`applyUnits`).
import { isNotAppliedFile } from '../../../lib/validation/manifest-documents';
import { spawnSync } from 'child_process';
import { createHash } from 'crypto';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as YAML from 'yaml';
import { manifestFileName } from '../../../lib/shared/manifest-integrity';
import { BARMAN_CLOUD_PLUGIN_MANIFEST_URL, BARMAN_CLOUD_PLUGIN_VERSION } from '../../../lib/shared/pins';

export const ROOT = path.resolve(__dirname, '..', '..', '..');
export const SHARED = path.resolve(ROOT, '..', 'shared');
const MANIFESTS = path.join(SHARED, 'manifests');

/** Whether ../shared holds the pinned CRDs and the upstream release manifests these tests apply. */
export const SHARED_PRESENT = fs.existsSync(MANIFESTS) && fs.existsSync(path.join(SHARED, 'crds'));

/**
 * `describe` when ../shared is there; otherwise `describe.skip` with the reason in the name, so a clone without it
 * shows the tests as skipped (test/jest/skipped-reporter.js lists them), never as passed.
 */
export const describeWithShared = (name: string, fn: () => void): void => {
  if (SHARED_PRESENT) describe(name, fn);
  else describe.skip(`${name} (skipped: ../shared/manifests and ../shared/crds not found next to the repository)`, fn);
};

/** The URL each bootstrap kustomization names → its local copy and the sha256 ../shared/manifests/README.md lists. */
export const UPSTREAM_MANIFESTS: Readonly<Record<string, { readonly file: string; readonly sha256: string }>> = {
  'https://raw.githubusercontent.com/argoproj/argo-cd/v3.5.1/manifests/install.yaml':
    { file: 'argocd-v3.5.1-install.yaml', sha256: '795a3a972224da6a7f9d32c3e946445f062b60fb46028476715affeb688236e3' },
  'https://github.com/cloudnative-pg/cloudnative-pg/releases/download/v1.30.0/cnpg-1.30.0.yaml':
    { file: 'cnpg-1.30.0.yaml', sha256: 'f8bede43fe4ee0d478c2355b204a36876b2ae4faac60f2a9452280b293da3b88' },
};

/** A file of a Go module that stands in for a release manifest. */
interface GoModuleManifest {
  /** `module@version`. */
  readonly module: string;
  /** The file inside the module. */
  readonly file: string;
  readonly sha256: string;
}

/**
 * Release manifests that are neither in ../shared/manifests nor downloadable here, taken from the Go module of the same
 * tag instead, in the cluster test only. The Barman Cloud plugin's release asset is `kustomize build` of `kubernetes/`
 * at the tag with the release images set (Taskfile.yml `manifest` at v0.14.0); the module
 * `github.com/cloudnative-pg/plugin-barman-cloud@v0.14.0`, fetched through the Go module proxy and verified against
 * Go's checksum database by `go mod download` (cached in the module cache), holds the repository's `manifest.yaml` at
 * the tag: the same objects, built the same way, with the testing image names (`...-testing:main`) and another hash
 * suffix on the generated Secret, which the API server does not look at. Its sha256 is pinned here as well. The config
 * leaves the asset 'unpinned' (its sha256 is not known here), so the runbook prints this file's hash and applies it;
 * once the config pins the real asset, the runbook refuses this stand-in, and the cluster test must pin it in its config.
 */
export const GO_MODULE_MANIFESTS: Readonly<Record<string, GoModuleManifest>> = {
  [BARMAN_CLOUD_PLUGIN_MANIFEST_URL]: {
    module: `github.com/cloudnative-pg/plugin-barman-cloud@${BARMAN_CLOUD_PLUGIN_VERSION}`,
    file: 'manifest.yaml',
    sha256: '691e598b4591e83e23586d3394a8fedef429586a01d1a1b56ab8b80e9fa6ccb0',
  },
};

/** A file of a Go module, downloaded (or found in the module cache) and verified by `go mod download`. */
function goModuleFile(module: string, file: string): string {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'go-mod-download-'));
  try {
    // Outside any module, so no go.mod of ours is read or changed; GOFLAGS=-mod=mod lets nothing vendor in.
    const r = spawnSync('go', ['mod', 'download', '-json', module], { cwd: work, encoding: 'utf8', env: { ...process.env, GOFLAGS: '-mod=mod' } });
    if (r.error !== undefined || r.status !== 0) {
      throw new Error(`go mod download ${module} failed (the cluster test needs Go and the module proxy): ${r.error?.message ?? ''}${r.stdout}${r.stderr}`);
    }
    const dir = JSON.parse(r.stdout).Dir as string | undefined;
    if (dir === undefined) throw new Error(`go mod download ${module} named no module folder: ${r.stdout}`);
    return path.join(dir, file);
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}

/** The name the runbook gives the verified copy of `url` (next to its kustomization, and in HOMELAB_MANIFESTS). */
function localName(url: string): string {
  const name = manifestFileName(url);
  if (name === undefined) throw new Error(`${url} ends in no file name`);
  return name;
}

/**
 * Seeds `folder` (the runbook's HOMELAB_MANIFESTS) with the local copy of every release manifest the tree's runbook
 * fetches (`fetch_manifest STEP URL ...`), named as the runbook looks for it: the runbook then verifies each against
 * its pin and downloads nothing. Returns `folder`.
 */
export function seedManifestFolder(tree: string, folder: string): string {
  fs.mkdirSync(folder, { recursive: true });
  const script = fs.readFileSync(path.join(tree, 'bootstrap', 'bootstrap.sh'), 'utf8');
  const urls = [...new Set([...script.matchAll(/^\s*fetch_manifest \S+ (\S+) /gm)].map((m) => m[1]))];
  if (urls.length === 0) throw new Error(`${tree}/bootstrap/bootstrap.sh fetches no release manifest (fetch_manifest): the harness expects some`);
  for (const url of urls) {
    const target = path.join(folder, localName(url));
    fs.copyFileSync(localManifest(url), target);
    // the module cache holds its files read-only
    fs.chmodSync(target, 0o644);
  }
  return folder;
}

/** The local copy of an upstream manifest, after checking its bytes are the ones the URL serves. */
export function localManifest(url: string): string {
  const fromModule = GO_MODULE_MANIFESTS[url];
  if (fromModule !== undefined) {
    const file = goModuleFile(fromModule.module, fromModule.file);
    const sha256 = createHash('sha256').update(fs.readFileSync(file)).digest('hex');
    if (sha256 !== fromModule.sha256) throw new Error(`${file}: sha256 ${sha256}, expected ${fromModule.sha256} (${fromModule.file} of ${fromModule.module})`);
    return file;
  }
  const entry = UPSTREAM_MANIFESTS[url];
  if (entry === undefined) throw new Error(`no local copy of ${url} in ../shared/manifests/; add it to UPSTREAM_MANIFESTS with its sha256`);
  const file = path.join(MANIFESTS, entry.file);
  const sha256 = createHash('sha256').update(fs.readFileSync(file)).digest('hex');
  if (sha256 !== entry.sha256) throw new Error(`${file}: sha256 ${sha256}, expected ${entry.sha256} (the bytes ${url} serves)`);
  return file;
}

/**
 * Copies `dist` into a temporary folder, with a placeholder for each file a secretGenerator reads (`secretFiles` by
 * name, or a made-up one). Remote resources keep their URLs, as in the committed tree: the runbook fetches and verifies
 * them (`seedManifestFolder`), and `applyUnits` stages a local copy for a direct `kubectl apply -k`.
 */
export function offlineCopy(dist: string, secretFiles: Readonly<Record<string, string>> = {}): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'homelab-tree-'));
  fs.cpSync(dist, dir, { recursive: true });
  for (const file of walk(dir).filter((f) => path.basename(f) === 'kustomization.yaml')) {
    const k = YAML.parse(fs.readFileSync(file, 'utf8'));
    for (const gen of k.secretGenerator ?? []) {
      for (const f of gen.files ?? []) {
        const name = f.includes('=') ? f.split('=')[1] : f;
        if (!fs.existsSync(path.join(path.dirname(file), name))) {
          fs.writeFileSync(path.join(path.dirname(file), name), secretFiles[name] ?? 'test-placeholder\n', { mode: 0o600 });
        }
      }
    }
  }
  return dir;
}

/** Staged copies of kustomization folders with remote resources, by folder, so repeated `applyUnits` calls reuse them. */
const staged = new Map<string, string>();

/**
 * A kustomization folder as a direct `kubectl apply -k` can apply it without a network: the folder itself, or, when it
 * names remote resources, a staged copy (made once) with each one's verified local copy next to the kustomization and
 * named instead of the URL, as the runbook's apply_staged does.
 */
function applicableKustomization(folder: string): string {
  const file = path.join(folder, 'kustomization.yaml');
  const k = YAML.parse(fs.readFileSync(file, 'utf8'));
  const remote = (k.resources ?? []).filter((r: string) => /^https?:\/\//.test(r));
  if (remote.length === 0) return folder;
  const known = staged.get(folder);
  if (known !== undefined) return known;
  const copy = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'homelab-staged-')), path.basename(folder));
  fs.cpSync(folder, copy, { recursive: true });
  k.resources = k.resources.map((r: string) => {
    if (!remote.includes(r)) return r;
    const local = path.join(copy, localName(r));
    fs.copyFileSync(localManifest(r), local);
    // the module cache holds its files read-only
    fs.chmodSync(local, 0o644);
    return path.basename(local);
  });
  fs.writeFileSync(path.join(copy, 'kustomization.yaml'), YAML.stringify(k));
  staged.set(folder, copy);
  return copy;
}

export function walk(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? walk(p) : [p];
  }).sort();
}

/** Synthesizes `config` into a fresh temporary folder with the project's CLI, as a user would. */
export function synthesize(config: string): string {
  const out = fs.mkdtempSync(path.join(os.tmpdir(), 'homelab-synth-'));
  const r = spawnSync(process.execPath, ['--require', 'tsx/cjs', path.join(ROOT, 'main.ts'), '--config', config, '--out', path.join(out, 'dist')],
    { cwd: ROOT, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`synth of ${config} failed:\n${r.stderr}`);
  return path.join(out, 'dist');
}

/** One unit of the tree the way it is applied: a plain manifest file (-f) or a kustomization folder (-k). */
export interface ApplyUnit {
  /** Path relative to the tree, e.g. `bootstrap/02-cnpg-operator`. */
  readonly name: string;
  readonly flag: '-f' | '-k';
  readonly path: string;
}

/**
 * Every Kubernetes manifest of the tree in the order a bring-up creates it: the bootstrap steps by their
 * number (the runbook's order), then what Argo CD applies (argocd/ and the Application source folders), one
 * unit per folder. A Helm release step (a folder with only a values file) is not a manifest: the runbook hands
 * it to helm. Helm values files (values/) are left out for the same reason.
 */
export function applyUnits(tree: string): ApplyUnit[] {
  const bootstrap = path.join(tree, 'bootstrap');
  const isManifest = (f: string): boolean =>
    YAML.parseAllDocuments(fs.readFileSync(f, 'utf8')).some((d) => d.toJSON()?.kind !== undefined && d.toJSON()?.apiVersion !== undefined);
  const steps = fs.readdirSync(bootstrap).filter((n) => /^\d+-/.test(n)).sort().flatMap((n): ApplyUnit[] => {
    const p = path.join(bootstrap, n);
    if (!fs.statSync(p).isDirectory()) return [{ name: `bootstrap/${n}`, flag: '-f', path: p }];
    return fs.existsSync(path.join(p, 'kustomization.yaml')) ? [{ name: `bootstrap/${n}`, flag: '-k', path: applicableKustomization(p) }] : [];
  });
  const folders = [...new Set(walk(tree)
    .filter((f) => f.endsWith('.yaml') && !f.startsWith(bootstrap + path.sep) && !f.startsWith(path.join(tree, 'values') + path.sep))
    // The build workflow and the Talos patches are files for people and nodes, never applied to the cluster.
    .filter((f) => !isNotAppliedFile(path.relative(tree, f).split(path.sep).join('/')))
    .filter(isManifest)
    .map((f) => path.dirname(f)))];
  return [...steps, ...folders.flatMap((d): ApplyUnit[] => {
    const name = path.relative(tree, d);
    if (!fs.existsSync(path.join(d, 'kustomization.yaml'))) return [{ name, flag: '-f', path: d }];
    const resources = ((YAML.parse(fs.readFileSync(path.join(d, 'kustomization.yaml'), 'utf8')).resources ?? []) as string[]);
    // A kustomization Argo CD builds: as kustomize would when it is local (the app tier's folders); over a remote
    // release (Argo Rollouts, Image Updater) only its local files, since the release is not on this machine.
    if (!resources.some((r) => /^https?:\/\//.test(r))) return [{ name, flag: '-k', path: d }];
    return resources.filter((r) => !/^https?:\/\//.test(r)).map((r) => ({ name: `${name}/${r}`, flag: '-f', path: path.join(d, r) }));
  })];
}
