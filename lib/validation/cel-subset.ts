/**
 * A small evaluator for the simple CEL rules (`x-kubernetes-validations`) that the pinned CRDs use, such as
 * `self != 'postgres'`, `self > 0`, `!has(self.a) || self.b == 'x'` or `self.kind == 'A' || self.kind == 'B'`.
 *
 * It knows literals, `self` with field access, `has()`, `.size()`, `!`, `&&`, `||`, comparisons and parentheses.
 * Anything else, and transition rules (`oldSelf`, which never apply to a new object), is not evaluated:
 * `compileCelRule` returns undefined and the API server remains the only judge of that rule.
 *
 * @see https://kubernetes.io/docs/tasks/extend-kubernetes/custom-resources/custom-resource-definitions/#validation-rules
 */

type Token = { readonly t: 'num' | 'str' | 'id' | 'op'; readonly v: string };

type Expr =
  | { readonly k: 'lit'; readonly v: unknown }
  | { readonly k: 'self' }
  | { readonly k: 'field'; readonly of: Expr; readonly name: string }
  | { readonly k: 'has'; readonly of: Expr; readonly name: string }
  | { readonly k: 'size'; readonly of: Expr }
  | { readonly k: 'not'; readonly of: Expr }
  | { readonly k: 'bin'; readonly op: string; readonly l: Expr; readonly r: Expr };

/** Raised inside the evaluator when a rule uses something it does not know; never escapes this module. */
class Unsupported extends Error {}

function tokenize(src: string): Token[] {
  const out: Token[] = [];
  const re = /\s*(?:(\d+)|'((?:[^'\\]|\\.)*)'|"((?:[^"\\]|\\.)*)"|([A-Za-z_][A-Za-z0-9_]*)|(==|!=|>=|<=|&&|\|\||[()!.<>]))/y;
  let pos = 0;
  while (pos < src.length) {
    if (/^\s*$/.test(src.slice(pos))) break;
    re.lastIndex = pos;
    const m = re.exec(src);
    if (!m) throw new Unsupported(src);
    pos = re.lastIndex;
    if (m[1] !== undefined) out.push({ t: 'num', v: m[1] });
    else if (m[2] !== undefined || m[3] !== undefined) out.push({ t: 'str', v: m[2] ?? m[3] });
    else if (m[4] !== undefined) out.push({ t: 'id', v: m[4] });
    else out.push({ t: 'op', v: m[5] });
  }
  return out;
}

const PRECEDENCE: Record<string, number> = { '||': 1, '&&': 2, '==': 3, '!=': 3, '<': 4, '<=': 4, '>': 4, '>=': 4 };

function parse(tokens: Token[]): Expr {
  let i = 0;
  const peek = (): Token | undefined => tokens[i];
  const expect = (v: string): void => {
    if (tokens[i]?.v !== v) throw new Unsupported(v);
    i++;
  };
  const primary = (): Expr => {
    const tok = tokens[i++];
    if (!tok) throw new Unsupported('end');
    let e: Expr;
    if (tok.t === 'num') e = { k: 'lit', v: Number(tok.v) };
    else if (tok.t === 'str') e = { k: 'lit', v: tok.v };
    else if (tok.t === 'op' && tok.v === '!') return { k: 'not', of: primary() };
    else if (tok.t === 'op' && tok.v === '(') {
      e = binary(0);
      expect(')');
    } else if (tok.t === 'id' && tok.v === 'self') e = { k: 'self' };
    else if (tok.t === 'id' && (tok.v === 'true' || tok.v === 'false')) e = { k: 'lit', v: tok.v === 'true' };
    else if (tok.t === 'id' && tok.v === 'has') {
      expect('(');
      const target = primary();
      expect(')');
      if (target.k !== 'field') throw new Unsupported('has');
      e = { k: 'has', of: target.of, name: target.name };
    } else throw new Unsupported(tok.v);
    while (peek()?.v === '.') {
      i++;
      const name = tokens[i++];
      if (name?.t !== 'id') throw new Unsupported('.');
      if (name.v === 'size' && peek()?.v === '(') {
        expect('(');
        expect(')');
        e = { k: 'size', of: e };
      } else {
        e = { k: 'field', of: e, name: name.v };
      }
    }
    return e;
  };
  const binary = (min: number): Expr => {
    let left = primary();
    for (;;) {
      const op = peek();
      const prec = op?.t === 'op' ? PRECEDENCE[op.v] : undefined;
      if (prec === undefined || prec < min) break;
      i++;
      const right = binary(prec + 1);
      left = { k: 'bin', op: op!.v, l: left, r: right };
    }
    return left;
  };
  const e = binary(0);
  if (i !== tokens.length) throw new Unsupported('trailing');
  return e;
}

/**
 * The rule reads a field the object does not set. The API server applies the schema's defaults before it runs
 * the rule, and the reduced schemas carry no defaults, so such a rule is left to the API server.
 */
class NoSuchKey extends Error {}

function evaluate(e: Expr, self: unknown): unknown {
  switch (e.k) {
    case 'lit': return e.v;
    case 'self': return self;
    case 'field': {
      const of = evaluate(e.of, self);
      if (typeof of !== 'object' || of === null || !(e.name in of)) throw new NoSuchKey(e.name);
      return (of as Record<string, unknown>)[e.name];
    }
    case 'has': {
      const of = evaluate(e.of, self);
      return typeof of === 'object' && of !== null && e.name in of;
    }
    case 'size': {
      const of = evaluate(e.of, self);
      if (typeof of === 'string' || Array.isArray(of)) return of.length;
      if (typeof of === 'object' && of !== null) return Object.keys(of).length;
      throw new Unsupported('size');
    }
    case 'not': return !truthy(evaluate(e.of, self));
    case 'bin': {
      if (e.op === '||') return truthy(evaluate(e.l, self)) || truthy(evaluate(e.r, self));
      if (e.op === '&&') return truthy(evaluate(e.l, self)) && truthy(evaluate(e.r, self));
      const l = evaluate(e.l, self);
      const r = evaluate(e.r, self);
      switch (e.op) {
        case '==': return l === r;
        case '!=': return l !== r;
        case '<': return (l as number) < (r as number);
        case '<=': return (l as number) <= (r as number);
        case '>': return (l as number) > (r as number);
        case '>=': return (l as number) >= (r as number);
        default: throw new Unsupported(e.op);
      }
    }
  }
}

function truthy(v: unknown): boolean {
  if (typeof v !== 'boolean') throw new Unsupported('non-boolean');
  return v;
}

/**
 * Compiles a CEL rule of the supported subset into a predicate over `self`; undefined when the rule is a
 * transition rule or uses anything outside the subset.
 */
export function compileCelRule(rule: string): ((self: unknown) => boolean) | undefined {
  if (/\boldSelf\b/.test(rule)) return undefined;
  let expr: Expr;
  try {
    expr = parse(tokenize(rule));
  } catch (e) {
    if (e instanceof Unsupported) return undefined;
    throw e;
  }
  return (self: unknown) => {
    try {
      return truthy(evaluate(expr, self));
    } catch (e) {
      // Outside what can be judged here (an unset field, a type we do not model): leave it to the API server.
      if (e instanceof NoSuchKey || e instanceof Unsupported) return true;
      throw e;
    }
  };
}
