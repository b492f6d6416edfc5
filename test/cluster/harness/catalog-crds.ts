/**
 * The CRDs that Applications of the homelab's own catalog install, which generated objects need: the `backup-checks`
 * Application's PodMonitors and PrometheusRules come after `prometheus-crds` (a git path of the user's repository,
 * kube-prometheus-stack's CRDs) in a real cluster. Here they are applied up front, from the same pinned sources the
 * imports are generated from (scripts/crd-sources.json: the prometheus-operator v0.93.1 Go module through the module
 * proxy, its h1 sum and each file's blob checked by scripts/crd-sources.js).
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

const crdSources = require('../../../scripts/crd-sources.js') as {
  sources: { file: string; goModule?: unknown }[];
  loadVerified: (src: unknown) => Promise<Buffer>;
};

/** Writes every pinned CRD that comes from a Go module into a new temporary folder; returns the files. */
export async function catalogCrdFiles(): Promise<{ dir: string; files: string[] }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'catalog-crds-'));
  const files: string[] = [];
  for (const src of crdSources.sources.filter((s) => s.goModule !== undefined)) {
    const file = path.join(dir, path.basename(src.file));
    fs.writeFileSync(file, await crdSources.loadVerified(src));
    files.push(file);
  }
  return { dir, files };
}
