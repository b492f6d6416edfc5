/** Types of the `delivery` section, derived from its schema: what users write and what lib/ reads. */
import type { z } from 'zod';
import type { DeliveryAppSchema, DeliverySchema } from './schema';

export type DeliveryConfig = z.input<typeof DeliverySchema>;
export type DeliveryAppConfig = z.input<typeof DeliveryAppSchema>;
export type ResolvedDeliveryConfig = z.output<typeof DeliverySchema>;
export type ResolvedDeliveryAppConfig = z.output<typeof DeliveryAppSchema>;
