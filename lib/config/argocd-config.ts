/**
 * The steady-state Argo CD part of `HomelabConfig`. Owned by the Argo CD tree (lib/argocd); this is a
 * placeholder shape until that tree lands.
 */

/** One Argo CD Application of the steady state. */
export interface ApplicationConfig {
  /** Sync wave, 0 to 8. */
  readonly wave: number;
  /** Destination namespace. */
  readonly namespace: string;
  /** Repo-relative path of the git source (a plain manifest or kustomize directory). */
  readonly path?: string;
  /**
   * Other Applications (keys of `applications`) that must be healthy first; each must sit in an earlier wave.
   * @default []
   */
  readonly dependsOn?: readonly string[];
}

/** The steady-state Argo CD tree. */
export interface ArgoCdConfig {
  /** One Application per deployable directory, keyed by Application name. */
  readonly applications: Readonly<Record<string, ApplicationConfig>>;
}
