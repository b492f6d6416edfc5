import { planSteps } from '../../lib/output/render-steps';
import { renderPlanText } from '../../lib/plan/render-plan-text';
import { appTierNote } from '../../lib/plan/homelab-plan';
import { REFERENCE_HOMELAB } from '../../lib/config/defaults';
import ddbCluster from '../../examples/ddb-cluster.config';
import { parsePlanText, planFor, withGit } from './util';

const ANSI = /\x1b\[/;
/** The reference homelab, synthesized once for the file: rendering only reads it. */
const reference = planFor();

describe('renderPlanText, reference homelab', () => {
  const { bootstrap, argocd, plan } = reference;
  const text = renderPlanText(plan);
  const parsed = parsePlanText(text);

  test('lists the Phase-0 steps in planSteps order, each with its file', () => {
    const planned = planSteps(bootstrap.steps);
    expect(parsed.steps.map((s) => s.stepName)).toEqual(planned.map((p) => p.step.stepName));
    expect(parsed.steps.map((s) => s.index)).toEqual(planned.map((p) => p.index));
    expect(parsed.steps.map((s) => s.file)).toEqual(planned.map((p) => (p.applyFlag === '-f' ? p.fileName : `${p.fileName}/`)));
  });

  test('says why each step needs the ones before it, and what it checks and waits for', () => {
    for (const step of plan.steps) {
      const shown = parsed.steps.find((s) => s.stepName === step.stepName)!;
      expect(shown.needs).toEqual(step.dependencies.map((d) => `${d.stepName}: ${d.reason}`));
      expect(shown.checks).toEqual(step.preconditions);
      expect(shown.waits).toEqual(step.waits);
      expect(shown.helm).toEqual(step.helmRelease === undefined ? [] : [step.helmRelease]);
      // Everything a step needs is listed above it.
      for (const d of step.dependencies) expect(plan.steps.findIndex((s) => s.stepName === d.stepName)).toBeLessThan(step.index - 1);
    }
    const forgejo = parsed.steps.find((s) => s.stepName === 'forgejo')!;
    expect(forgejo.needs).toContainEqual(expect.stringMatching(/^postgres-forgejo-db: Forgejo needs database 'forgejo'/));
    expect(forgejo.waits).toContain('Deployment cicd/forgejo rolled out');
    const credential = parsed.steps.find((s) => s.stepName === 'argocd-repo-credential')!;
    expect(credential.checks).toEqual([expect.stringMatching(/^local file ~\/.ssh\/argocd_seed \(or \$SEED_DEPLOY_KEY\) exists\./)]);
  });

  test('lists every Application under its own wave, with its namespace', () => {
    expect([...parsed.waveOf.keys()].sort()).toEqual([...argocd.applications.keys()].sort());
    for (const app of argocd.applications.values()) {
      expect([app.name, parsed.waveOf.get(app.name)]).toEqual([app.name, app.syncWave]);
      expect(parsed.namespaceOf.get(app.name)).toBe(app.namespace);
    }
  });

  test('lists each Application\'s dependencies with their waves', () => {
    for (const app of argocd.applications.values()) {
      expect([app.name, parsed.needsOf.get(app.name)]).toEqual([app.name, app.dependsOn.map((d) => `${d.name} (wave ${d.syncWave})`)]);
    }
    expect(parsed.needsOf.get('blackbox')).toEqual(['prometheus-crds (wave 0)']);
  });

  test('the cutover section lists the GitHub seed and the Forgejo URL, what flips and how', () => {
    const cutover = parsed.sections.cutover;
    expect(cutover).toContain(`    ${plan.cutover.githubUrl}`);
    expect(cutover).toContain(`    ${plan.cutover.forgejoUrl}`);
    expect(cutover.indexOf(`    ${plan.cutover.githubUrl}`)).toBeLessThan(cutover.indexOf(`    ${plan.cutover.forgejoUrl}`));
    const joined = cutover.map((l) => l.trim()).join(' ');
    expect(joined).toContain('Status: pending.');
    expect(joined).toContain('the root app \'root\' (argocd/root/root.yaml)');
    expect(joined).toContain(`${argocd.applications.size} Applications`);
    expect(joined).toContain('the AppProject \'homelab\'');
    expect(joined).toContain('the repository credential: Secret argocd/homelab-repo-forgejo with an HTTP token');
    expect(joined).toContain('argocd/homelab-repo-github with an SSH deploy key');
    expect(joined).toContain('3. Set git.source: \'forgejo\' in the homelab config.');
    expect(joined).toMatch(/Before merging, run dist\/bootstrap\/bootstrap\.sh from the reviewed branch\. It applies 09-argocd-seed-credential and 10-argocd-seed-root\.yaml .* then 11-argocd-repo-credential verifies that Forgejo's pull-mirror holds the commit of main on GitHub .* then 12-argocd-root\.yaml points the root app at Forgejo/);
    expect(joined).toContain('Keep pushing to GitHub: it stays the repository that is written to. Forgejo holds a pull-mirror, which refuses pushes');
    expect(joined).toMatch(/Rebuild after the cutover: run the same runbook on the bare cluster\. It seeds Argo CD from GitHub, brings Forgejo up, waits for the mirror/);
    expect(joined).toContain('A re-run on a cluster whose root app already reads Forgejo changes nothing: 10-argocd-seed-root.yaml is skipped, '
      + 'so the root app never goes back to GitHub; the mirror is verified again, and 12-argocd-root.yaml re-applies the root app as it is.');
  });

  test('no line is wider than 80 columns', () => {
    const wide = text.split('\n').filter((l) => l.length > 80);
    expect(wide).toEqual([]);
  });

  test('no colour codes unless asked for', () => {
    expect(text).not.toMatch(ANSI);
    const coloured = renderPlanText(plan, { color: true });
    expect(coloured).toMatch(ANSI);
    // Colour changes nothing but the escape sequences.
    expect(coloured.replace(/\x1b\[[0-9;]*m/g, '')).toBe(text);
  });

  test('the order of sections: Phase 0, then Argo CD, then the cutover', () => {
    const lines = text.split('\n');
    const at = (prefix: string) => lines.findIndex((l) => l.startsWith(prefix));
    expect(at('Phase 0:')).toBeLessThan(at('Argo CD:'));
    expect(at('Argo CD:')).toBeLessThan(at('Phase 2:'));
  });
});

describe('renderPlanText, other configs', () => {
  test('after the cutover the status is done and the root step needs Forgejo', () => {
    const text = renderPlanText(planFor(withGit({ source: 'forgejo' })).plan);
    const parsed = parsePlanText(text);
    expect(parsed.sections.cutover.join('\n')).toContain('Status: done.');
    expect(parsed.steps.find((s) => s.stepName === 'argocd-root')!.needs).toContainEqual(expect.stringMatching(/^forgejo: /));
  });

  test('the ddb-cluster example fits in 80 columns', () => {
    const wide = renderPlanText(planFor(ddbCluster).plan).split('\n').filter((l) => l.length > 80);
    expect(wide).toEqual([]);
  });

  test('a URL wider than the terminal is cut, never overflows, in colour too', () => {
    // GIVEN a seed whose Forgejo URL is longer than a line
    const owner = 'an-organisation-with-a-really-long-name';
    const { plan } = planFor(withGit({ githubSeedUrl: `git@github.com:${owner}/homelab-repository-with-a-long-name.git` }));
    expect(plan.cutover.forgejoUrl.length).toBeGreaterThan(80);
    // WHEN
    for (const color of [false, true]) {
      const lines = renderPlanText(plan, { color }).split('\n').map((l) => l.replace(/\x1b\[[0-9;]*m/g, ''));
      // THEN
      expect(lines.filter((l) => l.length > 80)).toEqual([]);
      const at = lines.findIndex((l) => l.startsWith('    http://forgejo-http'));
      expect(`${lines[at].trim()}${lines[at + 1].trim()}`).toBe(plan.cutover.forgejoUrl);
    }
  });

  test('a narrower width is honoured', () => {
    const lines = renderPlanText(reference.plan, { width: 60 }).split('\n');
    expect(lines.filter((l) => l.length > 60)).toEqual([]);
  });

  test('throws on a width too narrow to lay out', () => {
    expect(() => renderPlanText(reference.plan, { width: 20 })).toThrow('plan: width must be a whole number of at least 40, got 20');
  });
});

describe('the app tier\'s waves in the plan', () => {
  test('the text plan says what they are; a homelab without delivery has none and says nothing', () => {
    const flat = renderPlanText(reference.plan).replace(/\s+/g, ' ');
    expect(flat).toContain('earlier waves. Waves 9-10 are the app tier (the signature policies and delivery.apps): derived after every platform wave');
    const { plan } = planFor({ ...REFERENCE_HOMELAB, delivery: undefined });
    expect(appTierNote(plan)).toBeUndefined();
    expect(renderPlanText(plan)).not.toContain('app tier');
  });

  test('one wave or several', () => {
    const wave = (n: number) => ({ wave: n, role: '', applications: [] });
    expect(appTierNote({ waves: [wave(8), wave(9)] })).toMatch(/^Wave 9 is the app tier /);
    expect(appTierNote({ waves: [wave(9), wave(10), wave(11)] })).toMatch(/^Waves 9-11 are the app tier /);
    expect(appTierNote({ waves: [wave(0), wave(8)] })).toBeUndefined();
  });
});
