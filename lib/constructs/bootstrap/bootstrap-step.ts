import { ApiObject, Chart } from 'cdk8s';
import { Construct } from 'constructs';
import { HelmReleaseSpec, Precondition, StepWait } from './waits';

/** Properties for `BootstrapStep`. */
export interface BootstrapStepProps {
  /** Kebab-case step name; the output file is `NN-<stepName>.yaml` (or a `NN-<stepName>/` kustomization). */
  readonly stepName: string;
  /** One line saying what the step puts on the cluster. */
  readonly summary: string;
}

/**
 * A signature upstream publishes for one of a kustomization's remote manifests: a Sigstore bundle made by
 * `cosign sign-blob --bundle` in a release workflow (keyless, with the workflow's OIDC identity). The runbook verifies
 * it with `cosign verify-blob` when cosign is installed, and says so when it is not.
 */
export interface RemoteManifestSignature {
  /** The remote manifest (one of `remoteResources`) the bundle signs. */
  readonly manifestUrl: string;
  /** URL of the Sigstore bundle (`.sigstore.json`) published next to it. */
  readonly bundleUrl: string;
  /** The exact certificate identity: the signing workflow at the release's tag (`cosign verify-blob --certificate-identity`). */
  readonly certificateIdentity: string;
  /** The OIDC issuer of that identity (`--certificate-oidc-issuer`), e.g. GitHub Actions' `https://token.actions.githubusercontent.com`. */
  readonly certificateOidcIssuer: string;
}

/** A remote manifest applied through a generated kustomization, with local patches and resources. */
export interface StepKustomization {
  /**
   * Pinned remote manifests (URLs) the kustomization includes. The committed kustomization names the URL; the runbook
   * downloads each, checks its sha256 and applies a private copy of the folder that names the verified file instead.
   */
  readonly remoteResources: readonly string[];
  /**
   * Signatures upstream publishes for some of `remoteResources`.
   * @default - none: upstream signs none of them
   */
  readonly signatures?: readonly RemoteManifestSignature[];
  /**
   * Namespace kustomize sets on every namespaced object.
   * @default - none
   */
  readonly namespace?: string;
  /**
   * Raw kustomization fields merged in (e.g. `secretGenerator`).
   * @default - none
   */
  readonly extra?: Readonly<Record<string, unknown>>;
}

/**
 * What a construct needs from the Phase-0 step that applies it: the remote manifests and patches it is made of,
 * the checks before apply and the waits after. A construct exposes this as data and never reconfigures the
 * chart it is in; the composition passes it to `BootstrapStep.addComponent()`, or uses it any other way.
 */
export interface BootstrapRequirements {
  /**
   * Remote manifests to apply through a generated kustomization.
   * @default - none: the step is a plain manifest file
   */
  readonly kustomization?: StepKustomization;
  /**
   * A Helm release the runbook installs with `helm upgrade --install`.
   * @default - none
   */
  readonly helmRelease?: HelmReleaseSpec;
  /**
   * Objects of the construct that are strategic-merge patches of `kustomization`'s manifests, not new objects.
   * @default []
   */
  readonly patches?: readonly ApiObject[];
  /**
   * Checks before apply, in order.
   * @default []
   */
  readonly preconditions?: readonly Precondition[];
  /**
   * Waits after apply, in order.
   * @default []
   */
  readonly waits?: readonly StepWait[];
}

/** A construct that a Phase-0 step can apply, with what it requires of that step. */
export interface IBootstrapComponent {
  /** What the step applying this construct must do for it. */
  readonly bootstrapRequirements: BootstrapRequirements;
}

const STEP_BRAND = Symbol.for('homelab.BootstrapStep');

/** A dependency of one step on another, with the reason shown in plans and cycle errors. */
export interface StepDependency {
  readonly step: BootstrapStep;
  readonly reason: string;
}

/**
 * One Phase-0 step: a chart written as one file of `dist/bootstrap/`, applied by the runbook in an order
 * derived from `dependsOn()`, followed by the waits that prove the next step can start.
 */
export class BootstrapStep extends Chart {
  /** Whether `x` is a `BootstrapStep` (Chart overrides `instanceof`, so the check is by brand). */
  public static isBootstrapStep(x: unknown): x is BootstrapStep {
    return typeof x === 'object' && x !== null && STEP_BRAND in x;
  }

  /** Returns the step that contains `construct`. */
  public static of(construct: Construct): BootstrapStep {
    const chart = Chart.of(construct);
    if (!BootstrapStep.isBootstrapStep(chart)) throw new Error(`${construct.node.path} is not inside a bootstrap step`);
    return chart;
  }

  public readonly stepName: string;
  public readonly summary: string;
  private readonly _waits: StepWait[] = [];
  private readonly _preconditions: Precondition[] = [];
  private readonly _dependencies: StepDependency[] = [];
  private readonly _patches = new Set<ApiObject>();
  private _kustomization?: StepKustomization;
  private _helmRelease?: HelmReleaseSpec;
  private readonly _external: (() => readonly Record<string, any>[])[] = [];

