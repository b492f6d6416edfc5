import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { ArgoCdChart } from '../../lib/homelab/argocd-chart';
import { HomelabConfig } from '../../lib/config/homelab-config';
import { REFERENCE_HOMELAB } from '../../lib/config/defaults';
import { CoverageModel, coverageModel, isInside } from '../../lib/coverage/coverage-model';
import { synthesizeHomelab } from '../../lib/synth/synthesize-homelab';
import { OutputTree } from '../../lib/output/output-tree';

/** A file tree: content keyed by repo-relative path. */
export type Files = Record<string, string>;

/** One Kubernetes manifest as YAML. */
export function manifest(kind: string, name: string, apiVersion = 'v1'): string {
  return `apiVersion: ${apiVersion}\nkind: ${kind}\nmetadata:\n  name: ${name}\n`;
}

/** A kustomization listing `resources`. */
export function kustomization(resources: readonly string[]): string {
  return ['apiVersion: kustomize.config.k8s.io/v1beta1', 'kind: Kustomization', 'resources:', ...resources.map((r) => `  - ${r}`), ''].join('\n');
}

/** A SOPS-encrypted Secret as `sops --encrypt --encrypted-regex '^(data|stringData)$'` writes it. */
export function encryptedSecret(name: string): string {
  return [
    'apiVersion: v1', 'kind: Secret', 'metadata:', `  name: ${name}`, 'stringData:',
    '  token: ENC[AES256_GCM,data:bm90LWEtc2VjcmV0,iv:aXY=,tag:dGFn,type:str]',
    'sops:', '  age:', '    - recipient: age1example', '  encrypted_regex: ^(data|stringData)$', '  version: 3.9.0', '',
  ].join('\n');
}

/** The platform's monitoring tree: one aggregator kustomization over 27 rules, monitors and dashboards. */
export const MONITORING_MANIFESTS = { alerts: 12, servicemonitors: 9, dashboards: 6 } as const;

/** `k8s/infra/monitoring` as the `monitoring-config` Application reads it (a kustomization chain). */
export function monitoringFiles(): Files {
  const root = 'k8s/infra/monitoring';
  const kinds = {
    alerts: ['PrometheusRule', 'monitoring.coreos.com/v1'],
    servicemonitors: ['ServiceMonitor', 'monitoring.coreos.com/v1'],
    dashboards: ['ConfigMap', 'v1'],
  };
  const crd = (name: string) => manifest('CustomResourceDefinition', `${name}.monitoring.coreos.com`, 'apiextensions.k8s.io/v1');
  const files: Files = {
    [`${root}/kustomization.yaml`]: kustomization(Object.keys(MONITORING_MANIFESTS)),
    [`${root}/prometheus-values.yaml`]: 'prometheus:\n  prometheusSpec:\n    retention: 15d\n',
    [`${root}/blackbox-values.yaml`]: 'config:\n  modules: {}\n',
    [`${root}/crds/crd-prometheusrules.yaml`]: crd('prometheusrules'),
    [`${root}/crds/crd-servicemonitors.yaml`]: crd('servicemonitors'),
  };
  for (const [dir, count] of Object.entries(MONITORING_MANIFESTS)) {
    const [kind, apiVersion] = kinds[dir as keyof typeof kinds];
    const names = Array.from({ length: count }, (_, i) => `${dir}-${String(i + 1).padStart(2, '0')}.yaml`);
    files[`${root}/${dir}/kustomization.yaml`] = kustomization(names);
    for (const n of names) files[`${root}/${dir}/${n}`] = manifest(kind, n.replace(/\.yaml$/, ''), apiVersion);
  }
  return files;
}

/** `k8s/infra/cicd`: the Forgejo OAuth setup Job (with its ServiceAccount) as one plain manifest file. */
export const OAUTH_JOB = 'k8s/infra/cicd/forgejo-oauth-setup-job.yaml';

