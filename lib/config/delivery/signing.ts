/**
 * `delivery.signing`: how images are signed (cosign, key by reference) and verified. Owned by the Kyverno slice.
 *
 * The public key is referenced, never written into the config: `ImageValidatingPolicy` has no `secretRef` for a key
 * (`attestors[].cosign.key` is `data`, `kms` or `expression`, CRD at Kyverno v1.19.0), but `kms` takes any cosign key
 * reference (`pkg/image/verifiers/ivpol/cosign/opts.go:219-224` calls `sigs.PublicKeyFromKeyRefWithHashAlgo`), and
 * cosign reads `k8s://<namespace>/<secret>` as key `cosign.pub` of that Secret. So the key is a Secret in Kyverno's
 * namespace, delivered by SOPS like every other Secret of the tree, and rotated without touching the config. The
 * private key never appears here: CI signs with it (`cosign sign --key env://...`).
 */
import { z } from 'zod';
import { secretName } from '../fields';

export const SigningSchema = z.strictObject({
  /**
   * Secret with the cosign public key (PEM) under key `cosign.pub`, in Kyverno's namespace (`delivery.kyverno.namespace`):
   * Kyverno's admission controller may read Secrets only there (chart 3.9.0 `templates/admission-controller/role.yaml`).
   * Only the public key belongs there: `cosign generate-key-pair k8s://...` would also store the private key (`cosign.key`)
   * in that Secret (sigstore/cosign v3.1.2 `pkg/cosign/kubernetes/secret.go:100-108`).
   * @default 'cosign-public-key'
   */
  publicKeySecret: secretName.default('cosign-public-key'),
}).readonly();
