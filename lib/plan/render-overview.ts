import { appTierNote, HomelabPlan, PlannedCutover, PlannedStep, PlannedWave } from './homelab-plan';
import { PlannedDataProtection, RESTORE_ONLY_WHEN_CREATED } from './data-protection';
import { ISOLATION_SUMMARY, PlannedNetwork } from './network';
import { MermaidIds, mermaidLabel } from './mermaid';
import { PlannedPin } from './pins';
import { renderPromotionMarkdown } from './promotion-flow';
import { buildPreconditionLines } from './build-preconditions';

/** The overview's Mermaid flowchart, with the node id it gave each step, waits, wave and Application. */
export interface OverviewDiagram {
  /** The `flowchart` source, without the Markdown fence. */
  readonly source: string;
  /** Id of each step's node, by step name. */
  readonly stepIds: ReadonlyMap<string, string>;
  /** Id of each step's waits node, by step name (steps without waits have none). */
  readonly waitIds: ReadonlyMap<string, string>;
  /** Id of each wave's subgraph, by wave. */
  readonly waveIds: ReadonlyMap<number, string>;
  /** Id of each Application's node, by name. */
  readonly appIds: ReadonlyMap<string, string>;
  /** Id of the cutover node. */
  readonly cutoverId: string;
}

/**
 * Renders `dist/README.md`: the bring-up at a glance for a reviewer. A Mermaid flowchart (Phase-0 steps and
 * their waits, then the Argo CD waves with their Applications, then the cutover, with every step dependency,
 * every `dependsOn` and the wave order as edges), a table of the Phase-0 steps, a table per wave, and the
 * cutover. Forgejo and GitHub render the diagram in pull requests, so a change of order shows in review.
 * The output depends only on `plan`: no dates.
 */
export function renderOverview(plan: HomelabPlan): string {
  const diagram = overviewDiagram(plan);
  const handover = plan.steps.find((s) => s.stepName === plan.handoverStep);
  const appCount = plan.waves.reduce((n, w) => n + w.applications.length, 0);
  const waveOf = new Map(plan.waves.flatMap((w) => w.applications.map((a) => [a.name, w.wave] as const)));
  const tierNote = appTierNote(plan);
  const lines = [
    '# Homelab bring-up plan',
    '',
    'Generated from the homelab config by `lib/plan/render-overview.ts` whenever the homelab is synthesized; do not ' +
      'edit it by hand. `npm run plan` prints the same plan in a terminal.',
    '',
    'The homelab comes up in three phases:',
    '',
    `1. **Phase 0**, by hand: ${link(plan.cutover.runbook)} applies ${plan.steps.length} steps in order and, after each, ` +
      'waits for exactly what the next step needs.',
    `2. **Argo CD**: step ${handover?.index ?? '?'} (\`${plan.handoverStep}\`) applies the root app \`${plan.rootApp}\`, ` +
      `which syncs ${appCount} Applications in ${plan.waves.length} waves, each wave only once the waves before it are healthy.`,
    `3. **Phase 2 cutover**: Argo CD moves from the GitHub seed to Forgejo (${plan.cutover.source === 'github' ? 'pending' : 'done'}).`,
    '',
    '```mermaid',
    diagram.source,
    '```',
    '',
    ...phase0Table(plan),
    '',
    '## Argo CD waves',
    '',
    'Argo CD applies every Application of a wave, waits until all of them are healthy, then starts the next wave. ' +
      `An Application may depend only on Applications of earlier waves.${tierNote ? ` ${tierNote}` : ''}`,
    ...plan.waves.flatMap((w) => ['', ...waveTable(w, waveOf)]),
    '',
    ...cutoverSection(plan.cutover),
    '',
    ...dataProtectionSection(plan.dataProtection),
    '',
    ...networkSection(plan.network),
    '',
    ...(plan.promotion.length > 0 ? [...renderPromotionMarkdown(plan.promotion), ''] : []),
    ...(plan.buildPreconditions ? ['## Image build: what Argo CD cannot do', '',
      ...buildPreconditionLines(plan.buildPreconditions).map((l) => `- ${text(l)}`), ''] : []),
    ...pinsSection(plan.pins),
    ...(plan.warnings.length > 0 ? ['', '## Warnings', '', 'Valid settings that lose data or protection by design, and pinned ' +
      'components that get no more fixes:', '',
      ...plan.warnings.map((w) => `- ${text(w)}`)] : []),
  ];
  return `${lines.join('\n')}\n`;
}

