import { ARGO_ROLLOUTS_VERSION } from '../../lib/config/delivery/rollouts';
import { REFERENCE_HOMELAB } from '../../lib/config/defaults';
import { imagesIn, lifecycleWarnings, PlannedPin, splitImage } from '../../lib/plan/pins';
import { renderPlanText } from '../../lib/plan/render-plan-text';
import { unmaintainedPinsWarning } from '../../lib/cli/synth';
import {
  ARGOCD_INSTALL_URL, ARGOCD_VERSION, BARMAN_CLOUD_PLUGIN_MANIFEST_URL, BARMAN_CLOUD_PLUGIN_VERSION, CNPG_MANIFEST_URL, CNPG_VERSION, IMAGES,
  IMAGE_UPDATER_VERSION,
} from '../../lib/shared/pins';
import { planFor } from './util';

describe('the pins inventory of the reference homelab', () => {
  const { plan, tree, argocd } = planFor(REFERENCE_HOMELAB);
  const pin = (kind: PlannedPin['kind'], component: string) => plan.pins.filter((p) => p.kind === kind && p.component === component);

  test('every image of the written output is listed with its tag, read independently from the YAML text', () => {
    // GIVEN every `image:` and `imageName:` line of the serialized output (not the objects the inventory walks)
    const written = new Set<string>();
    for (const [file, text] of tree) {
      // An ImageUpdater's imageName is an image it watches (a tag or a semver range), not one the output runs.
      if (!file.endsWith('.yaml') || /^kind: ImageUpdater$/m.test(text)) continue;
      // The app tier's own workloads run the homelab's images, which the updater moves, not Renovate: not pins.
      if (/^apps\/[^/]+\/workload\.yaml$/.test(file)) continue;
      for (const m of text.matchAll(/^\s*(?:- )?(?:image|imageName): (\S+)$/gm)) written.add(m[1]);
    }
    expect(written.size).toBeGreaterThan(5);
    // THEN each is a row of the inventory, and the inventory lists no image the output does not run
    const listed = new Set(plan.pins.filter((p) => p.kind === 'image').map((p) => `${p.component}:${p.version}`));
    expect([...listed].sort()).toEqual([...written].sort());
  });

  test('an image says where it is used: its Phase-0 steps first, then the Applications that deliver it', () => {
    expect(pin('image', 'registry.k8s.io/kubectl')).toEqual([expect.objectContaining({
      version: IMAGES.kubectl.split(':')[1],
      usedBy: ['step 06-postgres-forgejo-db', 'app backup-checks'],
    })]);
    expect(pin('image', 'docker.io/curlimages/curl')[0].usedBy).toEqual(['step 07-forgejo', 'app forgejo-mirror']);
  });

  test('every Helm chart: the Phase-0 releases and every Application\'s Helm sources, one row per chart and version', () => {
    expect(pin('chart', 'cilium (https://helm.cilium.io)')).toEqual([expect.objectContaining({ version: '1.20.0', usedBy: ['step 02-cilium', 'app cilium'] })]);
    const helmSources = [...argocd.applications.values()].flatMap((a) => a.sources.flatMap((s) => (s.kind === 'helm-chart' ? [`${s.chart} ${s.version}`] : [])));
    expect(helmSources.length).toBeGreaterThan(10);
    for (const source of helmSources) {
      const [chart, version] = source.split(' ');
      expect(plan.pins.some((p) => p.kind === 'chart' && p.component.startsWith(`${chart} (`) && p.version === version)).toBe(true);
    }
  });

  test('the release manifests the steps apply, with the step that applies each', () => {
    const manifests = plan.pins.filter((p) => p.kind === 'manifest');
    expect(manifests.map((p) => [p.component, p.version, p.usedBy])).toEqual([
      // Fetched by Argo CD's repo-server (the kustomization of the updater's Application), not by a step.
      ['argoproj-labs/argocd-image-updater install.yaml', IMAGE_UPDATER_VERSION, ['app argocd-image-updater']],
      ['argoproj/argo-cd install.yaml', ARGOCD_VERSION, ['step 08-argocd-install']],
      ['argoproj/argo-rollouts install.yaml', ARGO_ROLLOUTS_VERSION, ['app argo-rollouts']],
      [`cloudnative-pg/cloudnative-pg ${CNPG_MANIFEST_URL.replace(/^.*\//, '')}`, `v${CNPG_VERSION}`, ['step 04-cnpg-operator']],
      ['cloudnative-pg/plugin-barman-cloud manifest.yaml', BARMAN_CLOUD_PLUGIN_VERSION, ['step 05-barman-cloud-plugin']],
    ]);
    expect([ARGOCD_INSTALL_URL, BARMAN_CLOUD_PLUGIN_MANIFEST_URL]).toHaveLength(2);
  });

  test('each CRD snapshot the output\'s kinds were validated against is the version of its pinned release (coupled pins)', () => {
    const crds = new Map(plan.pins.filter((p) => p.kind === 'CRD').map((p) => [p.component, p.version]));
    expect(crds.get('cloudnative-pg/cloudnative-pg CRDs (Cluster, Database, ScheduledBackup)')).toBe(`v${CNPG_VERSION}`);
    expect(crds.get('cloudnative-pg/plugin-barman-cloud CRDs (ObjectStore)')).toBe(BARMAN_CLOUD_PLUGIN_VERSION);
    expect(crds.get('argoproj/argo-cd CRDs (AppProject, Application)')).toBe(ARGOCD_VERSION);
    expect(crds.get('prometheus-operator/prometheus-operator CRDs (PodMonitor, PrometheusRule)')).toBe('v0.93.1');
  });

  test('a component the lifecycle table does not know is unknown, never supported', () => {
    expect(pin('image', 'docker.io/library/redis')[0].lifecycle).toEqual({ status: 'unknown' });
    expect(pin('chart', 'cilium (https://helm.cilium.io)')[0].lifecycle).toEqual({ status: 'unknown' });
    expect(plan.pins.find((p) => p.kind === 'manifest' && p.component.startsWith('cloudnative-pg/cloudnative-pg'))?.lifecycle)
      .toMatchObject({ status: 'supported', since: '2026-06-29' });
  });

  test('the plan\'s warnings end with one line per pin that gets no more fixes, exactly', () => {
    expect(plan.warnings.slice(-5)).toEqual(lifecycleWarnings(plan.pins));
    expect(lifecycleWarnings(plan.pins)).toEqual([
      'image registry.k8s.io/kubectl v1.30.14 (step 06-postgres-forgejo-db, app backup-checks) is end-of-life since 2025-07-15 ' +
        '(https://kubernetes.io/releases/1.30/): no more releases or security fixes; move to a supported Kubernetes minor, with the ' +
        'Kubernetes API the program is built on (cdk8s-plus-30) and the cluster test\'s control plane (lib/shared/coupled-pins.ts, kubernetes-api).',
      'chart ingress-nginx (https://kubernetes.github.io/ingress-nginx) 4.15.1 (app ingress) is retired since 2026-03 ' +
        '(https://kubernetes.io/blog/2025/11/11/ingress-nginx-retirement/): no more releases or security fixes; move to a Gateway API implementation.',
      'chart operator (https://operator.min.io/) 7.1.1 (app minio-operator) is archived since 2026-04 (https://github.com/cncf/landscape/pull/5047): ' +
        'no more releases or security fixes; move to a maintained S3-compatible object store.',
      'chart promtail (https://grafana.github.io/helm-charts) 6.17.1 (app promtail) is end-of-life since 2026-03-02 ' +
        '(https://grafana.com/docs/loki/latest/send-data/promtail/): no more releases or security fixes; move to Grafana Alloy.',
      'chart tenant (https://operator.min.io/) 7.1.1 (app minio-tenant) is archived since 2026-04 (https://github.com/cncf/landscape/pull/5047): ' +
        'no more releases or security fixes; move to a maintained S3-compatible object store.',
    ]);
  });

  test('synth prints them on stderr under one heading', () => {
    const text = unmaintainedPinsWarning(plan.pins);
    expect(text.split('\n')[0]).toBe('Warning: this output deploys 5 components that get no more fixes (lib/shared/lifecycle.ts):');
    expect(text).toBe(`${text.split('\n')[0]}\n${lifecycleWarnings(plan.pins).map((w) => `  - ${w}`).join('\n')}\n`);
    expect(unmaintainedPinsWarning([])).toBe('');
  });

  test('dist/README.md has the table, and the terminal plan the same rows in 80 columns', () => {
    const readme = tree.get('README.md')!;
    expect(readme).toContain('| Component | Kind | Version | Used by | Lifecycle |');
    expect(readme).toContain('| `registry.k8s.io/kubectl` | image | `v1.30.14` | `step 06-postgres-forgejo-db`<br>`app backup-checks` | ' +
      '**end-of-life** since 2025-07-15: <https://kubernetes.io/releases/1.30/><br>');
    expect(readme).toContain('| `docker.io/library/redis` | image | `8.10.1` | `step 07-forgejo` | unknown (not in `lib/shared/lifecycle.ts`) |');
    const text = renderPlanText(plan);
    const section = text.slice(text.indexOf('Pinned versions:'), text.indexOf('Warnings:'));
    expect(section).toContain('    registry.k8s.io/kubectl image v1.30.14\n      used by step 06-postgres-forgejo-db, app backup-checks\n' +
      '      status  end-of-life since 2025-07-15\n');
    expect(section.split('\n').filter((l) => /^ {4}\S/.test(l))).toHaveLength(plan.pins.length);
    expect(Math.max(...text.split('\n').map((l) => l.length))).toBeLessThanOrEqual(80);
  });
});

