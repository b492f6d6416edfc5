import { textStyle, useColor, visibleLength, wrap } from '../../lib/plan/text-layout';

describe('wrap', () => {
  test('wraps at spaces with a hanging indent', () => {
    expect(wrap('one two three four', 12, '- ', '  ')).toEqual(['- one two', '  three four']);
  });

  test('cuts a word longer than a line, so no line is wider than the width', () => {
    const lines = wrap(`see ${'x'.repeat(25)}`, 12, '  ');
    expect(lines).toEqual(['  see', `  ${'x'.repeat(10)}`, `  ${'x'.repeat(10)}`, `  ${'x'.repeat(5)}`]);
  });

  test('counts styled words by their visible length', () => {
    const style = textStyle(true);
    const lines = wrap(`${style.cyan('abcde')} fghij`, 11);
    expect(lines).toEqual([`${style.cyan('abcde')} fghij`]);
    expect(visibleLength(lines[0])).toBe(11);
  });

  test('an empty text is its prefix', () => {
    expect(wrap('', 10, '  x')).toEqual(['  x']);
  });
});

describe('textStyle', () => {
  test('is the identity without colour', () => {
    const style = textStyle(false);
    expect(style.bold('a') + style.dim('b') + style.cyan('c') + style.green('d') + style.yellow('e') + style.magenta('f')).toBe('abcdef');
  });

  test('wraps in ANSI codes with colour', () => {
    expect(textStyle(true).bold('a')).toBe('\x1b[1ma\x1b[22m');
  });
});

describe('useColor', () => {
  test('colour only on a terminal', () => {
    expect(useColor({ isTTY: true, env: {} })).toBe(true);
    expect(useColor({ isTTY: false, env: {} })).toBe(false);
  });

  test('NO_COLOR (non-empty) and TERM=dumb turn it off', () => {
    expect(useColor({ isTTY: true, env: { NO_COLOR: '1' } })).toBe(false);
    expect(useColor({ isTTY: true, env: { NO_COLOR: '' } })).toBe(true);
    expect(useColor({ isTTY: true, env: { TERM: 'dumb' } })).toBe(false);
  });

  test('--color and --no-color override', () => {
    expect(useColor({ isTTY: false, env: { NO_COLOR: '1' }, mode: 'always' })).toBe(true);
    expect(useColor({ isTTY: true, env: {}, mode: 'never' })).toBe(false);
  });
});
