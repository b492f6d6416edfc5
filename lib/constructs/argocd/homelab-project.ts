import { Lazy } from 'cdk8s';
import { Construct } from 'constructs';
import { AppProject } from '../../../imports/argocd-appproject-argoproj.io';
import { COMMON_LABELS } from '../../shared/labels';
import { dnsLabelProblem } from '../../shared/names';
import { compareGroupKind, GroupKind } from '../../shared/cluster-resources';
import type { ManagedNamespaceMetadata } from './sync-policy';
import { HomelabRepo } from './homelab-repo';

/** The in-cluster API server, the only destination of the homelab. */
export const IN_CLUSTER_SERVER = 'https://kubernetes.default.svc';

/**
 * What the project reads of each of its Applications (`HomelabApplication` is one), so the project depends on
 * that shape only and the two constructs do not import each other.
 */
export interface ProjectApplication {
  readonly name: string;
  readonly project: HomelabProject;
  /** The Application's destination namespace. */
  readonly namespace: string;
  /** Every namespace the Application writes to. */
  readonly namespaces: readonly string[];
  readonly sourceRepoUrls: readonly string[];
  readonly repoPaths: readonly string[];
  readonly spansProjectNamespaces: boolean;
  readonly clusterResources: readonly GroupKind[];
  readonly managedNamespaceMetadata?: ManagedNamespaceMetadata;
}

/** Properties for `HomelabProject`. */
export interface HomelabProjectProps {
  /** The homelab repository; its URL is always a source repository of the project. */
  readonly repo: HomelabRepo;
  /**
   * Name of the AppProject. Argo CD's built-in `default` project is rejected.
   * @default 'homelab'
   */
  readonly name?: string;
  /**
   * Namespace of Argo CD, where the AppProject and every Application live.
   * @default 'argocd'
   */
  readonly namespace?: string;
}

/**
 * The one Argo CD `AppProject` of the homelab. Everything it permits is computed from its Applications, so
 * the project contains exactly what they use: `sourceRepos` are the homelab repository (first) and the
 * pinned chart repositories in use, `destinations` are the namespaces the Applications deploy to on the
 * in-cluster server, and `clusterResourceWhitelist` lists the cluster-scoped kinds they declare. None of
 * them is ever `*`.
 *
 * @see https://argo-cd.readthedocs.io/en/stable/user-guide/projects/
 */
export class HomelabProject extends Construct {
  public readonly name: string;
  public readonly namespace: string;
  public readonly repo: HomelabRepo;
  /** The `AppProject` object. */
  public readonly resource: AppProject;
  private readonly _applications: ProjectApplication[] = [];

  constructor(scope: Construct, id: string, props: HomelabProjectProps) {
    super(scope, id);
    this.name = props.name ?? 'homelab';
    this.namespace = props.namespace ?? 'argocd';
    this.repo = props.repo;

    const nameProblem = projectNameProblem(this.name);
    if (nameProblem) throw new Error(nameProblem);

    this.resource = new AppProject(this, 'Resource', {
      metadata: {
        name: this.name,
        namespace: this.namespace,
        labels: { ...COMMON_LABELS },
        // Pruning the project would strand every Application in it; a renamed project is removed by hand.
        annotations: { 'argocd.argoproj.io/sync-options': 'Prune=false' },
      },
      spec: {
        description: 'The homelab: every Application of the GitOps tree',
        sourceRepos: Lazy.any({ produce: () => this.sourceRepos }),
        destinations: Lazy.any({ produce: () => this.destinationNamespaces.map((namespace) => ({ server: IN_CLUSTER_SERVER, namespace })) }),
        clusterResourceWhitelist: Lazy.any({ produce: () => this.clusterResources.map((k) => ({ group: k.group, kind: k.kind })) }),
      },
    });

    this.node.addValidation({ validate: () => this.validateApplications() });
  }

  /**
   * Registers `app` with the project; `HomelabApplication` calls this itself.
   * Throws when an Application of the same name is already registered.
   */
  public addApplication(app: ProjectApplication): void {
    if (app.project !== this) throw new Error(`application '${app.name}' belongs to project '${app.project.name}', not '${this.name}'`);
    if (this._applications.some((a) => a.name === app.name)) {
      throw new Error(`Application with name '${app.name}' already exists in project '${this.name}'. Give each Application a unique name.`);
    }
    this._applications.push(app);
  }

