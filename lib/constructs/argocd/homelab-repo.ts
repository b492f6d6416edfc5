import * as path from 'path';

/** Returns why `p` is not a clean repo-relative path (`.` is the root), or undefined when it is. */
export function repoPathProblem(p: string): string | undefined {
  if (p.length === 0) return 'must not be empty (use \'.\' for the repository root)';
  if (p.startsWith('/')) return 'must be relative to the repository root, without a leading \'/\'';
  if (p !== '.' && path.posix.normalize(p) !== p.replace(/\/+$/, '')) return 'must be normalized (no \'./\', \'//\' or trailing \'/\')';
  if (p.split('/').includes('..')) return 'must not contain \'..\'';
  return undefined;
}

/**
 * The homelab git repository as Argo CD sees it: the URL in use, the tracked revision, and where this
 * program's `dist/` lives inside it. Every path an Application names is repo-relative and, for generated
 * files, computed from `distPath`.
 */
export class HomelabRepo {
  /** The URL Argo CD clones. */
  public readonly url: string;
  /**
   * Every URL of the homelab repository (the GitHub seed, then Forgejo), whichever is in use. The project
   * permits all of them, so the cutover never leaves an Application on a URL its project refuses.
   */
  public readonly remotes: readonly string[];
  /** Branch, tag or commit every Application tracks. */
  public readonly targetRevision: string;
  /** Repo-relative folder where `dist/` is committed. */
  public readonly distPath: string;

  constructor(props: { readonly url: string; readonly targetRevision: string; readonly distPath: string; readonly remotes?: readonly string[] }) {
    const problem = repoPathProblem(props.distPath);
    if (problem) {
      throw new Error(`HomelabRepo: 'distPath' ('${props.distPath}') ${problem}; it is the folder of the repository ` +
        'where dist/ is committed, e.g. \'k8s/generated\'.');
    }
    if (props.targetRevision.length === 0) {
      throw new Error('HomelabRepo: \'targetRevision\' must not be empty; it is the branch Argo CD tracks, e.g. \'main\'.');
    }
    this.url = props.url;
    this.remotes = props.remotes ?? [props.url];
    if (!this.remotes.includes(this.url)) throw new Error(`internal: repository URL '${this.url}' is not one of its remotes`);
    this.targetRevision = props.targetRevision;
    this.distPath = props.distPath;
  }

  /** Repo-relative path of `distRelative`, a path relative to `dist/` (e.g. `argocd/apps`). */
  public distFile(distRelative: string): string {
    return this.distPath === '.' ? distRelative : path.posix.join(this.distPath, distRelative);
  }
}
