/**
 * The globs of an Application's `directory.include` and `directory.exclude`, matched the way Argo CD matches
 * them: against the file's path relative to the Application path, with gobwas/glob compiled without
 * separators, so `*` also matches `/`. Pure functions, no I/O.
 *
 * @see https://argo-cd.readthedocs.io/en/stable/user-guide/directory/#including-excluding-files
 */

const cache = new Map<string, RegExp>();

/**
 * Whether `relPath` matches the Argo CD directory glob `pattern`. Supports `*`, `?`, `[abc]`, `[!abc]`,
 * `[a-z]`, `{a,b}` alternatives (nestable) and `\` escapes.
 */
export function argoGlobMatch(pattern: string, relPath: string): boolean {
  let re = cache.get(pattern);
  if (!re) {
    re = new RegExp(`^${globToRegExp(pattern)}$`, 's');
    cache.set(pattern, re);
  }
  return re.test(relPath);
}

function globToRegExp(pattern: string): string {
  let out = '';
  let depth = 0;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === '\\' && i + 1 < pattern.length) {
      out += escapeRegExp(pattern[++i]);
    } else if (c === '*') {
      // gobwas `**` without separators is the same as `*`.
      while (pattern[i + 1] === '*') i++;
      out += '.*';
    } else if (c === '?') {
      out += '.';
    } else if (c === '[') {
      const end = pattern.indexOf(']', i + 2);
      if (end < 0) {
        out += '\\[';
        continue;
      }
      let body = pattern.slice(i + 1, end);
      const negated = body.startsWith('!');
      if (negated) body = body.slice(1);
      out += `[${negated ? '^' : ''}${body.replace(/[\\\]^]/g, (m) => `\\${m}`)}]`;
      i = end;
    } else if (c === '{') {
      depth++;
      out += '(?:';
    } else if (c === '}' && depth > 0) {
      depth--;
      out += ')';
    } else if (c === ',' && depth > 0) {
      out += '|';
    } else {
      out += escapeRegExp(c);
    }
  }
  return out + ')'.repeat(depth);
}

function escapeRegExp(c: string): string {
  return /[.*+?^${}()|[\]\\/]/.test(c) ? `\\${c}` : c;
}
