/** The build part of the delivery (see lib/config/delivery/build.ts). */
import { Construct } from 'constructs';
import { DeliveryContext, DeliveryPart, EMPTY_PART } from './parts';

export function defineBuild(_scope: Construct, _ctx: DeliveryContext): DeliveryPart {
  return EMPTY_PART;
}
