import * as fs from 'fs';
import * as path from 'path';
import { REFERENCE_HOMELAB } from '../../lib/config/defaults';
import { CHART_PINS } from '../../lib/config/default-catalog';
import { TEMPORAL_CHART_REPO } from '../../lib/constructs/temporal/temporal-values';
import { COUPLED_PINS } from '../../lib/shared/coupled-pins';
import * as pins from '../../lib/shared/pins';
import { planFor } from '../plan/util';

/**
 * renovate.json against the files it reads: each custom regex manager is applied here the way Renovate applies it (every
 * matchString, with the `g` flag, over the whole text of every file its managerFilePatterns select), so a reformatted pin
 * table fails this test instead of silently escaping Renovate. Renovate's own validator checks the config's shape in
 * .ci/run (tools/renovate).
 */

const root = path.resolve(__dirname, '../..');

interface RegexManager {
  readonly customType: string;
  readonly managerFilePatterns: string[];
  readonly matchStrings: string[];
  readonly depNameTemplate?: string;
  readonly registryUrlTemplate?: string;
  readonly datasourceTemplate?: string;
}
interface PackageRule {
  readonly matchDepNames?: string[];
  readonly groupName?: string;
  readonly allowedVersions?: string;
}
interface RenovateConfig {
  readonly extends?: string[];
  readonly customManagers: RegexManager[];
  readonly packageRules: PackageRule[];
}

const config = JSON.parse(fs.readFileSync(path.join(root, 'renovate.json'), 'utf8')) as RenovateConfig;

/** One dependency a manager extracts. */
interface Extracted {
  readonly file: string;
  readonly depName?: string;
  readonly currentValue?: string;
  readonly currentDigest?: string;
  readonly registryUrl?: string;
  readonly datasource?: string;
}

/** The project's files, relative to the root, skipping installed and generated trees. */
function projectFiles(): string[] {
  const skip = new Set(['node_modules', '.git', 'dist', 'build', '.cdk8s.out', 'imports', 'schemas']);
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const e of fs.readdirSync(path.join(root, dir), { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const rel = dir === '' ? e.name : `${dir}/${e.name}`;
      if (e.isDirectory()) {
        if (!skip.has(e.name)) walk(rel);
      } else out.push(rel);
    }
  };
  walk('');
  return out;
}
const FILES = projectFiles();

/** `/regex/` of managerFilePatterns as a RegExp (Renovate's form; a pattern without slashes would be a glob). */
function filePattern(p: string): RegExp {
  const m = /^\/(.*)\/([a-z]*)$/.exec(p);
  if (!m) throw new Error(`renovate.json: managerFilePatterns entry ${p} is not a /regex/; this test reads only that form`);
  return new RegExp(m[1], m[2]);
}

/** What `manager` extracts from `text` (of `file`), one entry per match of each matchString. */
function extract(manager: RegexManager, file: string, text: string): { matchString: string; dep: Extracted }[] {
  return manager.matchStrings.flatMap((matchString) => [...text.matchAll(new RegExp(matchString, 'g'))].map((m) => ({
    matchString,
    dep: {
      file,
      depName: manager.depNameTemplate ?? m.groups?.depName,
      currentValue: m.groups?.currentValue,
      currentDigest: m.groups?.currentDigest,
      registryUrl: manager.registryUrlTemplate ?? m.groups?.registryUrl,
      datasource: manager.datasourceTemplate,
    },
  })));
}

/** Everything the regex managers extract from the files as they are (or from `override`, by file). */
function extractAll(override: ReadonlyMap<string, string> = new Map()): Extracted[] {
  return config.customManagers.flatMap((m) => FILES.filter((f) => m.managerFilePatterns.some((p) => filePattern(p).test(f)))
    .flatMap((f) => extract(m, f, override.get(f) ?? fs.readFileSync(path.join(root, f), 'utf8')).map((x) => x.dep)));
}

/** Floors on the operator's machine or the plugin's requirement: not versions the homelab deploys, so not bumped. */
const NOT_BUMPED: Record<string, string> = {
  MIN_KUBECTL_VERSION: 'the oldest kubectl the runbook accepts',
  MIN_HELM_VERSION: 'the oldest helm the runbook accepts',
  BARMAN_CLOUD_PLUGIN_MIN_CNPG_VERSION: 'the plugin\'s documented minimum, read from its installation docs',
};