/** Builds the Mermaid `flowchart` of the plan, with the ids it gave each node. */
export function overviewDiagram(plan: HomelabPlan): OverviewDiagram {
  const ids = new MermaidIds();
  const stepIds = new Map(plan.steps.map((s) => [s.stepName, ids.id('step', s.stepName)]));
  const waitIds = new Map(plan.steps.filter((s) => s.waits.length > 0).map((s) => [s.stepName, ids.id('wait', s.stepName)]));
  const waveIds = new Map(plan.waves.map((w) => [w.wave, ids.id('wave', String(w.wave))]));
  const appIds = new Map(plan.waves.flatMap((w) => w.applications.map((a) => [a.name, ids.id('app', a.name)] as const)));
  const cutoverId = ids.id('phase', 'cutover');
  const phase0Id = ids.id('phase', 'bootstrap');
  const argocdId = ids.id('phase', 'argocd');
  const pad = Math.max(2, String(plan.steps.length).length);
  // A step's successors start once it is applied and its waits have passed: edges leave from its waits.
  const exit = (stepName: string) => waitIds.get(stepName) ?? stepIds.get(stepName)!;
  const c = plan.cutover;

  const lines = [
    'flowchart TD',
    `  subgraph ${phase0Id}[${mermaidLabel(`Phase 0: ${c.runbook}, in apply order`)}]`,
    '    direction TB',
  ];
  for (const step of plan.steps) {
    lines.push(`    ${stepIds.get(step.stepName)}[${mermaidLabel(`${String(step.index).padStart(pad, '0')} ${step.stepName}`, step.summary)}]`);
    const waitId = waitIds.get(step.stepName);
    if (waitId) {
      lines.push(`    ${waitId}(${mermaidLabel('waits for', ...step.waits)})`);
      lines.push(`    ${stepIds.get(step.stepName)} --> ${waitId}`);
    }
  }
  lines.push('  end');
  lines.push(`  subgraph ${argocdId}[${mermaidLabel(`Argo CD: the root app '${plan.rootApp}' syncs wave by wave`)}]`);
  lines.push('    direction TB');
  for (const wave of plan.waves) {
    lines.push(`    subgraph ${waveIds.get(wave.wave)}[${mermaidLabel(`Wave ${wave.wave}: ${wave.role}`)}]`);
    for (const app of wave.applications) {
      lines.push(`      ${appIds.get(app.name)}[${mermaidLabel(app.name, `namespace ${app.namespace}`)}]`);
    }
    lines.push('    end');
  }
  lines.push('  end');
  const credential = c.credential.forgejo;
  lines.push(`  ${cutoverId}{{${mermaidLabel(
    'Phase 2 cutover: git.source forgejo',
    `every repoURL, the project's sourceRepos, and the credential ${c.credential.namespace}/${c.credential.forgejo.name}`,
    `from ${c.githubUrl}`,
    `to ${c.forgejoUrl}`,
    `then ${c.reapply.seedCredential}, ${c.reapply.seedRoot}, verify the mirror and apply ${c.reapply.credential}, ${c.reapply.root} ` +
      `(${credential.auth === 'ssh' ? 'SSH key' : 'token'} ${credential.defaultPath})`,
    c.source === 'github' ? 'status: pending' : 'status: done',
  )}}}`);

  lines.push('  %% Phase 0: each step needs the steps before it, and their waits');
  for (const step of plan.steps) {
    for (const dep of step.dependencies) lines.push(`  ${exit(dep.stepName)} --> ${stepIds.get(step.stepName)}`);
  }
  const firstWave = plan.waves[0];
  if (firstWave && stepIds.has(plan.handoverStep)) {
    lines.push('  %% Phase 0 hands over to Argo CD');
    lines.push(`  ${exit(plan.handoverStep)} -->|${mermaidLabel('applies the root app')}| ${waveIds.get(firstWave.wave)}`);
  }
  lines.push('  %% Argo CD starts a wave once the waves before it are healthy');
  for (let i = 1; i < plan.waves.length; i++) {
    lines.push(`  ${waveIds.get(plan.waves[i - 1].wave)} --> ${waveIds.get(plan.waves[i].wave)}`);
  }
  lines.push('  %% Application dependsOn');
  for (const wave of plan.waves) {
    for (const app of wave.applications) {
      for (const dep of app.dependsOn) lines.push(`  ${appIds.get(dep)} -.-> ${appIds.get(app.name)}`);
    }
  }
  lines.push('  %% The cutover needs Forgejo and its pull-mirror of the seed');
  if (stepIds.has(c.forgejoStep)) lines.push(`  ${exit(c.forgejoStep)} -.->|${mermaidLabel('serves git')}| ${cutoverId}`);
  const mirrorId = appIds.get(c.mirrorApp.name);
  if (mirrorId) lines.push(`  ${mirrorId} -.->|${mermaidLabel('mirrors the seed')}| ${cutoverId}`);
  return { source: lines.join('\n'), stepIds, waitIds, waveIds, appIds, cutoverId };
}

function phase0Table(plan: HomelabPlan): string[] {
  const pad = Math.max(2, String(plan.steps.length).length);
  // Step files sit beside the runbook.
  const stepDir = plan.cutover.runbook.replace(/[^/]*$/, '');
  const row = (s: PlannedStep) => [
    String(s.index).padStart(pad, '0'),
    `${code(s.stepName)}: ${text(s.summary)}<br>${link(`${stepDir}${s.fileName}${s.kind === 'manifest' ? '' : '/'}`)}` +
      (s.helmRelease ? `<br>${text(`helm release ${s.helmRelease}`)}` : ''),
    cellList(s.dependencies.map((d) => `${code(d.stepName)}: ${text(d.reason)}`)),
    cellList(s.preconditions.map(text)),
    cellList(s.waits.map(text)),
  ];
  return [
    '## Phase 0: bootstrap steps',
    '',
    `${link(plan.cutover.runbook)} applies the steps in this order (\`--dry-run\` prints it). A step starts only when ` +
      'the steps it needs are applied and their waits have passed.',
    '',
    '| # | Step | Needs | Checks before | Waits for |',
    '| --- | --- | --- | --- | --- |',
    ...plan.steps.map((s) => `| ${row(s).join(' | ')} |`),
  ];
}

