#!/usr/bin/env node
// Renders every Mermaid diagram the program writes with the real Mermaid renderer, so a diagram that Forgejo or
// GitHub would show as "Syntax error" fails here first. The renderer is mermaid-cli driving Debian's Chromium, in its
// own pinned tool package (tools/mermaid: `npm ci --prefix tools/mermaid`; chromium: scripts/install-tools.sh).
//
//   node scripts/render-diagrams.js            (npm run diagrams)
//
// What it renders, in this order:
//   1. test/fixtures/mermaid/broken.md, which the renderer must REFUSE: a check that cannot fail checks nothing;
//   2. every ```mermaid block of dist/README.md (the plan's Markdown, lib/plan/render-overview.ts);
//   3. every ```mermaid block of the pull-request comment, `npm run diff -- --markdown` of the fixture change
//      test/fixtures/configs/risky-change.config.ts against the committed dist/ (lib/review/render-review.ts).
// Each block goes to its own SVG in a temporary folder. A block fails when mmdc exits non-zero (mermaid's parser
// throws: mmdc prints "Parse error on line N" and exits 1) or when the SVG it wrote is Mermaid's error picture
// anyway ("Syntax error in text"; "Maximum text size in diagram exceeded", which mermaid 11.17.2 draws instead of a
// source over `maxTextSize`, 50,000 characters, and exits 0). Exit 0 when every block renders, 1 otherwise, naming
// the file, the block's line and mermaid's message.
'use strict';
const { spawnSync } = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');

const root = path.resolve(__dirname, '..');
const toolDir = path.join(root, 'tools', 'mermaid');
const mmdc = path.join(toolDir, 'node_modules', '.bin', 'mmdc');
// Names Debian's chromium (executablePath) and passes --no-sandbox: see tools/mermaid/README.md.
const puppeteerConfig = path.join(toolDir, 'puppeteer-config.json');

const BROKEN_FIXTURE = 'test/fixtures/mermaid/broken.md';
const PR_FIXTURE_CONFIG = 'test/fixtures/configs/risky-change.config.ts';

/** Mermaid's own error pictures: rendered instead of the diagram, so an SVG that contains one is a failure. */
const ERROR_PICTURES = ['Syntax error in text', 'Maximum text size in diagram exceeded', 'aria-roledescription="error"'];

/**
 * The ```mermaid blocks of a Markdown text: each block's source and the 1-based line of its opening fence. An
 * unclosed block is reported as an error, not dropped: GitHub would render the rest of the file as its source.
 */
function extractMermaidBlocks(markdown) {
  const blocks = [];
  const errors = [];
  const lines = markdown.split('\n');
  let open;
  lines.forEach((line, i) => {
    if (open === undefined) {
      const m = /^(\s*)(`{3,}|~{3,})\s*mermaid\s*$/.exec(line);
      if (m) open = { line: i + 1, fence: m[2], body: [] };
    } else if (line.trim().startsWith(open.fence) && line.trim().replace(/[`~]/g, '') === '') {
      blocks.push({ line: open.line, source: open.body.join('\n') });
      open = undefined;
    } else {
      open.body.push(line);
    }
  });
  if (open !== undefined) errors.push({ line: open.line, message: 'the ```mermaid block is never closed' });
  return { blocks, errors };
}

