/**
 * `delivery.registry`: where images are pushed and pulled (ADR 0001 Part B, "Registry addressing": one in-cluster
 * pull name, one external push name). Owned by the build slice.
 */
import { z } from 'zod';

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
}).readonly();
