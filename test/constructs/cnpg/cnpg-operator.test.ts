import { Testing } from 'cdk8s';
import { CNPG_MANIFEST_SIGNATURE, CnpgOperator } from '../../../lib/constructs/cnpg/cnpg-operator';
import { BootstrapStep } from '../../../lib/constructs/bootstrap/bootstrap-step';
import { CNPG_MANIFEST_URL } from '../../../lib/shared/pins';

describe('CnpgOperator', () => {
  test('is the pinned release manifest, waited for: CRDs established, the Deployment rolled out, the webhook answering', () => {
    const operator = new CnpgOperator(Testing.chart(), 'Operator');
    expect(operator.namespace).toBe('cnpg-system');
    expect(operator.timeoutSeconds).toBe(300);
    expect(operator.bootstrapRequirements.kustomization).toEqual({ remoteResources: [CNPG_MANIFEST_URL], signatures: [CNPG_MANIFEST_SIGNATURE] });
    const waits = operator.bootstrapRequirements.waits!;
    expect(waits.map((w) => w.kind)).toEqual(['crds-established', 'rollout', 'webhook-serving']);
    expect(waits[0]).toEqual(expect.objectContaining({ crds: ['clusters.postgresql.cnpg.io', 'databases.postgresql.cnpg.io'] }));
    expect(waits[1]).toEqual(expect.objectContaining({ namespace: 'cnpg-system', deployment: 'cnpg-controller-manager' }));
    // The probe is a dry-run create of a Cluster: only an answering webhook lets it through.
    expect(waits[2]).toEqual(expect.objectContaining({ probe: expect.objectContaining({ apiVersion: 'postgresql.cnpg.io/v1', kind: 'Cluster' }) }));
  });

  test('the manifest\'s signature is the Sigstore bundle of the release, signed keyless by release-publish.yml at the tag', () => {
    // cloudnative-pg v1.30.0 .github/workflows/release-publish.yml: cosign sign-blob releases/cnpg-${VERSION}.yaml
    // --bundle releases/cnpg-${VERSION}.sigstore.json, both uploaded to the release of the pushed tag.
    expect(CNPG_MANIFEST_SIGNATURE).toEqual({
      manifestUrl: 'https://github.com/cloudnative-pg/cloudnative-pg/releases/download/v1.30.0/cnpg-1.30.0.yaml',
      bundleUrl: 'https://github.com/cloudnative-pg/cloudnative-pg/releases/download/v1.30.0/cnpg-1.30.0.sigstore.json',
      certificateIdentity: 'https://github.com/cloudnative-pg/cloudnative-pg/.github/workflows/release-publish.yml@refs/tags/v1.30.0',
      certificateOidcIssuer: 'https://token.actions.githubusercontent.com',
    });
  });

  test('defines no object of its own: the manifest is remote', () => {
    const chart = Testing.chart();
    new CnpgOperator(chart, 'Operator');
    expect(Testing.synth(chart)).toEqual([]);
  });

  test('a timeout applies to every wait', () => {
    const operator = new CnpgOperator(Testing.chart(), 'Operator', { timeoutSeconds: 60 });
    expect(operator.bootstrapRequirements.waits!.map((w) => w.timeoutSeconds)).toEqual([60, 60, 60]);
  });

  test('a bootstrap step applies it through addComponent()', () => {
    const step = new BootstrapStep(Testing.app(), 'Cnpg', { stepName: 'cnpg-operator', summary: 'x' });
    step.addComponent(new CnpgOperator(step, 'Operator'));
    expect(step.kustomization?.remoteResources).toEqual([CNPG_MANIFEST_URL]);
    expect(step.waits).toHaveLength(3);
  });

  test('throws for a timeout below one second', () => {
    expect(() => new CnpgOperator(Testing.chart(), 'Operator', { timeoutSeconds: -5 }))
      .toThrow("Operator: 'timeoutSeconds' must be a positive integer, got -5.");
  });
});
