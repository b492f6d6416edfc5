/**
 * What the runbook waits for after applying a step. Each wait names the object, the state, and a timeout;
 * `lib/output/render-runbook.ts` renders them as kubectl commands. Pure data, no constructs.
 */

/** A Deployment's rollout has completed (all replicas updated and available). */
export interface RolloutWait {
  readonly kind: 'rollout';
  readonly namespace: string;
  readonly deployment: string;
  readonly timeoutSeconds: number;
}

/** A StatefulSet's rollout has completed (every replica updated and ready). */
export interface StatefulSetRolloutWait {
  readonly kind: 'statefulset-rollout';
  readonly namespace: string;
  readonly statefulSet: string;
  readonly timeoutSeconds: number;
}

/** A DaemonSet's rollout has completed (its pod is updated and available on every node it schedules to). */
export interface DaemonSetRolloutWait {
  readonly kind: 'daemonset-rollout';
  readonly namespace: string;
  readonly daemonSet: string;
  readonly timeoutSeconds: number;
}

/**
 * An object exists, and optionally a field of it has a value: polled with `kubectl get`, for objects a controller
 * creates after the step (Longhorn's manager creates its StorageClass from a ConfigMap), which `kubectl wait` before
 * 1.31 cannot wait for.
 */
export interface ObjectExistsWait {
  readonly kind: 'object-exists';
  /** `<resource>/<name>`, e.g. `storageclass/longhorn`. */
  readonly resource: string;
  /**
   * Namespace of a namespaced object.
   * @default - a cluster-scoped object
   */
  readonly namespace?: string;
  /**
   * JSONPath (kubectl syntax) of a field that must equal `equals`.
   * @default - existence only
   */
  readonly jsonPath?: string;
  /**
   * The value the field must have.
   * @default - existence only
   */
  readonly equals?: string;
  /** What is waited for, for progress output, e.g. `StorageClass longhorn is the default`. */
  readonly description: string;
  readonly timeoutSeconds: number;
}

/** Every named CRD is `Established`: the API server serves its kind. */
export interface CrdsEstablishedWait {
  readonly kind: 'crds-established';
  readonly crds: readonly string[];
  readonly timeoutSeconds: number;
}

/**
 * A server-side dry-run create of a probe object succeeds: the admission webhooks for its kind answer.
 * The only proof that a webhook really serves; an available Deployment is not enough.
 */
export interface WebhookServingWait {
  readonly kind: 'webhook-serving';
  /** What is being probed, for progress output. */
  readonly description: string;
  /** The probe object (never created: `--dry-run=server`). */
  readonly probe: Record<string, unknown>;
  readonly timeoutSeconds: number;
}

/** An object reports a status condition as True (`kubectl wait --for=condition=...`). */
export interface ConditionWait {
  readonly kind: 'condition';
  readonly namespace: string;
  /** `<resource>/<name>`, e.g. `clusters.postgresql.cnpg.io/forgejo-db`. */
  readonly resource: string;
  readonly condition: string;
  /** JSONPath of a human-readable status message printed when the wait fails. */
  readonly messagePath: string;
  readonly timeoutSeconds: number;
}

/** A Job has completed; on failure its logs and the objects it waited for are shown. */
export interface JobCompleteWait {
  readonly kind: 'job-complete';
  readonly namespace: string;
  readonly job: string;
  /** The objects the Job waits for, shown with their status message when it fails. */
  readonly watched: readonly { readonly resource: string; readonly messagePath: string }[];
  readonly timeoutSeconds: number;
  /**
   * States of a watched object that end the wait at once, failed: the object's controller has given up, so waiting out
   * the Job's deadline would only delay the message (e.g. a CNPG Cluster whose recovery failed): the wait fails when
   * `jsonPath` of `resource` (in the Job's namespace) is one of `values` (none of which may contain `|`).
   * @default []
   */
  readonly failWhen?: readonly { readonly resource: string; readonly jsonPath: string; readonly values: readonly string[] }[];
}

/** Any wait the runbook performs after applying a step. */
export type StepWait = RolloutWait | StatefulSetRolloutWait | DaemonSetRolloutWait | ObjectExistsWait | CrdsEstablishedWait
  | WebhookServingWait | ConditionWait | JobCompleteWait;

/**
 * What a local file must hold, checked by the runbook before it changes anything (the content is never printed):
 *
 * - `ssh-private-key`: an SSH private key (`-----BEGIN ... PRIVATE KEY-----`), not a `.pub` public key;
 * - `token`: one line, such as an access token;
 * - `age-identity`: an age identity file as `age-keygen` writes it: lines `AGE-SECRET-KEY-1...`, blank lines and
 *   `#` comments (https://github.com/FiloSottile/age, age-keygen(1)); not a recipient `age1...`;
 * - `env-file`: lines `KEY=value`, blank lines and `#` comments, as `kubectl create secret --from-env-file` reads them
 *   (the value is taken literally, quotes included), with a non-empty line for every key of `envKeys`.
 */
