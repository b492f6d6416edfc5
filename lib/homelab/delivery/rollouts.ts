/** The rollouts part of the delivery (see lib/config/delivery/rollouts.ts). */
import { Construct } from 'constructs';
import { DeliveryContext, DeliveryPart, EMPTY_PART } from './parts';

export function defineRollouts(_scope: Construct, _ctx: DeliveryContext): DeliveryPart {
  return EMPTY_PART;
}
