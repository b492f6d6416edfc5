/**
 * `delivery`: steady-state continuous delivery from the decision record (ADR 0001 Part B): build without privilege,
 * sign, update images by git write-back, verify signatures at admission, roll out by canary with analysis, gate on
 * end-to-end journeys. Absent: none of it is generated.
 *
 * Each part's options live in its own file of lib/config/delivery/; this file only assembles them.
 */
import { z } from 'zod';
import { integer, keyedRecord, namespaceName, quantity, repoRelativePath } from '../fields';
import { dnsLabelProblem } from '../../shared/names';
import { show } from '../messages';
import { BuildSchema } from './build';
import { AppE2eSchema, E2eSchema } from './e2e';
import { AppImageUpdatesSchema, ImageUpdaterSchema } from './image-updater';
import { KyvernoSchema } from './kyverno';
import { RegistrySchema } from './registry';
import { CanarySchema, RolloutsSchema } from './rollouts';
import { SigningSchema } from './signing';

/** How a new version of an application reaches its pods. */
export const DELIVERY_STRATEGIES = ['rolling', 'canary'] as const;

/**
 * One application of the app tier whose manifests are generated (a `Deployment` or, with `delivery: 'canary'`, a
 * `Rollout`, and its Service), keyed by its name in `delivery.apps`. Its Argo CD Application reads the app's own
 * directory (`overlayPath`), a kustomization over the generated manifests, so that the updater's write-back lands
 * outside the generated tree.
 */
export const DeliveryAppSchema = z.strictObject({
  /** Namespace of the application. @default - the application's name */
  namespace: namespaceName.optional(),
  /** Image repository without tag or digest, under `delivery.registry` (e.g. `homelab-owner/hello`). */
  image: z.string().min(1),
  /** Tag deployed until the updater writes a digest; never `latest`, which changes under the same manifest. */
  tag: z.string().min(1).refine((t) => t !== 'latest', {
    error: "'latest' is not a pinned tag: the image would change under the same manifest. Use a version such as '1.0.0'.",
  }),
  /** Container port the application serves HTTP on. @default 8080 */
  port: integer(1).max(65535).default(8080),
  /**
   * Pods of the stable version.
   * @default - 2; for a canary without a traffic router, enough pods for its smallest `setWeight` to put one pod on
   * the canary (`ceil(100 / weight)`: 5 for the default 20 %)
   */
  replicas: integer(1).optional(),
  /** HTTP path of the readiness and liveness probes. @default '/healthz' */
  healthPath: z.string().startsWith('/').default('/healthz'),
  /** HTTP path of the Prometheus metrics on `port`, scraped by the app's PodMonitor. @default '/metrics' */
  metricsPath: z.string().startsWith('/').default('/metrics'),
  /** User the container runs as (non-root: the namespace enforces the restricted Pod Security profile). @default 65532 */
  runAsUser: integer(1).default(65532),
  /** CPU request of each pod. @default '50m' */
  cpuRequest: quantity({ example: '50m' }).default('50m'),
  /** Memory request, and limit, of each pod. @default '64Mi' */
  memory: quantity({ example: '64Mi', bytes: true }).default('64Mi'),
  /** `rolling`: a Deployment; `canary`: an Argo Rollouts `Rollout` gated by analysis. @default 'rolling' */
  delivery: z.enum(DELIVERY_STRATEGIES, {
    error: (issue) => `${show(issue.input)} is not a delivery strategy; use one of ${DELIVERY_STRATEGIES.map((s) => `'${s}'`).join(', ')}.`,
  }).default('rolling'),
  /** Canary steps and analysis; only with `delivery: 'canary'`. @default - the default canary */
  canary: CanarySchema.optional(),
  /** Image updates by Argo CD Image Updater. @default - none: the tag stays as written */
  imageUpdates: AppImageUpdatesSchema.optional(),
  /** End-to-end journeys that gate the release. @default - none */
  e2e: AppE2eSchema.optional(),
  /**
   * The app's own directory in the homelab repository: a kustomization over the generated manifests that the updater
   * writes its override file into. @default 'k8s/apps/<name>'
   */
  overlayPath: repoRelativePath.optional(),
}).readonly();

/** Application names are Kubernetes object names and file names. */
function appNameProblem(v: string): string | undefined {
  const why = dnsLabelProblem(v);
  return why === undefined ? undefined : `${show(v)} is not a valid application name: ${why}.`;
}

export const DeliverySchema = z.strictObject({
  /** Registry names: in-cluster pull, external push. */
  registry: RegistrySchema,
  /** Image signing and the key that verifies it. @default {} */
  signing: SigningSchema.prefault({}),
  /** The runner with rootless BuildKit and the build workflow. @default {} */
  build: BuildSchema.prefault({}),
  /** Argo CD Image Updater. @default {} */
  imageUpdater: ImageUpdaterSchema.prefault({}),
  /** Argo Rollouts. @default {} */
  rollouts: RolloutsSchema.prefault({}),
  /** Kyverno and the signature policies. @default {} */
  kyverno: KyvernoSchema.prefault({}),
  /** The Playwright end-to-end suite. @default {} */
  e2e: E2eSchema.prefault({}),
  /** The app tier's generated applications, keyed by name. @default {} */
  apps: keyedRecord(appNameProblem, DeliveryAppSchema).readonly().default({}),
}).readonly();
