import { MermaidIds, mermaidLabel } from '../plan/mermaid';
import { textStyle, wrap } from '../plan/text-layout';
import { formatPath, showValue } from './object-diff';
import { isRisky, ObjectChange, Review, RiskClass } from './review-changes';
import { apiVersionOf, describeObject } from './review-objects';

/** What the review compared, for the headline: e.g. `main (3f2a1c0)` and `the working tree`. */
export interface ReviewSides {
  readonly base: string;
  readonly head: string;
}

const LABEL: Record<RiskClass, string> = {
  'breaks-apply': 'breaks apply',
  'destroys-data': 'destroys data',
  'needs-runbook': 'needs the runbook',
  'moves-pin': 'moves a pin',
};
const CLASSES: readonly RiskClass[] = ['breaks-apply', 'destroys-data', 'needs-runbook', 'moves-pin'];
const SIGN = { added: '+', removed: '-', changed: '~' } as const;
const WIDTH = 80;

/** The groups of the report, in order: bootstrap steps, then Argo CD waves, then objects under no Application. */
function groups(review: Review): { title: string; changes: ObjectChange[] }[] {
  const byTitle = new Map<string, ObjectChange[]>();
  for (const c of review.changes) {
    const title = c.step !== undefined ? `Bootstrap step ${c.step}` : c.file.startsWith('bootstrap/') ? 'Bootstrap runbook'
      : c.wave !== undefined ? `Argo CD wave ${c.wave}` : 'Argo CD, under no Application';
    byTitle.set(title, [...(byTitle.get(title) ?? []), c]);
  }
  return [...byTitle].map(([title, changes]) => ({ title, changes }));
}

/** Counts per class (objects, not findings) and per kind of change. */
export function reviewSummary(review: Review) {
  const count = (cls: RiskClass) => review.changes.filter((c) => c.findings.some((f) => f.class === cls)).length;
  return {
    objects: review.changes.length,
    added: review.changes.filter((c) => c.change === 'added').length,
    removed: review.changes.filter((c) => c.change === 'removed').length,
    changed: review.changes.filter((c) => c.change === 'changed').length,
    breaksApply: count('breaks-apply'),
    destroysData: count('destroys-data'),
    needsRunbook: count('needs-runbook'),
    movesPin: count('moves-pin'),
  };
}

function headline(review: Review, sides: ReviewSides): string {
  const s = reviewSummary(review);
  if (s.objects === 0) return `No object changes between ${sides.base} and ${sides.head}.`;
  return `${s.objects} object${s.objects === 1 ? '' : 's'} change${s.objects === 1 ? 's' : ''} between ${sides.base} and ${sides.head} ` +
    `(${s.added} added, ${s.removed} removed, ${s.changed} changed).`;
}

function verdict(review: Review): string {
  const s = reviewSummary(review);
  const parts = CLASSES.map((c) => [c, { 'breaks-apply': s.breaksApply, 'destroys-data': s.destroysData, 'needs-runbook': s.needsRunbook, 'moves-pin': s.movesPin }[c]] as const)
    .filter(([, n]) => n > 0).map(([c, n]) => `${n} ${LABEL[c]}`);
  if (review.changes.length === 0) return 'Nothing risky.';
  return isRisky(review) ? `Risky: ${parts.join(', ')}.` : `Nothing risky${parts.length > 0 ? ` (${parts.join(', ')})` : ''}.`;
}

function classesOf(c: ObjectChange): RiskClass[] {
  return CLASSES.filter((cls) => c.findings.some((f) => f.class === cls));
}

function fieldLines(c: ObjectChange): string[] {
  if (c.change !== 'changed') return [];
  return c.fields.map((f) => `${formatPath(f.path) || '(whole file)'}: ${showValue(f.old)} → ${showValue(f.new)}`);
}

