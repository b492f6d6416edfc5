/**
 * `delivery.rollouts` (the Argo Rollouts install) and the per-application workload and canary settings. Owned by the
 * Rollouts slice.
 */
import { z } from 'zod';

export const RolloutsSchema = z.strictObject({}).readonly();

/** The canary of an application with `delivery: 'canary'`. */
export const CanarySchema = z.strictObject({}).readonly();
