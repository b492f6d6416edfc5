'use strict';
// A synthetic homelab checkout for the coverage benchmark: exactly N files, deterministic, and clean under
// the config of the committed dist/ (homelab.config.ts), so `npm run coverage -- --repo <dir>` exits 0.
//
//   const { makeHomelabTree } = require('./bench/coverage-fixture');
//   makeHomelabTree('/tmp/homelab', 10000);
//
// or from a shell: node bench/coverage-fixture.js <dir> <fileCount>
//
// The skeleton comes from the committed dist/: every directory and $values file an Application reads, and
// dist/ itself copied to git.distPath. The rest is filler where the audit has work to do: kustomization
// chains under monitoring-config's path, plain manifests in the other directory sources, SOPS-encrypted
// Secrets for sops-secrets, and Markdown docs.
const fs = require('fs');
const path = require('path');
const YAML = require('yaml');

const PROJECT = path.resolve(__dirname, '..');
const DIST = path.join(PROJECT, 'dist');
/** Manifests per kustomization group (plus the group's kustomization.yaml). */
const GROUP_SIZE = 49;

/** Every file under `dir`, relative and with `/` separators, sorted. */
function listFiles(dir, rel = '') {
  const out = [];
  for (const entry of fs.readdirSync(path.join(dir, rel), { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
    const child = rel ? `${rel}/${entry.name}` : entry.name;
    if (entry.isDirectory()) out.push(...listFiles(dir, child));
    else out.push(child);
  }
  return out;
}

/** The homelab-repo paths the committed Applications read: directories, values files, and where dist/ lives. */
function readApplications() {
  const rootFile = listFiles(path.join(DIST, 'argocd/root'))[0];
  const root = YAML.parse(fs.readFileSync(path.join(DIST, 'argocd/root', rootFile), 'utf8'));
  const repoUrl = root.spec.source.repoURL;
  const distPath = root.spec.source.path.replace(/\/?argocd\/apps$/, '') || '.';
  const inDist = (p) => distPath === '.' || p === distPath || p.startsWith(`${distPath}/`);
  const dirs = [];
  const overlays = new Map();
  const values = [];
  let monitoring;
  for (const file of listFiles(path.join(DIST, 'argocd/apps'))) {
    const app = YAML.parse(fs.readFileSync(path.join(DIST, 'argocd/apps', file), 'utf8'));
    for (const s of app.spec.sources ?? [app.spec.source]) {
      // A delivery app (lib/homelab/delivery/rollouts.ts) reads its overlay, which builds its generated folder apps/<name>.
      const generated = `apps/${app.metadata.name}`;
      if (s.repoURL === repoUrl && s.path && !s.plugin && !s.ref && !inDist(s.path) && fs.existsSync(path.join(DIST, generated, 'kustomization.yaml'))) {
        overlays.set(s.path, path.posix.relative(s.path, distPath === '.' ? generated : `${distPath}/${generated}`));
      } else if (s.repoURL === repoUrl && s.path && !s.plugin && !s.ref && !inDist(s.path)) {
        dirs.push(s.path);
        if (app.metadata.name === 'monitoring-config') monitoring = s.path;
      }
      for (const v of s.helm?.valueFiles ?? []) {
        const p = v.replace(/^\$values\//, '');
        if (p !== v && !inDist(p)) values.push(p);
      }
    }
  }
  return { distPath, dirs: [...new Set(dirs)].sort(), overlays, values: [...new Set(values)].sort(), monitoring };
}

function configMap(name, i) {
  return [
    'apiVersion: v1', 'kind: ConfigMap', 'metadata:', `  name: ${name}`, '  labels:', '    app.kubernetes.io/part-of: homelab',
    'data:', `  index: "${i}"`, '  settings.yaml: |', '    level: info', `    shard: ${i % 16}`, '',
  ].join('\n');
}

function prometheusRule(name, i) {
  return [
    'apiVersion: monitoring.coreos.com/v1', 'kind: PrometheusRule', 'metadata:', `  name: ${name}`, '  namespace: monitoring',
    'spec:', '  groups:', `    - name: ${name}`, '      rules:', `        - alert: Synthetic${i}`,
    `          expr: up{job="synthetic-${i % 32}"} == 0`, '          for: 5m', '',
  ].join('\n');
}

function encryptedSecret(name) {
  return [
    'apiVersion: v1', 'kind: Secret', 'metadata:', `  name: ${name}`, 'stringData:',
    '  token: ENC[AES256_GCM,data:c3ludGhldGlj,iv:aXY=,tag:dGFn,type:str]',
    'sops:', '  age:', '    - recipient: age1synthetic', '  encrypted_regex: ^(data|stringData)$', '  version: 3.9.0', '',
  ].join('\n');
}

function kustomization(resources) {
  return ['apiVersion: kustomize.config.k8s.io/v1beta1', 'kind: Kustomization', 'resources:', ...resources.map((r) => `  - ${r}`), ''].join('\n');
}

/**
 * Writes a synthetic homelab checkout of exactly `fileCount` files into `dir` (created if needed; it should
 * be empty). Returns `{ dir, files, distPath }`. Throws when `fileCount` is smaller than the skeleton.
 */
function makeHomelabTree(dir, fileCount) {
  const { distPath, dirs, overlays, values, monitoring } = readApplications();
  const files = new Map();
  for (const f of listFiles(DIST)) files.set(distPath === '.' ? f : `${distPath}/${f}`, fs.readFileSync(path.join(DIST, f), 'utf8'));
  const plainDirs = dirs.filter((d) => d !== monitoring);
  for (const d of plainDirs) files.set(`${d}/${path.posix.basename(d)}.yaml`, configMap(path.posix.basename(d), 0));
  for (const [d, generated] of [...overlays].sort()) files.set(`${d}/kustomization.yaml`, kustomization([generated]));
  for (const v of values) files.set(v, 'replicaCount: 1\n');
  files.set('README.md', '# homelab (synthetic)\n');
  files.set('.sops.yaml', 'creation_rules:\n  - path_regex: .*\\.enc\\.yaml$\n    encrypted_regex: ^(data|stringData)$\n');
  // monitoring-config's kustomization (top) -> rules/kustomization.yaml -> one kustomization per group.
  const mon = monitoring ?? plainDirs[0];
  const groups = [];
  const reserve = monitoring ? 2 : 0;
  const skeleton = files.size + reserve;
  if (fileCount < skeleton) throw new Error(`makeHomelabTree: fileCount ${fileCount} is below the skeleton of ${skeleton} files`);

  let left = fileCount - skeleton;
  const share = (fraction) => Math.floor((fileCount - skeleton) * fraction);
  // 45% kustomize groups, 40% plain manifests, 10% encrypted Secrets, the rest docs.
  let kustomizeFiles = monitoring ? share(0.45) : 0;
  const plainFiles = share(0.40);
  const secretFiles = share(0.10);
  for (let g = 0; kustomizeFiles >= 2; g++) {
    const name = `group-${String(g).padStart(4, '0')}`;
    const n = Math.min(GROUP_SIZE, kustomizeFiles - 1);
    const members = [];
    for (let i = 0; i < n; i++) {
      const file = `rule-${String(i).padStart(3, '0')}.yaml`;
      members.push(file);
      files.set(`${mon}/rules/${name}/${file}`, prometheusRule(`${name}-${i}`, g * GROUP_SIZE + i));
    }
    files.set(`${mon}/rules/${name}/kustomization.yaml`, kustomization(members));
    groups.push(name);
    kustomizeFiles -= n + 1;
    left -= n + 1;
  }
  if (monitoring) {
    files.set(`${mon}/kustomization.yaml`, kustomization(['rules']));
    files.set(`${mon}/rules/kustomization.yaml`, kustomization(groups));
  }
  for (let i = 0; i < plainFiles; i++) {
    const d = plainDirs[i % plainDirs.length];
    files.set(`${d}/filler-${String(i).padStart(5, '0')}.yaml`, configMap(`filler-${i}`, i));
    left--;
  }
  for (let i = 0; i < secretFiles; i++) {
    files.set(`k8s/secrets/ns-${String(i % 20).padStart(2, '0')}/secret-${String(i).padStart(5, '0')}.enc.yaml`, encryptedSecret(`secret-${i}`));
    left--;
  }
  for (let i = 0; left > 0; i++, left--) {
    files.set(`docs/section-${String(i % 10).padStart(2, '0')}/page-${String(i).padStart(5, '0')}.md`, `# Page ${i}\n\nSynthetic documentation.\n`);
  }

  for (const [rel, content] of [...files.entries()].sort(([a], [b]) => (a < b ? -1 : 1))) {
    const abs = path.join(dir, ...rel.split('/'));
    fs.mkdirSync(path.dirname(abs), { recursive: true });
    fs.writeFileSync(abs, content);
  }
  return { dir, files: files.size, distPath };
}

module.exports = { makeHomelabTree };

if (require.main === module) {
  const [dir, count] = process.argv.slice(2);
  if (!dir || !/^[0-9]+$/.test(count ?? '')) {
    console.error('Usage: node bench/coverage-fixture.js <dir> <fileCount>');
    process.exit(2);
  }
  const result = makeHomelabTree(path.resolve(dir), Number(count));
  console.log(`Wrote ${result.files} files into ${result.dir}`);
}
