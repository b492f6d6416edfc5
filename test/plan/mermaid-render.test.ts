import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { MermaidIds, mermaidLabel } from '../../lib/plan/mermaid';
import { Tool, testWith } from '../tools';

// The real renderer (mermaid-cli in tools/mermaid, driving Debian's chromium): what Forgejo and GitHub run on the
// diagrams. Installed by .ci/run (`npm ci --prefix tools/mermaid`, scripts/install-tools.sh).
const { extractMermaidBlocks, renderDiagram } = require('../../scripts/render-diagrams') as {
  extractMermaidBlocks: (markdown: string) => { blocks: { line: number; source: string }[] };
  renderDiagram: (source: string, outDir: string, name: string) => { ok: boolean; message: string };
};
const root = path.resolve(__dirname, '../..');
const installed = (name: string, file: string): Tool => ({ name, command: fs.existsSync(file) ? file : undefined });
const mmdc = installed('mermaid-cli (npm ci --prefix tools/mermaid)', path.join(root, 'tools/mermaid/node_modules/.bin/mmdc'));
const chromium = installed('chromium', JSON.parse(fs.readFileSync(path.join(root, 'tools/mermaid/puppeteer-config.json'), 'utf8')).executablePath);
const testRendered = testWith(mmdc, chromium);

/** The text of every HTML label of an SVG mermaid rendered, line breaks as `⏎`. */
function labelsOf(svg: string): string[] {
  const entities: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'", '#x27': "'" };
  return [...svg.matchAll(/<foreignObject[^>]*>([\s\S]*?)<\/foreignObject>/g)].map((m) => m[1]
    .replace(/<br\s*\/?>/g, '⏎').replace(/<[^>]+>/g, '').replace(/&(amp|lt|gt|quot|#39|#x27);/g, (_, e: string) => entities[e]));
}

describe('the generator against the real Mermaid renderer', () => {
  let tmp: string;
  beforeAll(() => { tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'mermaid-render-')); });
  afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

  // Text that is Mermaid or HTML syntax, in node labels, a subgraph title, an edge label and a hexagon, with names
  // that are keywords or contain dashes, dots and quotes as node ids.
  const NASTY = ['say "hi"', 'a (b) [c] {d}', 'x < y > z', 'a & b &amp; c', '#1 #quot; #35;', 'back `tick`', 'semi; colon: pipe | bar',
    '%% not a comment', 'end', 'unicode ✓ → é', '\\ backslash', "it's", 'http://x.y/z?a=b#frag', '<br/> literal', 'ends with #'];

  testRendered('renders every label as written, and refuses a broken diagram', () => {
    // GIVEN
    const ids = new MermaidIds();
    const lines = ['flowchart TD'];
    for (const text of NASTY) lines.push(`  ${ids.id('node', text)}[${mermaidLabel(text, 'second line')}]`);
    lines.push(`  subgraph ${ids.id('sub', 'o-x')}[${mermaidLabel('subgraph "(title)" <x> & y')}]`, `    ${ids.id('node', 'sub-graph')}(${mermaidLabel('inside')})`, '  end');
    lines.push(`  ${ids.id('node', NASTY[0])} -->|${mermaidLabel('edge "q" (p) | bar & <b>')}| ${ids.id('node', NASTY[1])}`);
    lines.push(`  ${ids.id('node', 'hex')}{{${mermaidLabel('hex {x}')}}}`);

    // WHEN
    const rendered = renderDiagram(lines.join('\n'), tmp, 'nasty');
    const broken = extractMermaidBlocks(fs.readFileSync(path.join(root, 'test/fixtures/mermaid/broken.md'), 'utf8')).blocks;
    const refused = renderDiagram(broken[0].source, tmp, 'broken');

    // THEN
    expect(rendered).toEqual({ ok: true, message: '', seconds: expect.any(Number) });
    const labels = labelsOf(fs.readFileSync(path.join(tmp, 'nasty.svg'), 'utf8'));
    expect(labels).toEqual(expect.arrayContaining([
      ...NASTY.map((text) => `${text}⏎second line`), 'subgraph "(title)" <x> & y', 'edge "q" (p) | bar & <b>', 'inside', 'hex {x}',
    ]));
    expect(refused.ok).toBe(false);
    expect(refused.message).toMatch(/Parse error on line \d+/);
  }, 120_000);
});
