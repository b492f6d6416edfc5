import { ROOT_APPLICATION } from '../../shared/application-names';
import { Construct } from 'constructs';
import { ARGOCD_DIST } from '../../shared/dist-layout';
import { HomelabApplication } from './homelab-application';
import { HomelabProject } from './homelab-project';
import { HomelabRepo } from './homelab-repo';
import { SYNC_WAVES } from '../../shared/sync-waves';

/** Properties for `RootApp`. */
export interface RootAppProps {
  /** The project of the root and of every Application it syncs. */
  readonly project: HomelabProject;
  /** The homelab repository. */
  readonly repo: HomelabRepo;
  /**
   * Name of the root Application.
   * @default 'root'
   */
  readonly name?: string;
}

/**
 * The root app-of-apps: syncs `<distPath>/argocd/apps`, one Application per file, wave by wave. The bootstrap
 * applies it (after the `HomelabProject`) in Phase 0; nothing syncs the root itself, so its sync-wave
 * annotation is informational.
 *
 * @see https://argo-cd.readthedocs.io/en/stable/operator-manual/cluster-bootstrapping/
 */
export class RootApp extends HomelabApplication {
  /** Repo-relative folder of the Applications the root syncs. */
  public readonly appsPath: string;

  constructor(scope: Construct, id: string, props: RootAppProps) {
    const appsPath = props.repo.distFile(ARGOCD_DIST.apps);
    super(scope, id, {
      name: props.name ?? ROOT_APPLICATION,
      project: props.project,
      repo: props.repo,
      sources: [{ kind: 'git-path', path: appsPath }],
      namespace: props.project.namespace,
      syncWave: SYNC_WAVES.SUBSTRATE,
    });
    this.appsPath = appsPath;
  }
}
