import { ObjectChange, Review, RiskClass } from '../../lib/review/review-changes';
import { renderReviewMarkdown, reviewDiagram } from '../../lib/review/render-review';

const sides = { base: 'main', head: 'the working tree' };

/** A changed object with findings of `classes`, in a bootstrap step or an Argo CD wave. */
function change(where: { step: string } | { wave: number; application: string }, name: string, classes: RiskClass[] = [],
  kind: ObjectChange['change'] = 'changed'): ObjectChange {
  return {
    change: kind,
    id: { group: '', version: 'v1', kind: 'ConfigMap', namespace: 'ns', name },
    file: 'step' in where ? `bootstrap/${where.step}.yaml` : `${where.application}/${name}.yaml`,
    ...where,
    fields: [],
    findings: classes.map((c) => ({ class: c, message: `${c} because` })),
  };
}

const review: Review = {
  changes: [
    change({ step: '07-forgejo' }, 'a', ['breaks-apply', 'needs-runbook']),
    change({ step: '07-forgejo' }, 'b', ['destroys-data', 'needs-runbook']),
    change({ wave: 1, application: 'cert-manager' }, 'c', ['moves-pin']),
    change({ wave: 3, application: 'apps' }, 'd', [], 'added'),
    change({ wave: 3, application: 'apps' }, 'e', [], 'removed'),
  ],
  runbookSteps: ['07-forgejo'],
};

describe('reviewDiagram', () => {
  test('one box per step and wave the change touches, in apply order, with its counts and classes', () => {
    const source = reviewDiagram(review)!.split('\n');
    expect(source[0]).toBe('flowchart LR');
    expect(source.filter((l) => /^ {2}group_\w+\[/.test(l))).toEqual([
      '  group_Bootstrap_step_07_forgejo["Bootstrap step 07-forgejo<br/>2 objects (2 changed)<br/>' +
        'destroys data: 1, breaks apply: 1, needs the runbook: 2"]',
      '  group_Argo_CD_wave_1["Argo CD wave 1<br/>1 object (1 changed)<br/>moves a pin: 1"]',
      '  group_Argo_CD_wave_3["Argo CD wave 3<br/>2 objects (1 added, 1 removed)"]',
    ]);
    expect(source.filter((l) => l.includes('-->'))).toEqual([
      '  group_Bootstrap_step_07_forgejo --> group_Argo_CD_wave_1',
      '  group_Argo_CD_wave_1 --> group_Argo_CD_wave_3',
    ]);
  });

  test('colours each box by its most severe class: lost data before a refused apply', () => {
    const source = reviewDiagram(review)!.split('\n');
    expect(source.filter((l) => l.startsWith('  class '))).toEqual([
      '  class group_Bootstrap_step_07_forgejo destroysData',
      '  class group_Argo_CD_wave_1 movesPin',
      '  class group_Argo_CD_wave_3 quiet',
    ]);
    expect(source).toContain('  classDef destroysData fill:#f8d7da,stroke:#b02a37,color:#000');
    // Only the classes in use are defined.
    expect(source.filter((l) => l.startsWith('  classDef ')).map((l) => l.split(' ')[3])).toEqual(['destroysData', 'movesPin', 'quiet']);
  });

  test('no diagram, and no fence in the comment, when nothing changes', () => {
    expect(reviewDiagram({ changes: [], runbookSteps: [] })).toBeUndefined();
    expect(renderReviewMarkdown({ changes: [], runbookSteps: [] }, sides)).not.toContain('```mermaid');
  });

  test('the comment fences the diagram after the verdict, with its legend, before the table', () => {
    const lines = renderReviewMarkdown(review, sides).split('\n');
    const open = lines.indexOf('```mermaid');
    expect(lines[open - 2]).toMatch(/^\*\*Risky: /);
    expect(lines.slice(open + 1, lines.indexOf('```', open))).toEqual(reviewDiagram(review)!.split('\n'));
    expect(lines).toContain('The steps and waves this change touches, in apply order. Colour, the most severe class in each: red destroys data, ' +
      'orange breaks apply, yellow needs the runbook, blue moves a pin, grey nothing classified.');
    expect(open).toBeLessThan(lines.indexOf('| | Object | Where | Classification |'));
  });
});
