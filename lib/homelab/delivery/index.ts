/**
 * The steady-state delivery of ADR 0001 Part B, as parts of the Argo CD tree: the runner with rootless BuildKit and
 * the build workflow, Argo CD Image Updater, Kyverno's signature policies, Argo Rollouts with the app tier's canaries,
 * and the end-to-end gate. Defined only when the config has a `delivery` section.
 */
import { Construct } from 'constructs';
import { defineBuild } from './build';
import { defineE2e } from './e2e';
import { defineImageUpdater } from './image-updater';
import { defineKyverno } from './kyverno';
import { DeliveryContext, DeliveryPart } from './parts';
import { defineRollouts } from './rollouts';

export type { DeliveryContext, DeliveryPart, DeliverySecretReference } from './parts';

/** Every part, in a fixed order: later parts may depend on the Applications of earlier ones (`ctx.applications`). */
export function defineDelivery(scope: Construct, ctx: Omit<DeliveryContext, 'delivery'>): DeliveryPart[] {
  const delivery = ctx.config.delivery;
  if (!delivery) return [];
  const parts: DeliveryPart[] = [];
  const applications = new Map(ctx.applications);
  for (const [id, define] of [['Build', defineBuild], ['Kyverno', defineKyverno], ['Rollouts', defineRollouts],
    ['ImageUpdater', defineImageUpdater], ['E2e', defineE2e]] as const) {
    const part = define(new Construct(scope, id), { ...ctx, delivery, applications });
    for (const app of part.applications) {
      if (!part.configPaths.has(app.name)) throw new Error(`delivery part ${id} defines the Application '${app.name}' without its config path (DeliveryPart.configPaths)`);
      applications.set(app.name, app);
    }
    parts.push(part);
  }
  return parts;
}
