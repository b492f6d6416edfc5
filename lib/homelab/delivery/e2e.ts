/** The e2e part of the delivery (see lib/config/delivery/e2e.ts). */
import { Construct } from 'constructs';
import { DeliveryContext, DeliveryPart, EMPTY_PART } from './parts';

export function defineE2e(_scope: Construct, _ctx: DeliveryContext): DeliveryPart {
  return EMPTY_PART;
}