export type LocalFileFormat = 'ssh-private-key' | 'token' | 'age-identity' | 'env-file';

/**
 * A secret file on the machine that runs the runbook, never in git. The runbook reads its path from `variable`
 * (default `defaultPath`) and, before the first change, checks that it exists, is not empty, cannot be read by
 * group or others, and holds `format`; it stops with the problem and `hint` otherwise.
 */
export interface LocalFileSpec {
  /** Upper-case shell variable that overrides the path, e.g. `SEED_DEPLOY_KEY`. */
  readonly variable: string;
  /** Path used when the variable is unset; a leading `~/` is the user's home. */
  readonly defaultPath: string;
  /** How to create the file, shown when it is missing or unusable. */
  readonly hint: string;
  /**
   * What the file must hold.
   * @default - any content: only existence, size and permissions are checked
   */
  readonly format?: LocalFileFormat;
  /**
   * When the runbook checks the file: `preflight`, before the first change, or `step`, just before the step that
   * reads it, for a file that can only exist once an earlier step ran (a token of a server the runbook installs).
   * @default 'preflight'
   */
  readonly checkedAt?: 'preflight' | 'step';
  /**
   * The keys an `env-file` must set, each on a line `KEY=value` with a non-empty value.
   * @default - none (only for the `env-file` format)
   */
  readonly envKeys?: readonly string[];
}

/**
 * A Secret of type `kubernetes.io/tls` holding a self-signed certificate, made by the runbook with `openssl` on the
 * operator's machine when the Secret is missing or its certificate expires within `renewWithinDays`, and kept
 * otherwise. It holds `tls.crt`, `tls.key` and `ca.crt` (the certificate itself), as cert-manager writes a
 * certificate of a `selfSigned` Issuer (`pkg/controller/certificaterequests/selfsigned/selfsigned.go`: "We set the CA
 * to the returned certificate here since this is self signed"). The key is made in a private temporary folder
 * (umask 077) that is removed at once, and goes to the API server through a pipe; it is never printed. Nothing renews
 * the certificate but a re-run of the runbook.
 */
export interface SelfSignedTlsSecretPrecondition {
  readonly kind: 'self-signed-tls-secret';
  readonly namespace: string;
  readonly name: string;
  /** Subject common name, e.g. `barman-cloud`. */
  readonly commonName: string;
  /** DNS subject alternative names (the name a client verifies); may be empty for a client certificate. */
  readonly dnsNames: readonly string[];
  /** The extended key usage: `server` (TLS server auth) or `client` (TLS client auth). */
  readonly usage: 'server' | 'client';
  /** Validity of a new certificate, in days. */
  readonly validityDays: number;
  /** An existing certificate that expires within this many days is made again. */
  readonly renewWithinDays: number;
}

/**
 * A Forgejo pull-mirror holds exactly the commit the seed's branch points at: the runbook reads the branch head
 * from the seed with `git ls-remote` (SSH, with the seed's deploy key), and Forgejo's from its API
 * (`GET /api/v1/repos/{owner}/{repo}/branches/{branch}`, asked from inside the Forgejo container through
 * `kubectl exec`, the token on stdin), and polls until they are equal. It stops when the mirror is missing or
 * still differs after `timeoutSeconds`, naming which.
 */
export interface GitMirrorCurrentPrecondition {
  readonly kind: 'git-mirror-current';
  /** The seed repository's SSH URL, e.g. `git@github.com:owner/homelab.git`. */
  readonly seedUrl: string;
  /** Variable of the local SSH private key that may read the seed (a local file checked elsewhere). */
  readonly seedKeyVariable: string;
  /** The branch both must agree on (the root app's `targetRevision`). */
  readonly branch: string;
  /** Namespace of the Forgejo Deployment. */
  readonly forgejoNamespace: string;
  /** The Forgejo Deployment; the runbook execs into its default container. */
  readonly forgejoDeployment: string;
  /** Port Forgejo serves HTTP on inside the container. */
  readonly forgejoPort: number;
  /** Owner of the mirror repository in Forgejo. */
  readonly repoOwner: string;
  /** Name of the mirror repository in Forgejo. */
  readonly repoName: string;
  /** Variable of the local file that holds a Forgejo token allowed to read the repository. */
  readonly tokenVariable: string;
  /** How long the runbook polls for a current mirror (at least one mirror interval). */
  readonly timeoutSeconds: number;
  /** What creates and updates the mirror, shown when it is missing or stale. */
  readonly hint: string;
}