/** Mermaid's message from mmdc's stderr, without puppeteer's stack frames. */
function mermaidMessage(stderr) {
  return stderr.split('\n').filter((l) => l.trim() !== '' && !/^\s+at /.test(l) && !/^\S+ \(https:\/\/mermaid-cli-intercept/.test(l))
    .join('\n').trim();
}

/** Why the SVG mmdc wrote is not the diagram (mermaid's error picture), or undefined when it is one. */
function errorPictureIn(svg) {
  return ERROR_PICTURES.find((marker) => svg.includes(marker));
}

/**
 * Renders one Mermaid source to `<outDir>/<name>.svg` with mmdc. Returns `{ ok, message, seconds }`: `message` is
 * mermaid's error when the source does not parse or render.
 */
function renderDiagram(source, outDir, name) {
  const input = path.join(outDir, `${name}.mmd`);
  const output = path.join(outDir, `${name}.svg`);
  fs.writeFileSync(input, `${source}\n`);
  const started = process.hrtime.bigint();
  const r = spawnSync(mmdc, ['--quiet', '--puppeteerConfigFile', puppeteerConfig, '--input', input, '--output', output], {
    encoding: 'utf8', env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' },
  });
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  if (r.error) return { ok: false, message: `mmdc did not start: ${r.error.message}`, seconds };
  if (r.status !== 0) return { ok: false, message: mermaidMessage(r.stderr) || `mmdc exited ${r.status}`, seconds };
  if (!fs.existsSync(output)) return { ok: false, message: 'mmdc exited 0 but wrote no SVG', seconds };
  const picture = errorPictureIn(fs.readFileSync(output, 'utf8'));
  if (picture) return { ok: false, message: `mmdc exited 0, but the SVG is mermaid's error picture ("${picture}")`, seconds };
  return { ok: true, message: '', seconds };
}

/** What stops the check before it renders anything: the renderer or the browser is missing. */
function missingTools() {
  const problems = [];
  if (!fs.existsSync(mmdc)) problems.push('mermaid-cli is not installed: run `npm ci --prefix tools/mermaid`');
  const browser = JSON.parse(fs.readFileSync(puppeteerConfig, 'utf8')).executablePath;
  if (!fs.existsSync(browser)) problems.push(`${browser} is missing: run \`bash scripts/install-tools.sh\` (Debian package chromium)`);
  return problems;
}

/** The pull-request comment `npm run diff -- --markdown` writes for the fixture change, against the committed dist/. */
function pullRequestComment() {
  const r = spawnSync(process.execPath, ['--require', 'tsx/cjs', 'lib/cli/diff.ts', '--base-dir', path.join(root, 'dist'), '--markdown',
    '--config', PR_FIXTURE_CONFIG], { cwd: root, encoding: 'utf8', env: { ...process.env, INIT_CWD: root } });
  // 3: risky changes, which the fixture is made of; anything else means the comment was not written.
  if (r.status !== 3) throw new Error(`npm run diff -- --markdown --config ${PR_FIXTURE_CONFIG} exited ${r.status}, expected 3:\n${r.stderr}`);
  return r.stdout;
}

function main() {
  const problems = missingTools();
  if (problems.length > 0) {
    console.error(`diagrams: cannot render:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    return 1;
  }
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'diagrams-'));
  const started = Date.now();
  try {
    // 1. The renderer must refuse a broken diagram, or nothing below proves anything.
    const broken = extractMermaidBlocks(fs.readFileSync(path.join(root, BROKEN_FIXTURE), 'utf8')).blocks;
    const refused = broken.map((b, i) => renderDiagram(b.source, tmp, `broken-${i + 1}`));
    if (broken.length === 0 || refused.some((r) => r.ok)) {
      console.error(`diagrams: the renderer accepted the deliberately broken ${BROKEN_FIXTURE}: this check cannot fail, so it checks nothing.`);
      return 1;
    }
    console.log(`diagrams: ${BROKEN_FIXTURE} refused as it must be (${refused[0].message.split('\n')[0]})`);

    // 2 and 3. What the program writes.
    const sources = [
      { name: 'dist/README.md', text: fs.readFileSync(path.join(root, 'dist', 'README.md'), 'utf8') },
      { name: `pull-request comment (npm run diff -- --markdown --config ${PR_FIXTURE_CONFIG})`, text: pullRequestComment() },
    ];
    const failures = [];
    let count = 0;
    for (const [s, src] of sources.entries()) {
      const { blocks, errors } = extractMermaidBlocks(src.text);
      for (const e of errors) failures.push(`${src.name}:${e.line}: ${e.message}`);
      if (blocks.length === 0) failures.push(`${src.name}: no \`\`\`mermaid block, but the program writes one there`);
      for (const [i, b] of blocks.entries()) {
        const r = renderDiagram(b.source, tmp, `source${s + 1}-block${i + 1}`);
        count++;
        console.log(`diagrams: ${src.name}:${b.line}: ${r.ok ? 'rendered' : 'FAILED'} in ${r.seconds.toFixed(1)} s`);
        if (!r.ok) failures.push(`${src.name}:${b.line}: the \`\`\`mermaid block does not render:\n${r.message.replace(/^/gm, '    ')}`);
      }
    }
    if (failures.length > 0) {
      console.error(`diagrams: ${failures.length} problem${failures.length === 1 ? '' : 's'}; Forgejo and GitHub would show these as errors:\n` +
        failures.map((f) => `  - ${f}`).join('\n'));
      return 1;
    }
    console.log(`diagrams: ${count} diagrams rendered by mermaid-cli in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    return 0;
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

module.exports = { extractMermaidBlocks, errorPictureIn, mermaidMessage, renderDiagram, missingTools };

if (require.main === module) process.exitCode = main();
