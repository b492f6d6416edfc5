import { appTierNote, HomelabPlan, PlannedCutover, PlannedStep, PlannedWave } from './homelab-plan';
import { PlannedDataProtection, RESTORE_ONLY_WHEN_CREATED } from './data-protection';
import { ISOLATION_SUMMARY, PlannedNetwork } from './network';
import { textStyle, TextStyle, wrap } from './text-layout';
import { PlannedPin } from './pins';
import { renderPromotionText } from './promotion-flow';
import { buildPreconditionLines } from './build-preconditions';

/** Options for `renderPlanText()`. */
export interface PlanTextOptions {
  /**
   * Colour the output with ANSI escape sequences.
   * @default false
   */
  readonly color?: boolean;
  /**
   * Terminal width every line is wrapped to.
   * @default 80
   */
  readonly width?: number;
}

/** Widest name column of a wave before names stop being aligned. */
const NAME_COLUMN_MAX = 24;

/**
 * Renders the plan for the terminal: the Phase-0 steps in apply order (what each needs and why, what is
 * checked before and waited for after it), the Argo CD waves with their Applications and dependencies, and
 * the Phase-2 cutover. Every line fits in `width` columns; colour only when `color` is set.
 */
export function renderPlanText(plan: HomelabPlan, options: PlanTextOptions = {}): string {
  const width = options.width ?? 80;
  if (!Number.isInteger(width) || width < 40) throw new Error(`plan: width must be a whole number of at least 40, got ${width}`);
  const style = textStyle(options.color ?? false);
  const out: string[] = [
    ...heading('Homelab plan: Phase 0 by hand, then Argo CD waves, then the Phase-2 cutover', width, style),
    '',
    ...phase0(plan, width, style),
    '',
    ...waves(plan, width, style),
    '',
    ...cutover(plan.cutover, width, style),
    '',
    ...dataProtection(plan.dataProtection, width, style),
    '',
    ...network(plan.network, width, style),
    '',
    ...(plan.promotion.length > 0 ? [...renderPromotionText(plan.promotion, width, style), ''] : []),
    ...(plan.buildPreconditions ? [...heading('Image build: what Argo CD cannot do (delivery.build)', width, style),
      ...buildPreconditionLines(plan.buildPreconditions).flatMap((l) => wrap(l, width, '  - ', '    ')), ''] : []),
    ...pins(plan.pins, width, style),
    ...(plan.warnings.length > 0 ? ['', ...heading('Warnings: settings that lose data or protection by design, and pins that get no more fixes', width, style),
      ...plan.warnings.flatMap((w) => wrap(style.yellow(w), width, '  - ', '    '))] : []),
  ];
  return `${out.join('\n')}\n`;
}

function heading(text: string, width: number, style: TextStyle): string[] {
  return wrap(text, width).map((l) => style.bold(l));
}

function para(text: string, width: number, indent: string): string[] {
  return wrap(text, width, indent);
}

function phase0(plan: HomelabPlan, width: number, style: TextStyle): string[] {
  const numberWidth = String(plan.steps.length).length;
  const lines = [
    ...heading(`Phase 0: bootstrap steps, in the order dist/${plan.cutover.runbook} applies them`, width, style),
    ...para('Each step starts only when the steps it needs are applied and their waits have passed. ' +
      'Re-running the runbook is safe: applies are idempotent and finished waits pass at once.', width, '  '),
  ];
  for (const step of plan.steps) lines.push('', ...phase0Step(step, numberWidth, width, style));
  return lines;
}

function phase0Step(step: PlannedStep, numberWidth: number, width: number, style: TextStyle): string[] {
  const number = `${String(step.index).padStart(numberWidth)}.`;
  const body = ' '.repeat(2 + number.length + 1);
  const file = step.kind === 'manifest' ? step.fileName : `${step.fileName}/`;
  const label = (name: string) => `${body}${style.dim(name.padEnd(6))} `;
  const labelIndent = ' '.repeat(body.length + 7);
  return [
    ...wrap(`${style.bold(style.cyan(step.stepName))} ${style.dim(`(${file})`)}`, width, `  ${number} `, body),
    ...wrap(step.summary, width, body),
    ...(step.helmRelease ? wrap(step.helmRelease, width, label('helm'), labelIndent) : []),
    ...step.dependencies.flatMap((d) => wrap(`${style.cyan(d.stepName)}: ${d.reason}`, width, label('needs'), labelIndent)),
    ...step.preconditions.flatMap((p) => wrap(p, width, label('check'), labelIndent)),
    ...step.waits.flatMap((w) => wrap(w, width, label('wait'), labelIndent)),
  ];
}

function waves(plan: HomelabPlan, width: number, style: TextStyle): string[] {
  const handover = plan.steps.find((s) => s.stepName === plan.handoverStep);
  const tierNote = appTierNote(plan);
  const lines = [
    ...heading(`Argo CD: the root app '${plan.rootApp}' syncs its Applications wave by wave`, width, style),
    ...para(`Phase 0 hands over at step ${handover?.index ?? '?'} (${plan.handoverStep}), which applies the ` +
      `AppProject '${plan.project}' and the root app. Argo CD starts a wave only when every Application of the ` +
      `waves before it is healthy; an Application needs only Applications of earlier waves.${tierNote ? ` ${tierNote}` : ''}`, width, '  '),
  ];
  const waveOf = new Map(plan.waves.flatMap((w) => w.applications.map((a) => [a.name, w.wave] as const)));
  for (const wave of plan.waves) lines.push('', ...waveLines(wave, waveOf, width, style));
  return lines;
}

