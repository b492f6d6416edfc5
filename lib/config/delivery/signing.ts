/** `delivery.signing`: how images are signed (cosign, key by reference) and verified. Owned by the Kyverno slice. */
import { z } from 'zod';

export const SigningSchema = z.strictObject({}).readonly();
