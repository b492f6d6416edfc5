import { spawnSync } from 'child_process';

/** A git command that failed; the message names the command and git's own words. */
export class GitError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'GitError';
  }
}

function git(cwd: string, args: readonly string[], input?: string): Buffer {
  const r = spawnSync('git', [...args], { cwd, input, maxBuffer: 256 * 1024 * 1024 });
  if (r.error) throw new GitError(`git ${args.join(' ')}: ${r.error.message}`);
  if (r.status !== 0) throw new GitError(`git ${args.join(' ')}: ${r.stderr.toString().trim().split('\n')[0]}`);
  return r.stdout;
}

/**
 * The default base of a review: the merge base of HEAD with the default branch, `main` (else `origin/main`).
 * Throws `GitError` when neither exists or there is no common commit.
 */
export function defaultBase(cwd: string): string {
  for (const branch of ['main', 'origin/main']) {
    const known = spawnSync('git', ['rev-parse', '--verify', '--quiet', `${branch}^{commit}`], { cwd });
    if (known.status === 0) return git(cwd, ['merge-base', 'HEAD', branch]).toString().trim();
  }
  throw new GitError('no branch main or origin/main to take the merge base with; pass --base <git-ref>');
}

/** The commit `ref` names, abbreviated, e.g. `3f2a1c0`. */
export function shortCommit(cwd: string, ref: string): string {
  return git(cwd, ['rev-parse', '--short', `${ref}^{commit}`]).toString().trim();
}

/**
 * Every file under `dir` (a folder of the working directory, e.g. `dist`) as committed at `ref`, keyed by its path
 * relative to `dir`: one `git ls-tree` and one `git cat-file --batch`, nothing checked out. Throws `GitError` when
 * `ref` is unknown or has no such folder.
 */
export function readTreeAtRef(cwd: string, ref: string, dir: string): Map<string, string> {
  const known = spawnSync('git', ['rev-parse', '--verify', '--quiet', `${ref}^{commit}`], { cwd });
  if (known.status !== 0) throw new GitError(`'${ref}' is not a commit of the repository in ${cwd}; pass --base <git-ref>`);
  const commit = known.stdout.toString().trim();
  const prefix = `${git(cwd, ['rev-parse', '--show-prefix']).toString().trim()}${dir.replace(/\/+$/, '')}/`;
  const entries = git(cwd, ['ls-tree', '-r', '-z', '--full-tree', commit, '--', prefix]).toString().split('\0').filter((l) => l !== '')
    .map((l) => { const [meta, file] = l.split('\t'); const [, type, id] = meta.split(' '); return { type, id, file }; })
    .filter((e) => e.type === 'blob');
  if (entries.length === 0) throw new GitError(`${ref} (${commit.slice(0, 7)}) has no ${prefix} to compare with`);
  const out = git(cwd, ['cat-file', '--batch'], entries.map((e) => e.id).join('\n') + '\n');
  const tree = new Map<string, string>();
  let at = 0;
  for (const e of entries) {
    const headerEnd = out.indexOf(0x0a, at);
    const size = Number(out.subarray(at, headerEnd).toString().split(' ')[2]);
    tree.set(e.file.slice(prefix.length), out.subarray(headerEnd + 1, headerEnd + 1 + size).toString('utf8'));
    at = headerEnd + 1 + size + 1;
  }
  return tree;
}
