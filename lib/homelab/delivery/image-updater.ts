/** The image-updater part of the delivery (see lib/config/delivery/image-updater.ts). */
import { Construct } from 'constructs';
import { DeliveryContext, DeliveryPart, EMPTY_PART } from './parts';

export function defineImageUpdater(_scope: Construct, _ctx: DeliveryContext): DeliveryPart {
  return EMPTY_PART;
}
