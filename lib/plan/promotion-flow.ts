/**
 * The promotion flow of each app of `delivery.apps` (ADR 0001 Part B): how a commit becomes a running, verified
 * version. Every line is derived from the config (the app's delivery, image updates and E2E journeys; the updater's
 * repository and interval; the mirror's interval; the git source) and from the synthesized tree (the Applications'
 * waves), so the plan shows what the output does. Rendered for the terminal (`npm run plan`) and as Markdown with a
 * Mermaid diagram (`dist/README.md`).
 */
import type { ResolvedHomelabConfig } from '../config/homelab-config';
import type { ResolvedDeliveryAppConfig } from '../config/delivery/types';
import { appOverlayPath, effectiveWriteBack, imageUpdaterGitRepository } from '../config/delivery/image-updater-rules';
import type { ArgoCdChart } from '../homelab/argocd-chart';
import { IMAGE_UPDATER_APPLICATION, registryPullHost } from '../homelab/delivery/image-updater';
import { GENERATED_APPLICATIONS } from '../homelab/validate-argocd-config';
import { appDistFolder, canaryServiceName, e2eAnalysisTemplateName } from '../shared/delivery-layout';
import { MermaidIds, mermaidLabel } from './mermaid';
import { TextStyle, wrap } from './text-layout';

/** One stage of a promotion: what happens, in words derived from the config. */
export interface PlannedPromotionStage {
  /** Short name of the stage, e.g. `build`, `write-back`. */
  readonly stage: string;
  /** A few words for the diagram. */
  readonly summary: string;
  readonly detail: string;
}

/** The promotion flow of one app. */
export interface PlannedPromotion {
  readonly app: string;
  readonly delivery: 'rolling' | 'canary';
  /** How the image is updated, e.g. `digest of main, commit`; `none` without `imageUpdates`. */
  readonly updates: string;
  readonly stages: readonly PlannedPromotionStage[];
  /** What a good version ends as. */
  readonly promoted: string;
  /** What a bad version ends as. */
  readonly rejected: string;
  /** The two ends in a few words, for the diagram. */
  readonly promotedSummary: string;
  readonly rejectedSummary: string;
}

