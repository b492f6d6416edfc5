/** `delivery.kyverno`: Kyverno and its image signature policies. Owned by the Kyverno slice. */
import { z } from 'zod';

export const KyvernoSchema = z.strictObject({}).readonly();
