/** The kyverno part of the delivery (see lib/config/delivery/kyverno.ts). */
import { Construct } from 'constructs';
import { DeliveryContext, DeliveryPart, EMPTY_PART } from './parts';

export function defineKyverno(_scope: Construct, _ctx: DeliveryContext): DeliveryPart {
  return EMPTY_PART;
}
