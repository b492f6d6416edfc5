import * as fs from 'fs';
import * as path from 'path';
import { imageUpdaterInstallUrl } from '../../lib/constructs/delivery/image-updater-install';
import { IMAGE_UPDATER_VERSION } from '../../lib/shared/pins';
import { planFor } from '../plan/util';

const root = path.resolve(__dirname, '../..');

describe('the Argo CD Image Updater pin', () => {
  const { plan } = planFor();

  test('the install manifest and the CRD snapshot are listed at the pinned release, with their lifecycle', () => {
    const manifest = plan.pins.find((p) => p.kind === 'manifest' && p.component.startsWith('argoproj-labs/argocd-image-updater'));
    expect(manifest).toMatchObject({ component: 'argoproj-labs/argocd-image-updater install.yaml', version: IMAGE_UPDATER_VERSION,
      usedBy: ['app argocd-image-updater'], lifecycle: { status: 'supported', component: 'Argo CD Image Updater 1.3' } });
    const crd = plan.pins.find((p) => p.kind === 'CRD' && p.component.startsWith('argoproj-labs/argocd-image-updater'));
    expect(crd).toMatchObject({ component: 'argoproj-labs/argocd-image-updater CRDs (ImageUpdater)', version: IMAGE_UPDATER_VERSION });
  });

  test('the ImageUpdaters\' watched images (a tag to follow, a semver range) are not listed as images the homelab runs', () => {
    expect(plan.pins.filter((p) => p.kind === 'image' && p.component.includes('homelab-owner/'))).toEqual([]);
  });

  test('the CRD snapshot is the pinned release\'s, so one Renovate pull request moves both', () => {
    const sources = fs.readFileSync(path.join(root, 'scripts/crd-sources.json'), 'utf8');
    expect(sources).toContain(`https://raw.githubusercontent.com/argoproj-labs/argocd-image-updater/${IMAGE_UPDATER_VERSION}/config/crd/`);
    expect(imageUpdaterInstallUrl(IMAGE_UPDATER_VERSION)).toBe(
      `https://raw.githubusercontent.com/argoproj-labs/argocd-image-updater/${IMAGE_UPDATER_VERSION}/config/install.yaml`);
  });
});