/** The report for a terminal: at most 80 columns, coloured only when `color` (the caller decides: TTY, NO_COLOR). */
export function renderReviewText(review: Review, sides: ReviewSides, options: { readonly color: boolean }): string {
  const st = textStyle(options.color);
  const paint: Record<RiskClass, (t: string) => string> = {
    'breaks-apply': (t) => st.bold(st.magenta(t)), 'destroys-data': (t) => st.bold(st.magenta(t)), 'needs-runbook': st.yellow, 'moves-pin': st.cyan,
  };
  const summary = isRisky(review) ? st.bold(verdict(review)) : st.green(verdict(review));
  const out: string[] = [...wrap(headline(review, sides), WIDTH), ...wrap(summary, WIDTH)];
  for (const g of groups(review)) {
    out.push('', st.bold(g.title));
    for (const c of g.changes) {
      const app = c.application !== undefined && !(c.id.kind === 'Application' && c.id.name === c.application) ? ` (Application ${c.application})` : '';
      const tags = classesOf(c).map((cls) => paint[cls](`[${LABEL[cls]}]`)).join(' ');
      out.push(...wrap(`${SIGN[c.change]} ${c.change} ${describeObject(c.id)}${app} ${tags}`, WIDTH, '  ', '      '));
      for (const line of fieldLines(c)) out.push(...wrap(st.dim(line), WIDTH, '      ', '        '));
      for (const f of c.findings) out.push(...wrap(`${paint[f.class](`${LABEL[f.class]}:`)} ${f.message}`, WIDTH, '      ', '        '));
    }
  }
  if (review.runbookSteps.length > 0) {
    out.push('', ...wrap(`Re-run the runbook (dist/bootstrap/bootstrap.sh) for: ${review.runbookSteps.join(', ')}.`, WIDTH));
  }
  return `${out.join('\n')}\n`;
}

/**
 * Most severe first, for the diagram's colour: lost data cannot be brought back, a refused apply can be retried,
 * a runbook step is work, a pin move is information.
 */
const SEVERITY: readonly RiskClass[] = ['destroys-data', 'breaks-apply', 'needs-runbook', 'moves-pin'];
/** Mermaid class name and style of each colour; dark text on a light fill reads in both light and dark themes. */
const DIAGRAM_STYLE: Record<RiskClass | 'none', { readonly className: string; readonly colour: string; readonly style: string }> = {
  'destroys-data': { className: 'destroysData', colour: 'red', style: 'fill:#f8d7da,stroke:#b02a37,color:#000' },
  'breaks-apply': { className: 'breaksApply', colour: 'orange', style: 'fill:#ffe5d0,stroke:#ca6510,color:#000' },
  'needs-runbook': { className: 'needsRunbook', colour: 'yellow', style: 'fill:#fff3cd,stroke:#997404,color:#000' },
  'moves-pin': { className: 'movesPin', colour: 'blue', style: 'fill:#cfe2ff,stroke:#0a58ca,color:#000' },
  none: { className: 'quiet', colour: 'grey', style: 'fill:#e9ecef,stroke:#6c757d,color:#000' },
};

/**
 * The pull-request comment's picture: the bootstrap steps and Argo CD waves this change touches, in the order the
 * runbook and Argo CD apply them, each box coloured by the most severe class among its objects. A Mermaid
 * `flowchart` source without the Markdown fence; undefined when nothing changes. `npm run diagrams` renders it
 * with the real Mermaid renderer.
 */
export function reviewDiagram(review: Review): string | undefined {
  const touched = groups(review);
  if (touched.length === 0) return undefined;
  const ids = new MermaidIds();
  const lines = ['flowchart LR'];
  const byClass = new Map<RiskClass | 'none', string[]>();
  for (const g of touched) {
    const id = ids.id('group', g.title);
    const kinds = (['added', 'removed', 'changed'] as const).map((k) => [k, g.changes.filter((c) => c.change === k).length] as const)
      .filter(([, n]) => n > 0).map(([k, n]) => `${n} ${k}`);
    const classes = SEVERITY.map((cls) => [cls, g.changes.filter((c) => c.findings.some((f) => f.class === cls)).length] as const)
      .filter(([, n]) => n > 0).map(([cls, n]) => `${LABEL[cls]}: ${n}`);
    const objects = `${g.changes.length} object${g.changes.length === 1 ? '' : 's'} (${kinds.join(', ')})`;
    lines.push(`  ${id}[${mermaidLabel(g.title, objects, ...(classes.length > 0 ? [classes.join(', ')] : []))}]`);
    const worst = SEVERITY.find((cls) => g.changes.some((c) => c.findings.some((f) => f.class === cls))) ?? 'none';
    byClass.set(worst, [...(byClass.get(worst) ?? []), id]);
  }
  const groupIds = touched.map((g) => ids.id('group', g.title));
  for (let i = 1; i < groupIds.length; i++) lines.push(`  ${groupIds[i - 1]} --> ${groupIds[i]}`);
  for (const cls of [...SEVERITY, 'none'] as const) {
    const members = byClass.get(cls);
    if (!members) continue;
    lines.push(`  classDef ${DIAGRAM_STYLE[cls].className} ${DIAGRAM_STYLE[cls].style}`, `  class ${members.join(',')} ${DIAGRAM_STYLE[cls].className}`);
  }
  return lines.join('\n');
}