  /** The project's Applications, sorted by name. */
  public get applications(): readonly ProjectApplication[] {
    return [...this._applications].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  /**
   * The homelab repository's URLs (GitHub seed, then Forgejo: both, so the Phase-2 cutover never strands an
   * Application on a URL the project refuses), then every chart repository in use, sorted.
   */
  public get sourceRepos(): string[] {
    const charts = new Set(this._applications.flatMap((a) => a.sourceRepoUrls).filter((u) => !this.repo.remotes.includes(u)));
    return [...this.repo.remotes, ...[...charts].sort()];
  }

  /** Every namespace an Application deploys to, sorted. */
  public get destinationNamespaces(): string[] {
    return [...new Set(this._applications.flatMap((a) => a.namespaces))].sort();
  }

  /** The namespaces an Application with `spansProjectNamespaces` may write to: those of every other Application. */
  public namespacesSpannedBy(app: ProjectApplication): string[] {
    return [...new Set(this._applications.filter((a) => a !== app && !a.spansProjectNamespaces).flatMap((a) => a.namespaces))].sort();
  }

  /** Every cluster-scoped kind an Application declares, sorted by group and kind. */
  public get clusterResources(): GroupKind[] {
    const byKey = new Map<string, GroupKind>();
    for (const k of this._applications.flatMap((a) => a.clusterResources)) byKey.set(`${k.group}/${k.kind}`, k);
    return [...byKey.values()].sort(compareGroupKind);
  }

  /** Rules that need every Application: no two own the same path, no two set conflicting namespace metadata. */
  private validateApplications(): string[] {
    const errors: string[] = sharedPathProblems(this.applications).map((p) => p.message);
    const metadataOwners = new Map<string, ProjectApplication>();
    for (const app of this.applications) {
      if (!app.managedNamespaceMetadata) continue;
      const other = metadataOwners.get(app.namespace);
      if (other && JSON.stringify(canonical(other.managedNamespaceMetadata)) !== JSON.stringify(canonical(app.managedNamespaceMetadata))) {
        errors.push(`applications '${other.name}' and '${app.name}' set different managedNamespaceMetadata on namespace '${app.namespace}'; ` +
          'Argo CD would flip the namespace between them. Set it on one of them only, or make them equal.');
      } else if (!other) {
        metadataOwners.set(app.namespace, app);
      }
    }
    return errors;
  }
}

/** Why `name` cannot be the AppProject's name (`default`, or not a DNS label such as `*`); undefined when it can. */
export function projectNameProblem(name: string): string | undefined {
  if (name === 'default') {
    return 'AppProject name \'default\' is not allowed: it is Argo CD\'s built-in catch-all project, which permits ' +
      'every repository, destination and cluster resource. Use a dedicated project such as \'homelab\'.';
  }
  const nameProblem = dnsLabelProblem(name);
  return nameProblem ? `AppProject name '${name}' ${nameProblem}; choose a valid name.` : undefined;
}

/**
 * Every repo path that two Applications use (each deployable directory is the source of exactly one
 * Application), for Applications given in name order. Used by the project's validation and the config check.
 */
export function sharedPathProblems(
  apps: readonly { readonly name: string; readonly repoPaths: readonly string[] }[],
): { name: string; message: string }[] {
  const errors: { name: string; message: string }[] = [];
  const pathOwners = new Map<string, string>();
  for (const app of apps) {
    for (const p of app.repoPaths) {
      const owner = pathOwners.get(p);
      if (owner) {
        errors.push({
          name: app.name,
          message: `applications '${owner}' and '${app.name}' both use path '${p}'; every deployable directory is the source of ` +
            'exactly one Application. Remove the path from one of them.',
        });
      } else {
        pathOwners.set(p, app.name);
      }
    }
  }
  return errors;
}

function canonical(m: ProjectApplication['managedNamespaceMetadata']): unknown {
  const sort = (r?: Readonly<Record<string, string>>) => Object.entries(r ?? {}).sort(([a], [b]) => (a < b ? -1 : 1));
  return { labels: sort(m?.labels), annotations: sort(m?.annotations) };
}