  constructor(scope: Construct, id: string, props: BootstrapStepProps) {
    super(scope, id, { disableResourceNameHashes: true });
    Object.defineProperty(this, STEP_BRAND, { value: true });
    this.stepName = props.stepName;
    this.summary = props.summary;
  }

  /** Declares that this step can only be applied once `step` is applied and its waits have passed. */
  public dependsOn(step: BootstrapStep, reason: string): void {
    if (step === this) throw new Error(`bootstrap step '${this.stepName}' cannot depend on itself`);
    if (this._dependencies.some((d) => d.step === step)) return;
    this._dependencies.push({ step, reason });
    // The order itself is cdk8s's: a chart dependency. The reason rides along for plans and cycle errors.
    this.addDependency(step);
  }

  /**
   * Applies `component` in this step: its kustomization, patches, preconditions and waits. The component must
   * be defined inside this step.
   */
  public addComponent(component: IBootstrapComponent & Construct): void {
    if (Chart.of(component) !== this) {
      throw new Error(`bootstrap step '${this.stepName}': component '${component.node.path}' is defined in another chart; define it inside the step`);
    }
    const r = component.bootstrapRequirements;
    if (r.kustomization) {
      if (this._kustomization) throw new Error(`bootstrap step '${this.stepName}' already has a kustomization; give '${component.node.id}' a step of its own`);
      this.useKustomization(r.kustomization);
    }
    if (r.helmRelease) this.useHelmRelease(r.helmRelease, component.node.id);
    for (const patch of r.patches ?? []) this.addPatch(patch);
    for (const precondition of r.preconditions ?? []) this.addPrecondition(precondition);
    for (const wait of r.waits ?? []) this.addWait(wait);
  }

  /** Adds a wait the runbook performs after applying this step. */
  public addWait(wait: StepWait): void {
    this._waits.push(wait);
  }

  /** Adds a check the runbook performs before applying this step. */
  public addPrecondition(precondition: Precondition): void {
    this._preconditions.push(precondition);
  }

  /** Makes this step a kustomization over pinned remote manifests. */
  public useKustomization(kustomization: StepKustomization): void {
    if (this._helmRelease) throw new Error(`bootstrap step '${this.stepName}' is a Helm release; a kustomization needs a step of its own`);
    for (const s of kustomization.signatures ?? []) {
      if (!kustomization.remoteResources.includes(s.manifestUrl)) {
        throw new Error(`bootstrap step '${this.stepName}': a signature names ${s.manifestUrl}, which is not one of the kustomization's ` +
          `remoteResources (${kustomization.remoteResources.join(', ') || 'none'})`);
      }
      if (![s.bundleUrl, s.certificateIdentity, s.certificateOidcIssuer].every((v) => /^https:\/\/[^\s'"\\]+$/.test(v))) {
        throw new Error(`bootstrap step '${this.stepName}': the signature of ${s.manifestUrl} needs an https bundle URL, certificate ` +
          `identity and OIDC issuer without spaces or quotes, got '${s.bundleUrl}', '${s.certificateIdentity}', '${s.certificateOidcIssuer}'`);
      }
    }
    this._kustomization = kustomization;
  }

  /**
   * Makes this step a Helm release: the runbook runs `helm upgrade --install` with the release's values, written as
   * the step's `values.yaml`. A step holds one release and nothing else (no kustomization, no objects).
   */
  public useHelmRelease(release: HelmReleaseSpec, by: string = 'it'): void {
    if (this._helmRelease || this._kustomization) {
      throw new Error(`bootstrap step '${this.stepName}' already has a ${this._helmRelease ? 'Helm release' : 'kustomization'}; give '${by}' a step of its own`);
    }
    this._helmRelease = release;
  }

  /** The Helm release, when the step is one. */
  public get helmRelease(): HelmReleaseSpec | undefined {
    return this._helmRelease;
  }

  /** Marks `obj` as a strategic-merge patch of the remote manifests instead of a new resource. */
  public addPatch(obj: ApiObject): void {
    if (!this._kustomization) throw new Error(`bootstrap step '${this.stepName}' has no kustomization to patch`);
    this._patches.add(obj);
  }

  /**
   * Applies objects that another chart defines (e.g. the AppProject and root app of the Argo CD tree, which
   * Phase 0 must apply once), appended after the step's own objects. `produce` runs at render time.
   */
  public addObjectsFrom(produce: () => readonly Record<string, any>[]): void {
    this._external.push(produce);
  }

  /** Objects added with `addObjectsFrom()`, rendered. */
  public externalObjects(): Record<string, any>[] {
    return this._external.flatMap((produce) => [...produce()]);
  }

  /** Steps this step depends on, in declaration order. */
  public get dependencies(): readonly StepDependency[] {
    return [...this._dependencies];
  }

  /** Waits after apply, in declaration order. */
  public get waits(): readonly StepWait[] {
    return [...this._waits];
  }

  /** Checks before apply, in declaration order. */
  public get preconditions(): readonly Precondition[] {
    return [...this._preconditions];
  }

  /** The kustomization, when the step wraps remote manifests. */
  public get kustomization(): StepKustomization | undefined {
    return this._kustomization;
  }

  /** Whether `obj` is rendered as a patch. */
  public isPatch(obj: ApiObject): boolean {
    return this._patches.has(obj);
  }
}
