/**
 * `delivery.e2e` (the Playwright test image, scenario source, artifacts store, smoke schedule) and the per-application
 * `e2e`. Owned by the E2E slice.
 */
import { z } from 'zod';

export const E2eSchema = z.strictObject({}).readonly();

/** The end-to-end journeys of one application; absent: the application has no E2E gate. */
export const AppE2eSchema = z.strictObject({}).readonly();