/** The pins of lib/shared/pins.ts (as loaded) that no manager extracts from `deps`, by name. */
function unmanagedPins(deps: readonly Extracted[]): string[] {
  const inPins = deps.filter((d) => d.file === 'lib/shared/pins.ts');
  const values = new Set(inPins.map((d) => d.currentValue));
  const missing: string[] = [];
  for (const [name, value] of Object.entries(pins)) {
    if (typeof value === 'string') {
      if (name in NOT_BUMPED || values.has(value)) continue;
      // A URL built from a managed version moves with it (CNPG_MANIFEST_URL holds CNPG_VERSION).
      if (/^https:\/\//.test(value) && [...values].some((v) => v !== undefined && value.includes(v))) continue;
      missing.push(name);
    }
  }
  for (const [name, image] of Object.entries(pins.IMAGES)) {
    if (!inPins.some((d) => `${d.depName}:${d.currentValue}` === image)) missing.push(`IMAGES.${name}`);
  }
  for (const [name, c] of Object.entries(pins.PHASE0_CHARTS)) {
    if (!inPins.some((d) => d.depName === c.chart && d.registryUrl === c.repoURL && d.currentValue === c.version)) missing.push(`PHASE0_CHARTS.${name}`);
  }
  return missing;
}

describe('renovate.json', () => {
  const deps = extractAll();

  test('uses no preset, so nothing is fetched to read it', () => {
    expect(config.extends ?? []).toEqual([]);
  });

  test('every managerFilePatterns entry selects a file, a file it names has a match, and every matchString matches in its files', () => {
    for (const m of config.customManagers) {
      expect(m.customType).toBe('regex');
      for (const p of m.managerFilePatterns) {
        expect({ pattern: p, files: FILES.filter((f) => filePattern(p).test(f)).length }).not.toEqual({ pattern: p, files: 0 });
      }
      const files = FILES.filter((f) => m.managerFilePatterns.some((p) => filePattern(p).test(f)));
      // A pattern that names one file must find a pin in it; a wide one (every .ts of lib/) needs a pin somewhere.
      const named = m.managerFilePatterns.map((p) => FILES.filter((f) => filePattern(p).test(f))).filter((selected) => selected.length === 1).flat();
      for (const f of named) {
        expect({ file: f, matches: extract(m, f, fs.readFileSync(path.join(root, f), 'utf8')).length }).not.toEqual({ file: f, matches: 0 });
      }
      for (const s of m.matchStrings) {
        const hits = files.flatMap((f) => extract({ ...m, matchStrings: [s] }, f, fs.readFileSync(path.join(root, f), 'utf8')));
        expect({ matchString: s, hits: hits.length }).not.toEqual({ matchString: s, hits: 0 });
      }
    }
  });

  test('every extracted dependency has a name, a datasource and a current version or digest', () => {
    for (const d of deps) {
      expect(d).toEqual(expect.objectContaining({ depName: expect.any(String), datasource: expect.any(String) }));
      expect(d.currentValue ?? d.currentDigest).toEqual(expect.any(String));
    }
  });

  test('every pin of lib/shared/pins.ts is extracted by some manager', () => {
    expect(unmanagedPins(deps)).toEqual([]);
    expect(deps).toContainEqual(expect.objectContaining({ file: 'lib/shared/pins.ts', depName: 'cloudnative-pg/cloudnative-pg', currentValue: pins.CNPG_VERSION }));
    expect(deps).toContainEqual(expect.objectContaining({ file: 'lib/shared/pins.ts', depName: 'argoproj/argo-cd', currentValue: pins.ARGOCD_VERSION }));
  });

  test('fails when a pin table is reformatted: a double-quoted image and a chart written over two lines escape the managers', () => {
    // GIVEN pins.ts with one image in double quotes and one chart entry split over lines
    const source = fs.readFileSync(path.join(root, 'lib/shared/pins.ts'), 'utf8');
    const reformatted = source.replace(`'${pins.IMAGES.redis}'`, `"${pins.IMAGES.redis}"`)
      .replace(`{ repoURL: '${pins.PHASE0_CHARTS.longhorn.repoURL}', chart:`, `{\n    repoURL: '${pins.PHASE0_CHARTS.longhorn.repoURL}',\n    chart:`);
    expect(reformatted).not.toBe(source);
    // THEN exactly those two are reported
    expect(unmanagedPins(extractAll(new Map([['lib/shared/pins.ts', reformatted]])))).toEqual(['IMAGES.redis', 'PHASE0_CHARTS.longhorn']);
  });

  test('every chart of the reference catalog and the Temporal chart are extracted with their repository', () => {
    for (const c of Object.values(CHART_PINS)) {
      expect(deps).toContainEqual(expect.objectContaining({ depName: c.chart, registryUrl: c.repoURL, currentValue: c.version, datasource: 'helm' }));
    }
    expect(deps).toContainEqual(expect.objectContaining({ depName: 'temporal', registryUrl: TEMPORAL_CHART_REPO, datasource: 'helm' }));
  });

  test('the build images (delivery.build\'s defaults) are extracted from lib/config/delivery/build.ts, where they are pinned', () => {
    for (const image of ['code.forgejo.org/forgejo/runner:12.10.2', 'docker.io/moby/buildkit:v0.32.2-rootless', 'ghcr.io/sigstore/cosign/cosign:v3.1.2-dev']) {
      const [depName, currentValue] = [image.slice(0, image.lastIndexOf(':')), image.slice(image.lastIndexOf(':') + 1)];
      expect(deps).toContainEqual(expect.objectContaining({ file: 'lib/config/delivery/build.ts', depName, currentValue, datasource: 'docker' }));
    }
  });

  test('every image and chart the reference homelab deploys (the pins inventory) is extracted', () => {
    const { plan } = planFor(REFERENCE_HOMELAB);
    // The app tier's own images (delivery.apps) are the homelab's builds, moved by Image Updater's write-back, not by Renovate.
    const appImages = Object.values(REFERENCE_HOMELAB.delivery?.apps ?? {}).map((a) => `/${a.image}`);
    expect(appImages.length).toBeGreaterThan(0);
    for (const p of plan.pins.filter((x) => x.kind === 'image' && !appImages.some((i) => x.component.endsWith(i)))) {
      expect(deps).toContainEqual(expect.objectContaining({ depName: p.component, currentValue: p.version, datasource: 'docker' }));
    }
    for (const p of plan.pins.filter((x) => x.kind === 'chart')) {
      const [, chart, repo] = /^(\S+) \((\S+)\)$/.exec(p.component)!;
      expect(deps).toContainEqual(expect.objectContaining({ depName: chart, registryUrl: repo, currentValue: p.version }));
    }
  });

  test('the Argo Rollouts release and its CRD snapshot are extracted, as one group', () => {
    expect(deps.filter((d) => d.depName === 'argoproj/argo-rollouts').map((d) => `${d.file} ${d.currentValue}`).sort()).toEqual([
      'cdk8s.yaml v1.9.1', 'cdk8s.yaml v1.9.1', 'lib/config/delivery/rollouts.ts v1.9.1',
      'scripts/crd-sources.json v1.9.1', 'scripts/crd-sources.json v1.9.1',
    ]);
  });

  test('every coupled pin is extracted, and grouped with the rest of its set and with nothing else', () => {
    for (const group of COUPLED_PINS) {
      for (const pin of group.pins) {
        expect({ depName: pin.depName, extracted: deps.some((d) => d.depName === pin.depName) }).toEqual({ depName: pin.depName, extracted: true });
        const rules = config.packageRules.filter((r) => r.groupName !== undefined && (r.matchDepNames ?? []).includes(pin.depName));
        expect({ depName: pin.depName, groups: rules.map((r) => r.groupName) }).toEqual({ depName: pin.depName, groups: [group.group] });
      }
      const rule = config.packageRules.find((r) => r.groupName === group.group)!;
      expect([...(rule.matchDepNames ?? [])].sort()).toEqual(group.pins.map((p) => p.depName).sort());
    }
  });

  test('the Kubernetes API group stays on the minor of the cdk8s-plus package the program is built on, and today\'s pins are on it', () => {
    // GIVEN the Kubernetes minor of the cdk8s-plus-NN peer dependency
    const peers = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')).peerDependencies as Record<string, string>;
    const plus = Object.keys(peers).map((n) => /^cdk8s-plus-(\d+)$/.exec(n)).filter((m) => m !== null);
    expect(plus).toHaveLength(1);
    const minor = Number(plus[0]![1]);
    // THEN Renovate may not leave that minor, and kubectl and the cluster test's API server are on it
    const rule = config.packageRules.find((r) => r.groupName === 'kubernetes-api')!;
    expect(rule.allowedVersions).toBe(`<1.${minor + 1}`);
    const current = deps.filter((d) => rule.matchDepNames!.includes(d.depName!)).map((d) => d.currentValue!);
    expect(current.length).toBeGreaterThanOrEqual(2);
    for (const v of current) expect(v.startsWith(`v1.${minor}.`)).toBe(true);
  });
});