function waveTable(wave: PlannedWave, waveOf: ReadonlyMap<string, number>): string[] {
  return [
    `### Wave ${wave.wave}: ${wave.role}`,
    '',
    '| Application | Namespace | Source(s) | Depends on |',
    '| --- | --- | --- | --- |',
    ...wave.applications.map((a) => `| ${[
      link(a.file, a.name),
      code(a.namespace),
      cellList([...a.sources.map(code), ...a.valueFiles.map((f) => `values ${code(f)}`)]),
      cellList(a.dependsOn.map((d) => `${code(d)} (wave ${waveOf.get(d) ?? '?'})`)),
    ].join(' | ')} |`),
  ];
}

function cutoverSection(c: PlannedCutover): string[] {
  const cred = c.credential;
  const side = (s: typeof cred.github) => `${s.auth === 'ssh' ? 'SSH deploy key' : 'HTTP token'} ${code(s.defaultPath)} ` +
    `(or ${code(`$${s.variable}`)})`;
  const r = c.reapply;
  return [
    '## Phase 2: cutover from the GitHub seed to Forgejo',
    '',
    c.source === 'github'
      ? 'Status: **pending**. `git.source` is `github`, so Argo CD reads the GitHub seed.'
      : 'Status: **done**. `git.source` is `forgejo`, so Argo CD reads Forgejo.',
    '',
    'Every place Argo CD names the homelab repository flips together (`repoUrlFor`):',
    '',
    '| What | GitHub seed (`git.source: github`) | Forgejo (`git.source: forgejo`) |',
    '| --- | --- | --- |',
    `| root app ${code(c.rootApp.name)} (${code(c.rootApp.file)}) | ${code(c.githubUrl)} | ${code(c.forgejoUrl)} |`,
    `| ${c.flippedApplications.length} Applications (${code('argocd/apps/')}), every source in the homelab repository ` +
      `| ${code(c.githubUrl)} | ${code(c.forgejoUrl)} |`,
    `| AppProject ${code(c.project.name)} (${code(c.project.file)}): ${code('sourceRepos')} permit both URLs and ` +
      `${c.project.chartRepos} chart repositories | unchanged | unchanged |`,
    '| repository credential (one Secret per git host; GitHub\'s stays for disaster recovery) | ' +
      `${code(`${cred.namespace}/${cred.github.name}`)}: ${side(cred.github)} | ${code(`${cred.namespace}/${cred.forgejo.name}`)}: ${side(cred.forgejo)} |`,
    ...(c.unchangedApplications.length > 0
      ? ['', `Unchanged (chart repositories only): ${c.unchangedApplications.map(code).join(', ')}.`]
      : []),
    '',
    'How:',
    '',
    `1. Check that Forgejo serves the repository: step ${code(c.forgejoStep)} is up and the Application ` +
      `${code(c.mirrorApp.name)} (wave ${c.mirrorApp.syncWave}) has pull-mirrored the GitHub seed.`,
    `2. Prepare ${code(cred.forgejo.defaultPath)} (or set ${code(`$${cred.forgejo.variable}`)}). ${text(cred.forgejo.hint)}`,
    `3. Set ${code('git.source: \'forgejo\'')} in the homelab config.`,
    `4. Synthesize (${code('npm run synth')}) and review the diff of ${code('dist/')}: the URLs above and the credential change.`,
    `5. Before merging, run ${link(c.runbook)} from the reviewed branch. It applies ${code(r.seedCredential)} and ` +
      `${code(r.seedRoot)} (GitHub's credential and the root app reading ${code('argocd/seed-apps/')} on the GitHub seed: where a rebuilt cluster starts), ` +
      `then ${code(r.credential)} verifies that Forgejo's pull-mirror holds the commit of ${code(c.branch)} on GitHub and ` +
      `adds Forgejo's credential, then ${code(r.root)} points the root app at Forgejo. A missing or stale mirror stops ` +
      'the runbook before the flip, naming why. The other steps are unchanged and pass at once.',
    '6. Merge. Forgejo pulls the merge on its next mirror interval; Argo CD then syncs every Application with ' +
      'Forgejo\'s URL. Argo CD has a credential for every URL at every moment.',
    '7. Keep pushing to GitHub: it stays the repository that is written to. Forgejo holds a pull-mirror, which ' +
      'refuses pushes; every change reaches Forgejo on the next mirror interval.',
    '',
    '**Rebuild after the cutover:** run the same runbook on the bare cluster. It seeds Argo CD from GitHub ' +
      `(${code(r.seedCredential)}, ${code(r.seedRoot)}), brings Forgejo up, waits in ${code(r.credential)} until the mirror ` +
      `holds the commit of ${code(c.branch)} that GitHub has, and only then flips the root app (${code(r.root)}). ` +
      `${code(`$${cred.forgejo.variable}`)} is checked at that step, once Forgejo runs: make the token in the new Forgejo, then re-run. ` +
      `A re-run on a cluster whose root app already reads Forgejo changes nothing: ${code(r.seedRoot)} is skipped, so the root app ` +
      `never goes back to GitHub; the mirror is verified again, and ${code(r.root)} re-applies the root app as it is.`,
  ];
}

