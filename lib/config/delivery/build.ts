/** `delivery.build`: the Forgejo Actions runner with rootless BuildKit and the generated build workflow. Owned by the build slice. */
import { z } from 'zod';

export const BuildSchema = z.strictObject({}).readonly();
