import { REFERENCE_HOMELAB } from '../../lib/config/defaults';
import type { DeliveryConfig } from '../../lib/config/delivery/types';
import { HomelabConfig } from '../../lib/config/homelab-config';
import { PlannedPromotion, renderPromotionMarkdown, renderPromotionText } from '../../lib/plan/promotion-flow';
import { renderPlanText } from '../../lib/plan/render-plan-text';
import { textStyle } from '../../lib/plan/text-layout';
import { planFor } from './util';

const DELIVERY = REFERENCE_HOMELAB.delivery!;

function withDelivery(patch: Partial<DeliveryConfig>, config: HomelabConfig = REFERENCE_HOMELAB): HomelabConfig {
  return { ...config, delivery: { ...DELIVERY, ...patch } };
}

function stage(flow: PlannedPromotion, name: string): string {
  const s = flow.stages.find((x) => x.stage === name);
  if (!s) throw new Error(`no stage ${name} in ${flow.app}`);
  return s.detail;
}

const reference = planFor();
const [hello, status] = reference.plan.promotion;

describe('the promotion flow of the reference homelab', () => {
  test('one flow per app, in order: commit, build, push, sign, write-back, mirror, sync, admission, (canary), e2e', () => {
    expect(reference.plan.promotion.map((f) => [f.app, f.delivery, f.updates])).toEqual([
      ['hello', 'canary', 'digest of main, commit'],
      ['status', 'rolling', 'semver 1.x, pull-request'],
    ]);
    expect(hello.stages.map((s) => s.stage)).toEqual(['commit', 'build', 'push', 'sign', 'write-back', 'mirror', 'sync', 'admission', 'canary', 'e2e']);
    expect(status.stages.map((s) => s.stage)).toEqual(['commit', 'build', 'push', 'sign', 'write-back', 'mirror', 'sync', 'admission', 'e2e']);
  });

  test('the write-back names the updater\'s wave and interval, the followed tag, the file and the repository it writes', () => {
    expect(stage(hello, 'write-back')).toBe('Argo CD Image Updater (wave 4) checks forgejo-http.cicd.svc.cluster.local:3000/homelab-owner/hello ' +
      'every 2m0s, finds a new digest of \'main\' and commits k8s/apps/hello/.argocd-source-hello.yaml to main of ' +
      'https://github.com/homelab-owner/homelab.git');
    expect(stage(status, 'write-back')).toBe('Argo CD Image Updater (wave 4) checks forgejo-http.cicd.svc.cluster.local:3000/homelab-owner/status ' +
      'every 2m0s, finds the highest tag within 1.x (allowed regexp:^1\\.[0-9]+\\.[0-9]+$) and opens a GitHub pull request into main of ' +
      'https://github.com/homelab-owner/homelab.git changing k8s/apps/status/.argocd-source-status.yaml; a person merges it');
  });

  test('a canary ends promoted or rolled back; a rolling app\'s PostSync journeys fail the sync of a version already live', () => {
    expect([hello.promotedSummary, hello.rejectedSummary]).toEqual(['promoted (Healthy)', 'aborted and rolled back (Degraded)']);
    expect(status.rejected).toBe('failed sync: the new version is already live; revert the write-back commit to roll back');
  });
});

describe('derived from the config', () => {
  test('the check interval, the mirror after the cutover, and the app\'s directory', () => {
    const config = withDelivery({
      imageUpdater: { checkInterval: '5m' },
      apps: { hello: { ...DELIVERY.apps!.hello, overlayPath: 'deploy/hello' } },
    }, { ...REFERENCE_HOMELAB, git: { ...REFERENCE_HOMELAB.git, source: 'forgejo' } });
    const [flow] = planFor(config).plan.promotion;
    expect(stage(flow, 'write-back')).toContain('every 5m, finds a new digest of \'main\' and commits deploy/hello/.argocd-source-hello.yaml');
    expect(stage(flow, 'mirror')).toBe('Forgejo pulls GitHub into its mirror every 10m0s (forgejo-mirror, wave 3); Argo CD reads the mirror');
    // hello waits for kyverno-policies, which open the app tier (wave 9): wave 10.
    expect(stage(flow, 'sync')).toBe('Argo CD syncs Application hello (wave 10) from deploy/hello: a kustomization over k8s/generated/apps/hello with ' +
      'the override file\'s image');
  });

  test('an app without imageUpdates keeps its tag; journeys add the E2E gate of each kind of delivery', () => {
    const config = withDelivery({
      apps: {
        hello: { image: 'homelab-owner/hello', tag: '1.0.0', delivery: 'canary', e2e: { scenarios: ['hello/home.spec.ts'] } },
        status: { image: 'homelab-owner/status', tag: '1.0.0', e2e: { scenarios: ['status/page.spec.ts'] } },
      },
    });
    const [h, s] = planFor(config).plan.promotion;
    expect(stage(h, 'write-back')).toBe('none: delivery.apps.hello has no imageUpdates, so tag \'1.0.0\' stays until someone changes ' +
      'delivery.apps.hello.tag and commits the re-synthesized tree');
    expect(stage(h, 'e2e')).toBe('before promotion, an analysis step runs the Playwright (WebKit) journeys (AnalysisTemplate hello-e2e) ' +
      'against Service hello-canary');
    expect(stage(s, 'e2e')).toBe('after the sync, a PostSync hook Job runs the Playwright (WebKit) journeys; a failure fails the sync');
    expect(s.rejectedSummary).toBe('sync failed: revert the write-back');
  });

  test('no delivery section, no promotion flow, in neither rendering', () => {
    const { delivery: _delivery, ...config } = REFERENCE_HOMELAB;
    const { plan } = planFor(config);
    expect(plan.promotion).toEqual([]);
    expect(renderPlanText(plan)).not.toContain('Promotion flow');
  });
});

describe('rendering', () => {
  test('the terminal text fits 80 columns and labels every stage', () => {
    const lines = renderPromotionText(reference.plan.promotion, 80, textStyle(false));
    expect(lines.filter((l) => l.length > 80)).toEqual([]);
    expect(lines[0]).toBe('Promotion flow: how a new image reaches each app of delivery.apps');
    expect(lines).toContain('  hello (canary, digest of main, commit)');
    expect(lines.filter((l) => /^ {4}write-back /.test(l))).toHaveLength(2);
    expect(renderPlanText(reference.plan)).toContain('\nPromotion flow: how a new image reaches each app of delivery.apps\n');
  });

  test('the Markdown has one Mermaid lane per app whose stages chain to a promoted and a rejected end, and a table per app', () => {
    const md = renderPromotionMarkdown(reference.plan.promotion).join('\n');
    const diagram = /```mermaid\n([\s\S]*?)\n```/.exec(md)![1];
    expect(diagram.split('\n')[0]).toBe('flowchart LR');
    expect(diagram).toContain('  subgraph lane_hello["hello: canary, digest of main, commit"]');
    expect(diagram).toContain('    stage_hello_write_back["write-back<br/>Image Updater: commit to GitHub main"]');
    expect(diagram).toContain('    stage_status_write_back["write-back<br/>Image Updater: pull request to GitHub main"]');
    expect(diagram).toContain('    stage_hello_e2e -->|"fail"| end_hello_rejected');
    // Every stage but the last leads to the next one.
    expect(diagram.match(/ --> stage_hello_/g)).toHaveLength(hello.stages.length - 1);
    expect(md).toContain('### `hello` (canary, digest of main, commit)');
    expect(reference.tree.get('README.md')).toContain(md);
  });
});
