import { overviewDiagram, renderOverview } from '../../lib/plan/render-overview';
import { parseMermaid, planFor, withGit } from './util';

describe('renderOverview, reference homelab', () => {
  const { plan, tree, argocd } = planFor();
  const markdown = renderOverview(plan);
  const diagram = overviewDiagram(plan);
  const mermaid = parseMermaid(markdown);

  test('synthesis writes it as dist/README.md', () => {
    expect(tree.get('README.md')).toBe(markdown);
  });

  test('the Markdown holds the diagram as a mermaid flowchart', () => {
    expect(mermaid.source).toBe(diagram.source);
    expect(mermaid.lines[0]).toBe('flowchart TD');
  });

  test('an edge for each step dependency, leaving from the waits of the step depended on', () => {
    for (const step of plan.steps) {
      for (const dep of step.dependencies) {
        const from = diagram.waitIds.get(dep.stepName) ?? diagram.stepIds.get(dep.stepName);
        expect(mermaid.edges).toContain(`${from} --> ${diagram.stepIds.get(step.stepName)}`);
      }
    }
    // The edges point the way the steps are labelled: 05 postgres-forgejo-db's waits lead to 06 forgejo.
    const waits = diagram.waitIds.get('postgres-forgejo-db')!;
    expect(mermaid.labels.get(waits)).toBe('waits for<br/>Job cicd/wait-for-forgejo-db complete');
    expect(mermaid.edges).toContain(`${diagram.stepIds.get('postgres-forgejo-db')} --> ${waits}`);
    expect(mermaid.labels.get(diagram.stepIds.get('forgejo')!)).toMatch(/^07 forgejo<br\/>/);
    expect(mermaid.edges).toContain(`${waits} --> ${diagram.stepIds.get('forgejo')}`);
  });

  test('every step has a node labelled with its number and name, and a waits node when it waits', () => {
    for (const step of plan.steps) {
      const id = diagram.stepIds.get(step.stepName)!;
      expect(mermaid.labels.get(id)).toBe(`${String(step.index).padStart(2, '0')} ${step.stepName}<br/>${step.summary}`);
      expect(diagram.waitIds.has(step.stepName)).toBe(step.waits.length > 0);
    }
  });

  test('an edge for each Application dependsOn', () => {
    let count = 0;
    for (const app of argocd.applications.values()) {
      for (const dep of app.dependsOn) {
        expect(mermaid.edges).toContain(`${diagram.appIds.get(dep.name)} -.-> ${diagram.appIds.get(app.name)}`);
        count++;
      }
    }
    expect(count).toBeGreaterThan(5);
  });

  test('waves are chained in order, and Phase 0 hands over to the first', () => {
    const waves = plan.waves.map((w) => diagram.waveIds.get(w.wave));
    for (let i = 1; i < waves.length; i++) expect(mermaid.edges).toContain(`${waves[i - 1]} --> ${waves[i]}`);
    expect(mermaid.edges).toContain(`${diagram.stepIds.get(plan.handoverStep)} --> ${waves[0]}`);
    expect(mermaid.edges).toContain(`${diagram.appIds.get('forgejo-mirror')} -.-> ${diagram.cutoverId}`);
  });

  test('every Application is a node inside its wave\'s subgraph', () => {
    for (const wave of plan.waves) {
      const open = mermaid.lines.findIndex((l) => l.trim().startsWith(`subgraph ${diagram.waveIds.get(wave.wave)}[`));
      const close = mermaid.lines.findIndex((l, i) => i > open && l.trim() === 'end');
      const inside = mermaid.lines.slice(open + 1, close).map((l) => l.trim().split('[')[0]);
      expect(inside).toEqual(wave.applications.map((a) => diagram.appIds.get(a.name)));
    }
  });

  test('the diagram is well-formed flowchart syntax: safe ids, quoted labels, balanced subgraphs', () => {
    const ids = [...diagram.stepIds.values(), ...diagram.waitIds.values(), ...diagram.waveIds.values(), ...diagram.appIds.values(),
      diagram.cutoverId];
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) expect(id).toMatch(/^[a-z]+_[A-Za-z0-9_]+$/);
    const statements = mermaid.lines.slice(1).map((l) => l.trim());
    for (const s of statements) {
      const known = s === 'end' || s === 'direction TB' || s.startsWith('%%') || mermaid.edges.some((e) => s.replace(/\|"[^"]*"\|/, '') === e)
        || /^(subgraph )?[a-z]+_[A-Za-z0-9_]+(\["[^"]*"\]|\("[^"]*"\)|\{\{"[^"]*"\}\})$/.test(s);
      expect({ statement: s, known }).toEqual({ statement: s, known: true });
    }
    const opened = statements.filter((s) => s.startsWith('subgraph ')).length;
    expect(statements.filter((s) => s === 'end').length).toBe(opened);
    // Every edge joins declared nodes or subgraphs.
    for (const e of mermaid.edges) {
      const [from, , to] = e.split(' ');
      expect([from, mermaid.labels.has(from)]).toEqual([from, true]);
      expect([to, mermaid.labels.has(to)]).toEqual([to, true]);
    }
  });

  test('says what the app tier\'s waves are, and why they come last', () => {
    expect(markdown).toContain('An Application may depend only on Applications of earlier waves. Waves 9-10 are the app tier (the signature ' +
      'policies and delivery.apps): derived after every platform wave, so a failing app, or a Kyverno that never becomes ready, holds no ' +
      'platform Application.');
  });

  test('a table per wave: Application, namespace, sources, depends on', () => {
    for (const wave of plan.waves) {
      const heading = markdown.indexOf(`\n### Wave ${wave.wave}: ${wave.role}\n`);
      expect(heading).toBeGreaterThan(0);
      const section = markdown.slice(heading + 1).split('\n\n').slice(1, 2)[0].split('\n');
      expect(section.slice(0, 2)).toEqual(['| Application | Namespace | Source(s) | Depends on |', '| --- | --- | --- | --- |']);
      const rows = section.slice(2);
      expect(rows.map((r) => /^\| \[`([^`]+)`\]/.exec(r)?.[1])).toEqual(wave.applications.map((a) => a.name));
      wave.applications.forEach((a, i) => {
        const cells = rows[i].split(' | ');
        expect(cells[0]).toBe(`| [\`${a.name}\`](${a.file})`);
        expect(cells[1]).toBe(`\`${a.namespace}\``);
        for (const s of a.sources) expect(cells[2]).toContain(`\`${s}\``);
        expect(cells[3]).toBe(a.dependsOn.length === 0 ? '— |' : `${a.dependsOn.map((d) => `\`${d}\` (wave ${argocd.applications.get(d)!.syncWave})`).join('<br>')} |`);
      });
    }
  });

  test('the cutover lists both URLs and how to do it', () => {
    const cutover = markdown.slice(markdown.indexOf('## Phase 2'));
    expect(cutover).toContain(`\`${plan.cutover.githubUrl}\``);
    expect(cutover).toContain(`\`${plan.cutover.forgejoUrl}\``);
    expect(cutover).toContain('Status: **pending**.');
    expect(cutover).toContain('3. Set `git.source: \'forgejo\'` in the homelab config.');
    expect(cutover).toContain('A re-run on a cluster whose root app already reads Forgejo changes nothing: `10-argocd-seed-root.yaml` is skipped, '
      + 'so the root app never goes back to GitHub; the mirror is verified again, and `12-argocd-root.yaml` re-applies the root app as it is.');
    expect(mermaid.labels.get(diagram.cutoverId)).toContain(`to ${plan.cutover.forgejoUrl}`);
  });

  test('deterministic: the same plan renders the same bytes, with no dates', () => {
    expect(renderOverview(planFor().plan)).toBe(markdown);
    // The only dates are the lifecycle table's (lib/shared/lifecycle.ts: data, not the clock), in the pins table and the warnings.
    const lifecycleText = JSON.stringify(plan.pins.map((p) => p.lifecycle));
    expect(markdown.slice(0, markdown.indexOf('## Pinned versions'))).not.toMatch(/\d{4}-\d{2}-\d{2}/);
    for (const date of markdown.match(/\d{4}-\d{2}-\d{2}/g) ?? []) expect(lifecycleText).toContain(date);
  });
});

test('after the cutover the overview says done', () => {
  const markdown = renderOverview(planFor(withGit({ source: 'forgejo' })).plan);
  expect(markdown).toContain('Status: **done**.');
  expect(parseMermaid(markdown).source).toContain('status: done');
});