/**
 * The step is skipped when the cluster is already past it: a field of an object has the value the step's successors
 * set (e.g. the root app already reads the repository a later step points it at). The runbook reads the field with
 * one `kubectl get` (bounded by its request timeout) before anything else of the step runs: equal, and the step's
 * other preconditions, Job deletions, apply and waits are all skipped; another value, or no such object (NotFound),
 * and the step runs. Any other answer (API error, timeout) stops the runbook: a step is never skipped on a guess.
 * At most one per step.
 */
export interface SkipWhenPrecondition {
  readonly kind: 'skip-when';
  /** `<resource>/<name>` as kubectl names it, group included, e.g. `applications.argoproj.io/root`. */
  readonly resource: string;
  /**
   * Namespace of a namespaced object.
   * @default - a cluster-scoped object
   */
  readonly namespace?: string;
  /** JSONPath (kubectl syntax) of the field, e.g. `{.spec.source.repoURL}`. */
  readonly jsonPath: string;
  /** The value that means the cluster is past the step; never empty (a missing field reads as empty). */
  readonly equals: string;
  /** Why the step is not needed then, printed as `✓ skipped: <reason>`, e.g. `the root app already reads ...`. */
  readonly reason: string;
}

/**
 * A line the runbook prints before the step changes anything, saying what applying the step does NOT do to an object
 * that already exists: a CNPG Cluster's bootstrap (initdb or a restore) runs once, when the Cluster is created, so a
 * re-applied `restoreFrom` restores nothing. The runbook asks with one `kubectl get` (bounded by its request timeout):
 * the object exists, and `  → <description> exists: <whenExists>` is printed; NotFound, and `whenAbsent` is, when given.
 * Any other answer (API error, timeout) stops the runbook, since the operator would not know which of the two happens.
 * It changes nothing and skips nothing.
 */
export interface NoteWhenExistsPrecondition {
  readonly kind: 'note-when-exists';
  /** `<resource>/<name>` as kubectl names it, group included, e.g. `clusters.postgresql.cnpg.io/forgejo-db`. */
  readonly resource: string;
  /**
   * Namespace of a namespaced object.
   * @default - a cluster-scoped object
   */
  readonly namespace?: string;
  /** The object in words, e.g. `Cluster cicd/forgejo-db`. */
  readonly description: string;
  /** Printed after `<description> exists: ` when it exists. */
  readonly whenExists: string;
  /**
   * Printed after `<description> does not exist: ` when it does not.
   * @default - nothing is printed then
   */
  readonly whenAbsent?: string;
}

/**
 * Every address the API server publishes for the `kubernetes` Service lies in one of `cidrs`, and its `https` port is
 * `port`: for a step whose NetworkPolicies let pods reach the API server only there. A policy sees the backend a
 * Service translates to, i.e. these addresses, not the ClusterIP; one outside the CIDRs would make every isolated pod
 * that talks to the API server time out without an error. The runbook reads them with one `kubectl get endpointslices
 * -n default -l kubernetes.io/service-name=kubernetes` (bounded by its request timeout) before anything else of the
 * step: kube-apiserver writes that EndpointSlice itself, named `kubernetes`, one endpoint per API server address and
 * one port named `https`, the port it serves on (kubernetes v1.30.14 `pkg/controlplane/reconcilers/endpointsadapter.go`
 * `endpointSliceFromEndpoints`; `pkg/controlplane/controller/kubernetesservice/controller.go` `createEndpointPortSpec(
 * c.PublicServicePort, "https")`). An address outside, an IPv6 address, another port, no address or an API error
 * stops the runbook, naming the setting and the value that would fit.
 */
export interface ApiEndpointsWithinPrecondition {
  readonly kind: 'api-endpoints-within';
  /** IPv4 CIDRs, e.g. `192.168.1.0/24`. */
  readonly cidrs: readonly string[];
  /** The port the API server must serve on at those addresses, e.g. 6443. */
  readonly port: number;
  /** Where `cidrs` come from, named in the failure and its fix, e.g. `network.kubernetesApiCidrs`. */
  readonly cidrsSetting: string;
  /** Where `port` comes from, named in the failure and its fix, e.g. `network.kubernetesApiPort`. */
  readonly portSetting: string;
  /** What breaks when an address is outside, printed with the failure, e.g. `the wait Jobs ... time out`. */
  readonly consequence: string;
}

