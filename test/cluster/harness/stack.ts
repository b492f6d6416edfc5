// The pieces every runbook test runs together: a control plane, CloudNativePG's webhooks, and the StatusWriter
// playing the controllers (with the CNPG operator's CA-bundle duty).
import { CnpgWebhook } from './cnpg-webhook';
import { ControlPlane } from './control-plane';
import { StatusWriter } from './status-writer';

export interface Stack {
  plane: ControlPlane;
  webhook: CnpgWebhook;
  writer: StatusWriter;
}

export async function startStack(): Promise<Stack> {
  const plane = await ControlPlane.start();
  const webhook = new CnpgWebhook(plane);
  await webhook.start();
  const writer = new StatusWriter(plane, { readyAfterMs: 300, controllers: [() => webhook.injectCaBundle()] }).start();
  return { plane, webhook, writer };
}

export async function stopStack(stack: Stack | undefined): Promise<void> {
  await stack?.writer.stop();
  await stack?.webhook.stop();
  await stack?.plane.stop();
}