describe('reading pins', () => {
  test('images anywhere in a document: pod templates of any depth, init containers, CNPG imageName', () => {
    const cronJob = { spec: { jobTemplate: { spec: { template: { spec: { initContainers: [{ image: 'a:1' }], containers: [{ image: 'b:2' }, { name: 'x' }] } } } } } };
    expect(imagesIn([cronJob, { spec: { imageName: 'pg:18' } }]).sort()).toEqual(['a:1', 'b:2', 'pg:18']);
  });

  test('an image reference: registry ports, digests, no tag', () => {
    expect(splitImage('registry.local:5000/team/app:1.2')).toEqual({ repository: 'registry.local:5000/team/app', version: '1.2' });
    expect(splitImage('ghcr.io/x/y:1.0@sha256:0123456789abcdef0123')).toEqual({ repository: 'ghcr.io/x/y', version: '1.0@sha256:0123456789ab' });
    expect(splitImage('registry.local:5000/app')).toEqual({ repository: 'registry.local:5000/app', version: '(no tag)' });
  });

  test('a supported or unknown pin gives no warning; deprecated is listed but not warned about', () => {
    const base = { component: 'c', kind: 'chart' as const, version: '1', usedBy: ['app a'] };
    expect(lifecycleWarnings([
      { ...base, lifecycle: { status: 'unknown' } },
      { ...base, lifecycle: { status: 'supported', component: 'C', since: '2026', source: 's' } },
      { ...base, lifecycle: { status: 'deprecated', component: 'C', since: '2026', source: 's' } },
    ])).toEqual([]);
    expect(lifecycleWarnings([{ ...base, lifecycle: { status: 'archived', component: 'C', since: '2026-01', source: 'https://x' } }]))
      .toEqual(['chart c 1 (app a) is archived since 2026-01 (https://x): no more releases or security fixes.']);
  });
});