/** Checked before a step is applied; the runbook stops with `hint` when it fails. */
export type Precondition =
  | { readonly kind: 'secret-exists'; readonly namespace: string; readonly name: string; readonly hint: string }
  | {
    /**
     * A Secret holding a random value, created by the runbook from /dev/urandom when it does not exist and
     * never changed afterwards (a re-run keeps it). The value never appears in the output.
     */
    readonly kind: 'generated-secret';
    readonly namespace: string;
    readonly name: string;
    /** Key of the Secret that holds the random value. */
    readonly key: string;
    /** Random bytes, encoded into the value per `encoding`. */
    readonly bytes: number;
    /**
     * How the random bytes are written into the value: `base64` (standard alphabet, so it may hold `+`, `/` and `=`),
     * or `hex` (lower-case `0-9a-f`, twice as long), for a value that is pasted into a URL, such as a password in
     * `redis://:PASSWORD@host`, where `/` would end the authority and `+` or `=` would need escaping.
     * @default 'base64'
     */
    readonly encoding?: 'base64' | 'hex';
  }
  | (LocalFileSpec & {
    readonly kind: 'local-file';
    /**
     * File name under which the runbook copies the local file into a private temporary copy of the step's
     * kustomization folder, which it then applies (for a `secretGenerator` that reads `files:`). Only for
     * kustomization steps.
     * @default - the file is only checked; the step is applied from the output folder
     */
    readonly copyAs?: string;
  })
  | (LocalFileSpec & {
    /**
     * A Secret whose key `key` holds the content of a local file, applied (server-side, idempotent) before the
     * step: for a key the cluster needs before anything can sync, such as the age key the SOPS plugin decrypts
     * with. The file is checked with the other local files before the first change; its content is never printed.
     */
    readonly kind: 'secret-from-file';
    readonly namespace: string;
    readonly name: string;
    /** Key of the Secret that receives the file's content, e.g. `keys.txt`. */
    readonly key: string;
  })
  | (LocalFileSpec & {
    /**
     * A Secret whose keys are the lines `KEY=value` of a local env file (`kubectl create secret generic
     * --from-env-file`), applied (server-side, idempotent) before the step: for credentials the cluster needs
     * before anything Argo CD delivers can exist, such as the object-store keys of a Phase-0 cluster's backups.
     * The file is checked (format `env-file`, every key of `envKeys`) with the other local files before the
     * first change; its content is never printed.
     */
    readonly kind: 'secret-from-env-file';
    readonly namespace: string;
    readonly name: string;
  })
  | SelfSignedTlsSecretPrecondition
  | GitMirrorCurrentPrecondition
  | SkipWhenPrecondition
  | NoteWhenExistsPrecondition
  | ApiEndpointsWithinPrecondition;

/** One line describing a wait, for plans and progress output. */
export function describeWait(wait: StepWait): string {
  switch (wait.kind) {
    case 'rollout':
      return `Deployment ${wait.namespace}/${wait.deployment} rolled out`;
    case 'statefulset-rollout':
      return `StatefulSet ${wait.namespace}/${wait.statefulSet} rolled out`;
    case 'daemonset-rollout':
      return `DaemonSet ${wait.namespace}/${wait.daemonSet} rolled out`;
    case 'object-exists':
      return wait.description;
    case 'crds-established':
      return `CRDs established: ${wait.crds.join(', ')}`;
    case 'webhook-serving':
      return wait.description;
    case 'condition':
      return `${wait.resource} in ${wait.namespace} reports ${wait.condition}`;
    case 'job-complete':
      return `Job ${wait.namespace}/${wait.job} complete`;
  }
}

/**
 * A Helm release the runbook installs or upgrades (`helm upgrade --install`) from a pinned chart and a generated
 * values file, for a Phase-0 component published only as a chart (the CNI, the storage). Pure data: the step writes
 * `values` as `<NN>-<step>/values.yaml` and the runbook runs helm on it.
 */
export interface HelmReleaseSpec {
  /** Helm release name, e.g. `cilium`. */
  readonly releaseName: string;
  /** Chart name in the repository, e.g. `cilium`. */
  readonly chart: string;
  /** The chart repository (`https://…`, a Helm repo index). */
  readonly repoURL: string;
  /** Exact chart version. */
  readonly version: string;
  /** Namespace of the release. */
  readonly namespace: string;
  /** Whether helm creates the namespace (`--create-namespace`); false when it exists or an earlier step defines it. */
  readonly createNamespace: boolean;
  /** The chart values, written as the step's `values.yaml`. */
  readonly values: object;
  /** How long helm may take for the release and its hooks (`--timeout`); the whole call is bounded a minute later. */
  readonly timeoutSeconds: number;
}