const code = (text: string) => `\`${text.replace(/`/g, "'")}\``;
const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');

/** The report as a pull-request comment (GitHub and Forgejo Markdown). */
export function renderReviewMarkdown(review: Review, sides: ReviewSides): string {
  const icon: Record<RiskClass, string> = { 'breaks-apply': '⛔', 'destroys-data': '🔥', 'needs-runbook': '📋', 'moves-pin': '📌' };
  const out = ['## What this pull request changes in the cluster', '', headline(review, sides), '', `**${verdict(review)}**`];
  const diagram = reviewDiagram(review);
  if (diagram !== undefined) {
    const legend = [...SEVERITY, 'none' as const].map((cls) => `${DIAGRAM_STYLE[cls].colour} ${cls === 'none' ? 'nothing classified' : LABEL[cls]}`);
    out.push('', '```mermaid', diagram, '```', '', `The steps and waves this change touches, in apply order. Colour, the most severe class in each: ${legend.join(', ')}.`);
  }
  if (review.changes.length > 0) {
    out.push('', '| | Object | Where | Classification |', '| --- | --- | --- | --- |');
    for (const c of review.changes) {
      const where = c.step !== undefined ? `bootstrap step ${code(c.step)}` : c.wave !== undefined ? `wave ${c.wave}${c.application ? `, ${code(c.application)}` : ''}` : code(c.file);
      const cls = classesOf(c).map((x) => `${icon[x]} ${LABEL[x]}`).join(', ') || '—';
      out.push(`| ${SIGN[c.change]} | ${code(describeObject(c.id))} | ${cell(where)} | ${cls} |`);
    }
  }
  for (const g of groups(review)) {
    out.push('', `### ${g.title}`, '');
    for (const c of g.changes) {
      out.push(`- **${c.change}** ${code(`${apiVersionOf(c.id) || 'file'} ${describeObject(c.id)}`)} (${code(c.file)})`);
      for (const line of fieldLines(c)) out.push(`  - ${code(line)}`);
      for (const f of c.findings) out.push(`  - ${icon[f.class]} **${LABEL[f.class]}**: ${cell(f.message)}`);
    }
  }
  if (review.runbookSteps.length > 0) {
    out.push('', `**Re-run the runbook** (\`dist/bootstrap/bootstrap.sh\`) for: ${review.runbookSteps.map(code).join(', ')}.`);
  }
  return `${out.join('\n')}\n`;
}

/** The report for machines: every change with its fields and findings. */
export function renderReviewJson(review: Review, sides: ReviewSides): string {
  return `${JSON.stringify({
    base: sides.base,
    head: sides.head,
    risky: isRisky(review),
    summary: reviewSummary(review),
    runbookSteps: review.runbookSteps,
    changes: review.changes.map((c) => ({
      change: c.change,
      apiVersion: apiVersionOf(c.id),
      kind: c.id.kind,
      namespace: c.id.namespace,
      name: c.id.name,
      file: c.file,
      ...(c.step === undefined ? {} : { step: c.step }),
      ...(c.application === undefined ? {} : { application: c.application, wave: c.wave }),
      classes: classesOf(c),
      fields: c.fields.map((f) => ({ path: formatPath(f.path), ...('old' in f ? { old: f.old } : {}), ...('new' in f ? { new: f.new } : {}) })),
      findings: c.findings,
    })),
  }, null, 2)}\n`;
}