function waveLines(wave: PlannedWave, waveOf: ReadonlyMap<string, number>, width: number, style: TextStyle): string[] {
  const column = Math.min(NAME_COLUMN_MAX, Math.max(...wave.applications.map((a) => a.name.length)));
  const lines = [style.bold(style.magenta(`  Wave ${wave.wave}: ${wave.role}`))];
  for (const app of wave.applications) {
    const pad = ' '.repeat(Math.max(0, column - app.name.length));
    lines.push(...wrap(`namespace ${app.namespace}`, width, `    ${style.cyan(app.name)}${pad}  `, '      '));
    for (const dep of app.dependsOn) {
      lines.push(...wrap(`${style.dim('needs')} ${dep} (wave ${waveOf.get(dep) ?? '?'})`, width, '      ', '        '));
    }
  }
  return lines;
}

function cutover(c: PlannedCutover, width: number, style: TextStyle): string[] {
  const status = c.source === 'github'
    ? 'Status: pending. git.source is \'github\', so Argo CD reads the GitHub seed.'
    : 'Status: done. git.source is \'forgejo\', so Argo CD reads Forgejo.';
  // Cut first, then style, so a URL wider than the terminal is cut like any other word.
  const url = (text: string, colour: (t: string) => string) => wrap(text, width, '    ').map((l) => `    ${colour(l.slice(4))}`);
  const item = (text: string) => wrap(text, width, '    - ', '      ');
  const cred = c.credential;
  const creds = (side: typeof cred.github) => `${side.auth === 'ssh' ? 'an SSH deploy key' : 'an HTTP token'} ` +
    `(${side.defaultPath}, or $${side.variable})`;
  const r = c.reapply;
  const lines = [
    ...heading('Phase 2: cutover from the GitHub seed to Forgejo', width, style),
    ...para(status, width, '  '),
    '',
    ...para('Every place Argo CD names the homelab repository flips together (repoUrlFor), from the GitHub seed', width, '  '),
    ...url(c.githubUrl, style.yellow),
    ...para('to Forgejo\'s in-cluster URL', width, '  '),
    ...url(c.forgejoUrl, style.green),
    '',
    '  What flips:',
    ...item(`the root app '${c.rootApp.name}' (${c.rootApp.file}): its repoURL`),
    ...item(`${c.flippedApplications.length} Applications (argocd/apps/): the repoURL of every source in the homelab repository`),
    ...(c.unchangedApplications.length > 0
      ? item(`unchanged: ${c.unchangedApplications.join(', ')} (chart repositories only)`)
      : []),
    ...item(`unchanged: the AppProject '${c.project.name}' (${c.project.file}), whose sourceRepos permit both URLs ` +
      `(and ${c.project.chartRepos} chart repositories), so no Application is ever on a URL its project refuses`),
    ...item(`the repository credential: Secret ${cred.namespace}/${cred.forgejo.name} with ${creds(cred.forgejo)} is added; ` +
      `${cred.namespace}/${cred.github.name} with ${creds(cred.github)} stays for disaster recovery`),
    '',
    '  How:',
  ];
  const steps = [
    `Check that Forgejo serves the repository: step ${c.forgejoStep} is up and the Application ${c.mirrorApp.name} ` +
      `(wave ${c.mirrorApp.syncWave}) has pull-mirrored the GitHub seed.`,
    `Prepare ${cred.forgejo.defaultPath} (or set $${cred.forgejo.variable}). ${cred.forgejo.hint}`,
    'Set git.source: \'forgejo\' in the homelab config.',
    'Synthesize (npm run synth) and review the diff of dist/: the URLs above and the credential change.',
    `Before merging, run dist/${c.runbook} from the reviewed branch. It applies ${r.seedCredential} and ` +
      `${r.seedRoot} (GitHub's credential and the root app reading argocd/seed-apps/ on the GitHub seed: where a rebuilt cluster starts), ` +
      `then ${r.credential} verifies that Forgejo's pull-mirror holds the commit of ${c.branch} on GitHub and adds ` +
      `Forgejo's credential, then ${r.root} points the root app at Forgejo. A missing or stale mirror stops the ` +
      'runbook before the flip, naming why. The other steps are unchanged and pass at once.',
    'Merge. Forgejo pulls the merge on its next mirror interval; Argo CD then syncs every Application with ' +
      'Forgejo\'s URL. Argo CD has a credential for every URL at every moment.',
    'Keep pushing to GitHub: it stays the repository that is written to. Forgejo holds a pull-mirror, which ' +
      'refuses pushes; every change reaches Forgejo on the next mirror interval.',
    'Rebuild after the cutover: run the same runbook on the bare cluster. It seeds Argo CD from GitHub, brings ' +
      `Forgejo up, waits for the mirror to hold ${c.branch}, and only then flips; $${cred.forgejo.variable} is ` +
      `checked at ${r.credential}, once Forgejo runs (make the token in the new Forgejo, then re-run). A re-run on a ` +
      `cluster whose root app already reads Forgejo changes nothing: ${r.seedRoot} is skipped, so the root app never goes ` +
      `back to GitHub; the mirror is verified again, and ${r.root} re-applies the root app as it is.`,
  ];
  steps.forEach((s, i) => lines.push(...wrap(s, width, `    ${i + 1}. `, '       ')));
  return lines;
}