/** The promotion flow of every app of `delivery.apps`, sorted by name; empty without a `delivery` section. */
export function planPromotionFlow(config: ResolvedHomelabConfig, argocd: ArgoCdChart): PlannedPromotion[] {
  const delivery = config.delivery;
  if (!delivery) return [];
  const pullHost = registryPullHost({ delivery, forgejo: argocd.forgejoMirrorJob.forgejo });
  const repository = imageUpdaterGitRepository(config, delivery);
  const branch = config.git.targetRevision;
  const mirror = argocd.applications.get(GENERATED_APPLICATIONS.forgejoMirror);
  const updaterApp = argocd.applications.get(IMAGE_UPDATER_APPLICATION);
  return Object.keys(delivery.apps).sort().map((name): PlannedPromotion => {
    const app = delivery.apps[name];
    const updates = app.imageUpdates;
    const overlay = appOverlayPath(name, app);
    const image = `${delivery.registry.pushHost}/${app.image}`;
    const stages: PlannedPromotionStage[] = [];
    const add = (stage: string, summary: string, detail: string) => stages.push({ stage, summary, detail });
    const mode = effectiveWriteBack(delivery, app);

    const pushedTag = !updates ? app.tag : updates.strategy === 'digest' ? updates.tag! : `a release tag within ${updates.constraint}`;
    add('commit', updates?.strategy === 'semver' ? 'release tagged' : 'commit to the app repository', updates?.strategy === 'semver'
      ? `a release of the app's repository is tagged (a semantic version within ${updates.constraint})`
      : `a commit lands on the app's repository${updates ? ` (the build tags it '${pushedTag}')` : ''}`);
    add('build', 'rootless BuildKit', 'Forgejo Actions on the in-cluster runner: rootless BuildKit builds the image (no privileged container), ' +
      'with the registry as its cache');
    add('push', `${delivery.registry.pushHost}, by digest`, `pushed to ${image} (${updates?.strategy === 'semver' ? pushedTag : `tag '${pushedTag}'`}) and recorded by its digest`);
    add('sign', 'cosign, key by reference', 'cosign signs the image by digest with the key by reference (no public transparency log); the workflow never edits manifests');
    if (updates) {
      const what = updates.strategy === 'digest' ? `a new digest of '${updates.tag}'` : `the highest tag within ${updates.constraint}`;
      const filter = [updates.allowTags ? `allowed ${updates.allowTags}` : '', updates.ignoreTags.length > 0 ? `ignoring ${updates.ignoreTags.join(', ')}` : '']
        .filter((s) => s !== '').join(', ');
      add('write-back', `Image Updater: ${mode === 'commit' ? 'commit' : 'pull request'} to GitHub ${branch}`, `Argo CD Image Updater${updaterApp ? ` (wave ${updaterApp.syncWave})` : ''} checks ${pullHost}/${app.image} every ` +
        `${delivery.imageUpdater.checkInterval}, finds ${what}${filter ? ` (${filter})` : ''} and ` +
        (mode === 'commit' ? `commits ${overlay}/.argocd-source-${name}.yaml to ${branch} of ${repository}`
          : `opens a GitHub pull request into ${branch} of ${repository} changing ${overlay}/.argocd-source-${name}.yaml; a person merges it`));
    } else {
      add('write-back', 'none: tag set in config', `none: delivery.apps.${name} has no imageUpdates, so tag '${app.tag}' stays until someone changes delivery.apps.${name}.tag ` +
        'and commits the re-synthesized tree');
    }
    add('mirror', config.git.source === 'forgejo' ? `Forgejo pull-mirror, ${config.argocd.forgejoMirror.mirrorInterval}` : 'GitHub seed (Forgejo mirror after cutover)', config.git.source === 'forgejo'
      ? `Forgejo pulls GitHub into its mirror every ${config.argocd.forgejoMirror.mirrorInterval}${mirror ? ` (${mirror.name}, wave ${mirror.syncWave})` : ''}; Argo CD reads the mirror`
      : 'Argo CD reads the GitHub seed directly (git.source github); after the cutover it reads Forgejo\'s pull-mirror, ' +
        `updated every ${config.argocd.forgejoMirror.mirrorInterval}`);
    const appWave = argocd.applications.get(name)?.syncWave;
    add('sync', `Argo CD syncs ${name}${appWave !== undefined ? ` (wave ${appWave})` : ''}`, `Argo CD syncs Application ${name}${appWave !== undefined ? ` (wave ${appWave})` : ''} from ${overlay}: a kustomization over ` +
      `${config.git.distPath}/${appDistFolder(name)} with the override file's image`);
    add('admission', 'Kyverno: signed images only', `Kyverno admits the new pods of namespace ${app.namespace ?? name} only with a valid cosign signature`);
    if (app.delivery === 'canary') {
      add('canary', 'canary steps + Prometheus analysis', 'Argo Rollouts shifts traffic to the new version step by step (replica weight); Prometheus analysis checks success rate and latency at each step');
      add('e2e', app.e2e ? 'E2E analysis step on the canary' : 'no E2E gate', app.e2e ? `before promotion, an analysis step runs the Playwright (WebKit) journeys (AnalysisTemplate ${e2eAnalysisTemplateName(name)}) ` +
        `against Service ${canaryServiceName(name)}` : 'none: no e2e journeys are configured for the app');
      return {
        app: name, delivery: 'canary', updates: describeUpdates(updates, mode), stages,
        promoted: 'promoted: the Rollout reaches 100% and Argo CD reports it Healthy',
        promotedSummary: 'promoted (Healthy)', rejectedSummary: 'aborted and rolled back (Degraded)',
        rejected: 'rolled back: a failed analysis aborts the Rollout (Degraded); the stable version keeps serving, and the next good image rolls forward',
      };
    }
    add('e2e', app.e2e ? 'PostSync E2E Job' : 'no E2E gate', app.e2e ? 'after the sync, a PostSync hook Job runs the Playwright (WebKit) journeys; a failure fails the sync'
      : 'none: no e2e journeys are configured for the app');
    return {
      app: name, delivery: 'rolling', updates: describeUpdates(updates, mode), stages,
      promoted: 'promoted: the Deployment\'s rolling update completes and the sync succeeds',
      promotedSummary: 'promoted', rejectedSummary: app.e2e ? 'sync failed: revert the write-back' : 'revert the write-back',
      rejected: app.e2e ? 'failed sync: the new version is already live; revert the write-back commit to roll back'
        : 'only readiness gates the rollout; revert the write-back commit to roll back',
    };
  });
}