function dataProtectionSection(d: PlannedDataProtection): string[] {
  const row = (c: PlannedDataProtection['clusters'][number]) => [
    `${code(c.cluster)}<br>${text(`namespace ${c.namespace}; ${c.deliveredBy}`)}`,
    c.backup
      ? `${code(c.backup.archive)} at ${code(c.backup.endpoint)}${c.backup.inClusterOnly ? ' (inside this cluster, kept on purpose)' : ''}` +
        `<br>${c.backup.walArchiving ? 'WAL continuously, ' : ''}base backups ${code(c.backup.schedule)}, kept ${code(c.backup.retentionPolicy)}` +
        `<br>credentials: Secret ${code(c.backup.credentials)}`
      : '**none**: a rebuild loses its data',
    c.backup ? text(c.backup.rpo) : 'everything',
    c.restore ? `from ${code(c.restore.archive)} ${text(c.restore.target)}` : '— (a new, empty cluster)',
  ];
  return [
    '## Data protection',
    '',
    RESTORE_ONLY_WHEN_CREATED,
    '',
    '| Cluster | Backups | A restore loses at most | Created from |',
    '| --- | --- | --- | --- |',
    ...d.clusters.map((c) => `| ${row(c).join(' | ')} |`),
    ...(d.offClusterKeys.length > 0 ? [
      '',
      'Kept off the cluster and out of git (the runbook reads them from the operator\'s machine; a rebuild needs every one of them):',
      '',
      ...d.offClusterKeys.map((k) => `- ${code(k.where)}: ${text(k.what)}`),
    ] : []),
  ];
}

