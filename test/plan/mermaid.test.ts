import { MermaidIds, mermaidLabel } from '../../lib/plan/mermaid';

describe('MermaidIds', () => {
  test('prefixes and sanitizes names, so keywords and edge letters are safe', () => {
    const ids = new MermaidIds();
    expect(ids.id('app', 'end')).toBe('app_end');
    expect(ids.id('app', 'o-x')).toBe('app_o_x');
    expect(ids.id('step', 'a b;c"d')).toBe('step_a_b_c_d');
  });

  test('the same name keeps its id; names that sanitize alike get distinct ids', () => {
    const ids = new MermaidIds();
    expect(ids.id('app', 'a-b')).toBe('app_a_b');
    expect(ids.id('app', 'a.b')).toBe('app_a_b_2');
    expect(ids.id('app', 'a-b')).toBe('app_a_b');
    expect(ids.id('step', 'a-b')).toBe('step_a_b');
  });

  test('throws on a prefix that is not lower-case letters', () => {
    expect(() => new MermaidIds().id('a-1', 'x')).toThrow('mermaid id prefix must be lower-case letters, got \'a-1\'');
  });
});

describe('mermaidLabel', () => {
  test('quotes the lines, joined with <br/>', () => {
    expect(mermaidLabel('01 namespaces', 'namespaces (Pod Security)')).toBe('"01 namespaces<br/>namespaces (Pod Security)"');
  });

  test('writes quotes, #, angle brackets and backticks as entity codes', () => {
    expect(mermaidLabel('say "hi" #1 <b> `x`')).toBe('"say #quot;hi#quot; #35;1 #lt;b#gt; #96;x#96;"');
  });

  test('writes & as an entity code, so an HTML entity in the text is shown as written, not decoded', () => {
    // The real renderer showed `a &amp; b` as `a & b` before (test/plan/mermaid-render.test.ts).
    expect(mermaidLabel('a & b &amp; c')).toBe('"a #38; b #38;amp; c"');
  });
});
