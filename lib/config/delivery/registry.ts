/**
 * `delivery.registry`: where images are pushed and pulled (ADR 0001 Part B, "Registry addressing": one in-cluster
 * pull name, one external push name). Owned by the build slice.
 */
import { z } from 'zod';
import { checkedString } from '../fields';
import { show } from '../messages';
import { urlCredentialProblem } from '../../shared/secrets';

/**
 * Why `v` is not the base URL nodes reach the registry at: `http://` or `https://`, a host and an optional port, no
 * path (containerd appends `/v2/...` itself), no credentials.
 */
export function nodeEndpointProblem(v: string): string | undefined {
  const credentials = urlCredentialProblem(v);
  if (credentials !== undefined) return `${credentials}; the nodes authenticate to the registry through the pull secret, not the URL.`;
  let url: URL;
  try {
    url = new URL(v);
  } catch {
    return `${show(v)} is not a URL; write it like 'http://192.168.1.165:3000' or 'https://forgejo.homelab.example'.`;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return `${show(v)} must start with 'http://' or 'https://' (Talos accepts only those schemes for a mirror endpoint).`;
  }
  if ((url.pathname !== '/' && url.pathname !== '') || url.search !== '' || url.hash !== '' || v.endsWith('/')) {
    return `${show(v)} must be a scheme, host and optional port without a path or trailing '/', e.g. 'http://192.168.1.165:3000'.`;
  }
  return undefined;
}

export const RegistrySchema = z.strictObject({
  /**
   * Host (and port) pods pull from, e.g. `forgejo-http.cicd.svc.cluster.local:3000`.
   * @default - Forgejo's in-cluster HTTP Service (`<forgejo.name>-http.<forgejo.namespace>.svc.cluster.local:3000`)
   */
  pullHost: z.string().min(1).optional(),
  /** Host CI pushes to from outside the cluster, e.g. `forgejo.homelab.example`. */
  pushHost: z.string().min(1),
  /** Organisation or user that owns the application images in Forgejo's registry. @default - the homelab repo's owner */
  owner: z.string().min(1).optional(),
  /**
   * The base URL the nodes reach the registry at. A node's containerd resolves image hosts with the node's DNS, not
   * cluster DNS, so it can never resolve the in-cluster pull name; the Talos registry-mirror patch
   * (`dist/talos/registry-mirror.yaml`) maps `pullHost` to this URL. An address the nodes reach, e.g. the
   * `forgejo-lan` LoadBalancer (`http://192.168.1.165:3000`).
   * @default - `https://<pushHost>`: the external push name, which nodes resolve like any client outside the cluster
   */
  nodeEndpoint: checkedString(nodeEndpointProblem).optional(),
  /**
   * `pullHost` serves plain HTTP (Forgejo's in-cluster Service does): readers of the pull name (Image Updater,
   * Kyverno) must allow an insecure registry.
   * @default true
   */
  insecure: z.boolean().default(true),
}).readonly();