function networkSection(n: PlannedNetwork): string[] {
  if (!n.enabled) {
    return ['## Network isolation', '', '**Off** (`network.isolatePhase0: false`): any pod may reach Forgejo, its Redis, its database and Argo CD.'];
  }
  return [
    '## Network isolation',
    '',
    ISOLATION_SUMMARY,
    '',
    `Default-deny namespaces: ${n.isolatedNamespaces.map(code).join(', ')}. The API server is allowed at ${code(n.kubernetesApi)}; ` +
      `"outside the cluster" is any address but the cluster's own ${n.clusterCidrs.map(code).join(', ')}.`,
    '',
    '| From | To | Ports | Why (the reference) | Allowed by |',
    '| --- | --- | --- | --- | --- |',
    ...n.flows.map((f) => `| ${code(f.from)} | ${code(f.to)} | ${text(f.ports)} | ${text(f.reason)} | ${cellList(f.allowedBy.map(code))} |`),
    ...(n.unconnectedApplications.length > 0 ? [
      '',
      '**Check:** these Applications deliver into a default-deny namespace and say nothing of their network (`network` in ' +
        'their config): any pod they run there can connect nowhere and accept nothing.',
      '',
      ...n.unconnectedApplications.map((a) => `- ${code(a.name)} → namespace ${code(a.namespace)}`),
    ] : []),
  ];
}

function pinsSection(pins: readonly PlannedPin[]): string[] {
  const lifecycle = (p: PlannedPin) => {
    const l = p.lifecycle;
    if (l.status === 'unknown') return 'unknown (not in `lib/shared/lifecycle.ts`)';
    const status = l.status === 'supported' ? l.status : `**${l.status}**`;
    return [`${status} since ${text(l.since)}: ${l.source.startsWith('https://') ? `<${l.source}>` : text(l.source)}`,
      ...(l.notes !== undefined ? [text(l.notes)] : []),
      ...(l.replacement !== undefined ? [`replace with ${text(l.replacement)}`] : [])].join('<br>');
  };
  return [
    '## Pinned versions',
    '',
    'Every pinned version this homelab deploys, collected from the output (`lib/plan/pins.ts`), with its lifecycle from ' +
      '`lib/shared/lifecycle.ts`. Renovate proposes bumps (`renovate.json`); pins that must move together are bumped in one ' +
      'pull request (`lib/shared/coupled-pins.ts`).',
    '',
    '| Component | Kind | Version | Used by | Lifecycle |',
    '| --- | --- | --- | --- | --- |',
    ...pins.map((p) => `| ${code(p.component)} | ${p.kind} | ${code(p.version)} | ${cellList(p.usedBy.map(code))} | ${lifecycle(p)} |`),
  ];
}

/** An inline code span that is safe in a table cell. */
function code(s: string): string {
  const fence = s.includes('`') ? '``' : '`';
  const pad = s.startsWith('`') || s.endsWith('`') ? ' ' : '';
  return `${fence}${pad}${s.replace(/\|/g, '\\|')}${pad}${fence}`;
}

/** A relative link to a file of `dist/`, shown as code (the path, unless `label` is given). */
function link(path: string, label: string = path): string {
  return `[${code(label)}](${encodeURI(path)})`;
}

/** Prose from elsewhere (reasons, hints), with Markdown syntax escaped so it reads as written. */
function text(s: string): string {
  return s.replace(/[\\`*_~<[\]|]/g, (c) => `\\${c}`);
}

/** Items of a table cell, one per line; an em dash when there are none. */
function cellList(items: readonly string[]): string {
  return items.length === 0 ? '—' : items.join('<br>');
}