const synthCache = new Map<HomelabConfig, { argocd: ArgoCdChart; model: CoverageModel; tree: OutputTree }>();

/** The Argo CD tree, its coverage model and the synthesized dist/ of `config`, synthesized once per config object. */
export function synthesized(config: HomelabConfig = REFERENCE_HOMELAB): { argocd: ArgoCdChart; model: CoverageModel; tree: OutputTree } {
  let cached = synthCache.get(config);
  if (!cached) {
    const s = synthesizeHomelab(config);
    cached = { argocd: s.argocd, model: coverageModel(s.argocd, config.argocd.unmanaged ?? []), tree: s.tree };
    synthCache.set(config, cached);
  }
  return cached;
}

/**
 * A clean homelab checkout for `config`: its synthesized dist/ committed at `git.distPath`, one manifest in
 * every directory an Application reads, every `$values` file, the monitoring and cicd trees of the platform,
 * an encrypted Secret for `sops-secrets`, and the experimental directories left unmanaged.
 */
export function referenceCheckout(config: HomelabConfig = REFERENCE_HOMELAB): Files {
  const { model, tree } = synthesized(config);
  const files: Files = {
    'README.md': '# homelab\n',
    '.sops.yaml': 'creation_rules:\n  - path_regex: .*\\.enc\\.yaml$\n    encrypted_regex: ^(data|stringData)$\n',
    'k8s/secrets/cicd/forgejo-admin-token.enc.yaml': encryptedSecret('forgejo-admin-token'),
    'k8s/apps/llm/ollama.yaml': manifest('Deployment', 'ollama', 'apps/v1'),
  };
  for (const [p, content] of tree) files[`${model.distPath}/${p}`] = content;
  for (const s of model.sources) {
    if (s.pluginName || isInside(s.path, model.distPath)) continue;
    if (s.overlayOf !== undefined) {
      // A delivery app's overlay: the one-line kustomization over its generated folder.
      files[`${s.path}/kustomization.yaml`] = kustomization([path.posix.relative(s.path, s.overlayOf)]);
      continue;
    }
    files[`${s.path}/${path.posix.basename(s.path)}.yaml`] = manifest('ConfigMap', path.posix.basename(s.path));
  }
  for (const v of model.valuesFiles) if (!isInside(v.path, model.distPath)) files[v.path] = 'replicaCount: 1\n';
  delete files['k8s/infra/cicd/cicd.yaml'];
  files[OAUTH_JOB] = `${manifest('ServiceAccount', 'forgejo-oauth-setup')}---\n${manifest('Job', 'forgejo-oauth-setup', 'batch/v1')}`;
  delete files['k8s/infra/monitoring/monitoring.yaml'];
  delete files['k8s/infra/monitoring/crds/crds.yaml'];
  return { ...files, ...monitoringFiles() };
}

/** The reference config with `argocd` patched. */
export function withArgocd(patch: Partial<HomelabConfig['argocd']>): HomelabConfig {
  return { ...REFERENCE_HOMELAB, argocd: { ...REFERENCE_HOMELAB.argocd, ...patch } };
}

/** The reference config without the named catalog Applications. */
export function withoutApplications(...names: string[]): HomelabConfig {
  const applications = { ...REFERENCE_HOMELAB.argocd.applications };
  for (const n of names) delete applications[n];
  return withArgocd({ applications });
}

/** Temporary directories for checkouts, removed after each test. */
export class TempCheckouts {
  private readonly dirs: string[] = [];

  /** Writes `files` into a new temporary directory and returns its path. */
  public write(files: Files): string {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'coverage-test-'));
    this.dirs.push(root);
    for (const [p, content] of Object.entries(files)) {
      const abs = path.join(root, ...p.split('/'));
      fs.mkdirSync(path.dirname(abs), { recursive: true });
      fs.writeFileSync(abs, content);
    }
    return root;
  }

  public cleanup(): void {
    for (const d of this.dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
  }
}
