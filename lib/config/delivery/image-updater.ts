/**
 * `delivery.imageUpdater` (the Argo CD Image Updater install and its git write-back) and the per-application
 * `imageUpdates`. Owned by the Image Updater slice.
 */
import { z } from 'zod';

export const ImageUpdaterSchema = z.strictObject({}).readonly();

/** How one application's image is updated; absent: the image is never updated by the updater. */
export const AppImageUpdatesSchema = z.strictObject({}).readonly();