function network(n: PlannedNetwork, width: number, style: TextStyle): string[] {
  const lines = [...heading('Network isolation: who may talk to whom, and why', width, style)];
  if (!n.enabled) return [...lines, ...para(style.yellow('off (network.isolatePhase0: false): every Phase-0 namespace is open'), width, '  ')];
  lines.push(
    ...para(ISOLATION_SUMMARY, width, '  '),
    ...para(`Default-deny: ${n.isolatedNamespaces.join(', ')}. API server: ${n.kubernetesApi}.`, width, '  '),
  );
  const label = (name: string) => `      ${style.dim(name.padEnd(7))} `;
  const indent = ' '.repeat(14);
  for (const f of n.flows) {
    lines.push(
      '',
      ...wrap(`${style.cyan(f.from)} → ${style.cyan(f.to)}`, width, '    ', '      '),
      ...wrap(f.ports, width, label('ports'), indent),
      ...wrap(f.reason, width, label('why'), indent),
      ...wrap(f.allowedBy.length > 0 ? f.allowedBy.join(', ') : 'no policy: neither end is isolated', width, label('policy'), indent),
    );
  }
  for (const a of n.unconnectedApplications) {
    lines.push('', ...wrap(style.yellow(`check: Application ${a.name} delivers into default-deny namespace ${a.namespace} without ` +
      '`network`: any pod it runs there can connect nowhere and accept nothing'), width, '  ', '    '));
  }
  return lines;
}

function pins(list: readonly PlannedPin[], width: number, style: TextStyle): string[] {
  const label = (name: string) => `      ${style.dim(name.padEnd(7))} `;
  const indent = ' '.repeat(14);
  const lines = [
    ...heading('Pinned versions: images, charts, release manifests and CRD snapshots', width, style),
    ...para('Collected from the output; lifecycle from lib/shared/lifecycle.ts (unknown when it has no entry).', width, '  '),
  ];
  for (const p of list) {
    const l = p.lifecycle;
    const status = l.status === 'unknown' ? 'unknown'
      : `${l.status === 'supported' ? l.status : style.yellow(l.status)} since ${l.since} (${l.source})` +
        `${l.replacement !== undefined ? `; replace with ${l.replacement}` : ''}`;
    lines.push(
      '',
      ...wrap(`${style.cyan(p.component)} ${style.dim(p.kind)} ${p.version}`, width, '    ', '      '),
      ...wrap(p.usedBy.join(', '), width, label('used by'), indent),
      ...wrap(status, width, label('status'), indent),
    );
  }
  return lines;
}

function dataProtection(d: PlannedDataProtection, width: number, style: TextStyle): string[] {
  const label = (name: string) => `      ${style.dim(name.padEnd(8))} `;
  const indent = ' '.repeat(15);
  const lines = [
    ...heading('Data protection: backups, restores, and the keys kept off the cluster', width, style),
    ...para(RESTORE_ONLY_WHEN_CREATED, width, '  '),
  ];
  for (const c of d.clusters) {
    lines.push('', ...wrap(`${style.cyan(c.cluster)} ${style.dim(`(namespace ${c.namespace}; ${c.deliveredBy})`)}`, width, '    ', '      '));
    if (c.backup) {
      const b = c.backup;
      lines.push(
        ...wrap(`${b.archive} at ${b.endpoint}${b.inClusterOnly ? ' (inside this cluster, kept on purpose)' : ''}`, width, label('archive'), indent),
        ...wrap(`${b.walArchiving ? 'WAL continuously, ' : ''}base backups on '${b.schedule}' (seconds first), kept ${b.retentionPolicy}`, width, label('backs up'), indent),
        ...wrap(b.rpo, width, label('loses'), indent),
        ...wrap(`Secret ${b.credentials}`, width, label('creds'), indent),
      );
    } else {
      lines.push(...wrap(style.yellow('no backups: a rebuild loses this cluster\'s data'), width, label('archive'), indent));
    }
    if (c.restore) {
      lines.push(...wrap(`when created, from ${c.restore.archive} ${c.restore.target}`, width, label('restores'), indent));
    }
  }
  if (d.offClusterKeys.length > 0) {
    lines.push('', ...para('Kept off the cluster and out of git (the runbook reads them from the operator\'s machine; ' +
      'a rebuild needs every one of them):', width, '  '));
    for (const k of d.offClusterKeys) lines.push(...wrap(`${k.where}: ${k.what}`, width, '    - ', '      '));
  }
  return lines;
}
