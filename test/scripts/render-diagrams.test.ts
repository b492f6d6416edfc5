const { extractMermaidBlocks, errorPictureIn, mermaidMessage } = require('../../scripts/render-diagrams') as {
  extractMermaidBlocks: (markdown: string) => { blocks: { line: number; source: string }[]; errors: { line: number; message: string }[] };
  errorPictureIn: (svg: string) => string | undefined;
  mermaidMessage: (stderr: string) => string;
};

describe('scripts/render-diagrams.js', () => {
  test('finds every ```mermaid block with the line of its fence, and leaves other code blocks alone', () => {
    const markdown = ['# Title', '', '```mermaid', 'flowchart TD', '  a --> b', '```', '', '```sh', 'echo', '```', '~~~mermaid', 'flowchart LR', '~~~'].join('\n');
    expect(extractMermaidBlocks(markdown)).toEqual({
      blocks: [{ line: 3, source: 'flowchart TD\n  a --> b' }, { line: 11, source: 'flowchart LR' }],
      errors: [],
    });
  });

  test('a block that is never closed is an error, not skipped', () => {
    expect(extractMermaidBlocks('text\n```mermaid\nflowchart TD\n')).toEqual({ blocks: [], errors: [{ line: 2, message: 'the ```mermaid block is never closed' }] });
  });

  test("an SVG of mermaid's error picture is a failure, whatever mmdc's exit status", () => {
    expect(errorPictureIn('<svg aria-roledescription="error"><text>Syntax error in text</text></svg>')).toBe('Syntax error in text');
    expect(errorPictureIn('<svg><p>Maximum text size in diagram exceeded</p></svg>')).toBe('Maximum text size in diagram exceeded');
    expect(errorPictureIn('<svg aria-roledescription="flowchart-v2"><p>Syntax</p></svg>')).toBeUndefined();
  });

  test("keeps mermaid's message and drops puppeteer's stack", () => {
    const stderr = ['', 'Error: Parse error on line 2:', 'flowchart TD  a[[[ -->', "Expecting 'TAGEND', got 'SQS'",
      'Parser.parseError (https://mermaid-cli-intercept.invalid/x/chunk.mjs:1636:21)', '    at #evaluate (file:///x/ExecutionContext.js:402:19)', ''].join('\n');
    expect(mermaidMessage(stderr)).toBe("Error: Parse error on line 2:\nflowchart TD  a[[[ -->\nExpecting 'TAGEND', got 'SQS'");
  });
});
