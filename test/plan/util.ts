import { REFERENCE_HOMELAB } from '../../lib/config/defaults';
import { HomelabConfig } from '../../lib/config/homelab-config';
import { HomelabSynthesis, synthesizeHomelab } from '../../lib/synth/synthesize-homelab';
import { HomelabPlan } from '../../lib/plan/homelab-plan';

/** A synthesized homelab with its config and plan. */
export interface Planned extends HomelabSynthesis {
  readonly plan: HomelabPlan;
}

/** Synthesizes `config` in memory and builds its plan. */
export function planFor(config: HomelabConfig = REFERENCE_HOMELAB): Planned {
  const synthesis = synthesizeHomelab(config);
  return synthesis;
}

/** The reference homelab with `git` patched. */
export function withGit(patch: Partial<HomelabConfig['git']>): HomelabConfig {
  return { ...REFERENCE_HOMELAB, git: { ...REFERENCE_HOMELAB.git, ...patch } };
}

/** A Phase-0 step as read back from the terminal plan. */
export interface TextStep {
  readonly index: number;
  readonly stepName: string;
  readonly file: string;
  /** Each labelled entry with its continuation lines joined, e.g. `namespaces: the operator runs ...`. */
  readonly needs: string[];
  readonly checks: string[];
  readonly waits: string[];
  /** The Helm release a step installs (one entry at most). */
  readonly helm: string[];
}

/** The terminal plan read back: its sections, the steps, and each Application's wave and dependencies. */
export interface TextPlan {
  readonly sections: { readonly phase0: string[]; readonly argocd: string[]; readonly cutover: string[]; readonly dataProtection: string[] };
  readonly steps: TextStep[];
  /** Application name → wave it is listed under. */
  readonly waveOf: Map<string, number>;
  /** Application name → namespace shown. */
  readonly namespaceOf: Map<string, string>;
  /** Application name → the `needs` lines under it, e.g. `prometheus-crds (wave 0)`. */
  readonly needsOf: Map<string, string[]>;
}

/** Parses plain (uncoloured) output of `renderPlanText()`. */
export function parsePlanText(text: string): TextPlan {
  const lines = text.split('\n');
  const start = (prefix: string) => {
    const i = lines.findIndex((l) => l.startsWith(prefix));
    if (i < 0) throw new Error(`no section starting with '${prefix}'`);
    return i;
  };
  const a = start('Phase 0:');
  const b = start('Argo CD:');
  const c = start('Phase 2:');
  const d = start('Data protection:');
  const sections = { phase0: lines.slice(a, b), argocd: lines.slice(b, c), cutover: lines.slice(c, d), dataProtection: lines.slice(d) };

  const steps: TextStep[] = [];
  let entries: string[] | undefined;
  for (const line of sections.phase0) {
    const header = /^ +(\d+)\. (\S+) \((\S+)\)$/.exec(line);
    const entry = /^ {5,}(needs|check|wait|helm) +(.*)$/.exec(line);
    if (header) {
      steps.push({ index: Number(header[1]), stepName: header[2], file: header[3], needs: [], checks: [], waits: [], helm: [] });
      entries = undefined;
    } else if (entry && steps.length > 0) {
      const step = steps[steps.length - 1];
      entries = { needs: step.needs, check: step.checks, wait: step.waits, helm: step.helm }[entry[1] as 'needs' | 'check' | 'wait' | 'helm'];
      entries.push(entry[2]);
    } else if (entries && /^ {12,}\S/.test(line)) {
      entries[entries.length - 1] += ` ${line.trim()}`;
    } else {
      entries = undefined;
    }
  }

  const waveOf = new Map<string, number>();
  const namespaceOf = new Map<string, string>();
  const needsOf = new Map<string, string[]>();
  let wave: number | undefined;
  let app: string | undefined;
  for (const line of sections.argocd) {
    const waveHeader = /^ {2}Wave (\d+): /.exec(line);
    const appLine = /^ {4}(\S+) +namespace (\S+)$/.exec(line);
    const needs = /^ {6}needs (.*)$/.exec(line);
    if (waveHeader) wave = Number(waveHeader[1]);
    else if (appLine && wave !== undefined) {
      app = appLine[1];
      waveOf.set(app, wave);
      namespaceOf.set(app, appLine[2]);
      needsOf.set(app, []);
    } else if (needs && app) needsOf.get(app)!.push(needs[1]);
  }
  return { sections, steps, waveOf, namespaceOf, needsOf };
}

/** The Mermaid block of a Markdown document, read back: node labels by id, edges, and subgraph nesting. */
export interface ParsedMermaid {
  readonly source: string;
  readonly lines: string[];
  /** Node or subgraph id → label (entity codes left as written). */
  readonly labels: Map<string, string>;
  /** Every edge as `from --> to` or `from -.-> to`, without its label. */
  readonly edges: string[];
}

/** Extracts and reads back the one Mermaid block of `markdown`. */
export function parseMermaid(markdown: string): ParsedMermaid {
  // The first block is the bring-up overview; a later one (the promotion flow) has tests of its own.
  const blocks = [...markdown.matchAll(/```mermaid\n([\s\S]*?)\n```/g)];
  if (blocks.length < 1) throw new Error('expected the overview\'s mermaid block, found none');
  const source = blocks[0][1];
  const lines = source.split('\n');
  const labels = new Map<string, string>();
  const edges: string[] = [];
  for (const line of lines) {
    const node = /^\s*(?:subgraph )?([A-Za-z0-9_]+)(?:\[|\(|\{\{)"(.*)"(?:\]|\)|\}\})$/.exec(line);
    const edge = /^\s*([A-Za-z0-9_]+) (-->|-\.->)(?:\|"[^"]*"\|)? ([A-Za-z0-9_]+)$/.exec(line);
    if (node) labels.set(node[1], node[2]);
    if (edge) edges.push(`${edge[1]} ${edge[2]} ${edge[3]}`);
  }
  return { source, lines, labels, edges };
}