function describeUpdates(updates: ResolvedDeliveryAppConfig['imageUpdates'], mode: string): string {
  if (!updates) return 'no image updates';
  return `${updates.strategy === 'digest' ? `digest of ${updates.tag}` : `semver ${updates.constraint}`}, ${mode}`;
}

/** The promotion flow for the terminal: one block per app, every line within `width`. */
export function renderPromotionText(flows: readonly PlannedPromotion[], width: number, style: TextStyle): string[] {
  if (flows.length === 0) return [];
  const lines = [
    ...wrap('Promotion flow: how a new image reaches each app of delivery.apps', width).map((l) => style.bold(l)),
    ...wrap('CI only builds, pushes and signs; Argo CD Image Updater records the new image in git, and Argo CD, Kyverno, ' +
      'Argo Rollouts and the E2E journeys decide whether it stays.', width, '  '),
  ];
  const labelWidth = Math.max(...flows.flatMap((f) => f.stages.map((s) => s.stage.length)), 'promoted'.length, 'rejected'.length);
  for (const flow of flows) {
    lines.push('', ...wrap(`${style.bold(style.cyan(flow.app))} ${style.dim(`(${flow.delivery}, ${flow.updates})`)}`, width, '  '));
    const body = '    ';
    const indent = ' '.repeat(body.length + labelWidth + 1);
    for (const s of [...flow.stages, { stage: 'promoted', detail: flow.promoted }, { stage: 'rejected', detail: flow.rejected }]) {
      lines.push(...wrap(s.detail, width, `${body}${style.dim(s.stage.padEnd(labelWidth))} `, indent));
    }
  }
  return lines;
}

/** The promotion flow for `dist/README.md`: a Mermaid flowchart (one lane per app) and a table per app. */
export function renderPromotionMarkdown(flows: readonly PlannedPromotion[]): string[] {
  if (flows.length === 0) return [];
  const ids = new MermaidIds();
  const diagram = ['flowchart LR'];
  for (const flow of flows) {
    diagram.push(`  subgraph ${ids.id('lane', flow.app)}[${mermaidLabel(`${flow.app}: ${flow.delivery}, ${flow.updates}`)}]`, '    direction LR');
    const stageIds = flow.stages.map((s) => ids.id('stage', `${flow.app}/${s.stage}`));
    flow.stages.forEach((s, i) => diagram.push(`    ${stageIds[i]}[${mermaidLabel(s.stage, s.summary)}]`));
    const promoted = ids.id('end', `${flow.app}/promoted`);
    const rejected = ids.id('end', `${flow.app}/rejected`);
    diagram.push(`    ${promoted}([${mermaidLabel(flow.promotedSummary)}])`, `    ${rejected}([${mermaidLabel(flow.rejectedSummary)}])`);
    for (let i = 1; i < stageIds.length; i++) diagram.push(`    ${stageIds[i - 1]} --> ${stageIds[i]}`);
    const last = stageIds[stageIds.length - 1];
    diagram.push(`    ${last} -->|${mermaidLabel('pass')}| ${promoted}`, `    ${last} -->|${mermaidLabel('fail')}| ${rejected}`, '  end');
  }
  const lines = [
    '## Promotion flow',
    '',
    'How a new image reaches each app of `delivery.apps`: CI only builds, pushes and signs; Argo CD Image Updater records the ' +
      'new image in git; Argo CD, Kyverno, Argo Rollouts and the end-to-end journeys decide whether it stays.',
    '',
    '```mermaid',
    diagram.join('\n'),
    '```',
  ];
  for (const flow of flows) {
    lines.push('', `### \`${flow.app}\` (${flow.delivery}, ${flow.updates})`, '', '| Stage | What happens |', '| --- | --- |');
    for (const s of [...flow.stages, { stage: 'promoted', detail: flow.promoted }, { stage: 'rejected', detail: flow.rejected }]) {
      lines.push(`| ${s.stage} | ${markdownText(s.detail)} |`);
    }
  }
  return lines;
}

/** Prose with Markdown syntax escaped, so it reads as written in a table cell. */
function markdownText(s: string): string {
  return s.replace(/[\\`*_~<[\]|]/g, (c) => `\\${c}`);
}
