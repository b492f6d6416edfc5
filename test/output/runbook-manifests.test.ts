import { createHash } from 'crypto';
import * as fs from 'fs';
import * as path from 'path';
import { Testing } from 'cdk8s';
import { BootstrapStep } from '../../lib/constructs/bootstrap/bootstrap-step';
import { renderRunbook, RunbookOptions } from '../../lib/output/render-runbook';
import { planSteps } from '../../lib/output/render-steps';
import { buildSteps, FixtureOptions, OPERATOR_MANIFEST, OPERATOR_PIN, OPERATOR_SIGNATURE, RunbookSandbox, writeRunbook } from '../fixtures/runbook-fixture';

/**
 * The runbook downloads each release manifest once, checks its sha256 against the pin, and applies a private copy of
 * the kustomization that names the verified file instead of the URL (lib/output/render-runbook.ts `fetch_manifest`,
 * `apply_staged`), against a recording kubectl and a fake curl (and cosign) that serve files and record their calls.
 */
const OPTIONS: RunbookOptions = { minKubectlVersion: '1.29', manifestSha256: OPERATOR_PIN };
const YES = ['--yes'];
const URL = OPERATOR_MANIFEST.url;
const SHA256 = OPERATOR_MANIFEST.sha256;
const CURL_VERSION = '--version';
const DOWNLOAD = `-fsSL --proto =https --proto-redir =https --connect-timeout 30 --max-time 600 --retry 3 --retry-delay 2 -o <staging>/manifests/operator.yaml ${URL}`;
const APPLY_OPERATOR = 'apply --server-side --force-conflicts --field-manager=homelab-bootstrap-operator -k <staging>/02-operator';

function sandbox(fixture: FixtureOptions = {}, options: RunbookOptions = OPTIONS): RunbookSandbox {
  const box = new RunbookSandbox(writeRunbook(buildSteps(fixture), options));
  box.writeSeedKey();
  return box;
}

/** The kustomization the fake kubectl was given for the operator step (its copy under FAKE_SNAPSHOTS). */
function appliedKustomization(box: RunbookSandbox): string {
  return fs.readFileSync(path.join(box.snapshots, '02-operator', 'kustomization.yaml'), 'utf8');
}

describe('bootstrap.sh verifies the release manifests it applies', () => {
  test('a good manifest is downloaded once, verified, and applied from the private copy that names the local file', () => {
    // GIVEN
    const box = sandbox();
    // WHEN
    const r = box.run(YES);
    // THEN
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.curlCalls).toEqual([CURL_VERSION, DOWNLOAD]);
    expect(r.calls).toContain(APPLY_OPERATOR);
    expect(r.stdout).toContain(`  ✓ verified operator.yaml: sha256 ${SHA256} (downloaded from ${URL}) (`);
    // the copy kubectl applied names the verified file, which sits next to it; the committed folder keeps the URL
    expect(appliedKustomization(box)).toBe('apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n  - operator.yaml\n');
    expect(fs.readFileSync(path.join(box.snapshots, '02-operator', 'operator.yaml'), 'utf8')).toBe(OPERATOR_MANIFEST.content);
    expect(fs.readFileSync(path.join(box.dir, '02-operator', 'kustomization.yaml'), 'utf8')).toContain(`  - ${URL}\n`);
    expect(fs.readdirSync(path.dirname(box.dir)).filter((f) => f.startsWith('tmp.'))).toEqual([]);
  });

  test('fails on a tampered manifest before applying anything of its step, naming the URL, both hashes and what to do', () => {
    // GIVEN the server hands out other bytes than the pinned ones
    const box = sandbox();
    const tampered = `${OPERATOR_MANIFEST.content}---\nkind: ClusterRoleBinding\n`;
    box.serve({ 'operator.yaml': tampered });
    const actual = createHash('sha256').update(tampered).digest('hex');
    // WHEN
    const r = box.run(YES);
    // THEN
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(`  ✗ FAILED: sha256 of ${URL} (after `);
    expect(r.stderr).toContain([
      `    expected ${SHA256} (manifestSha256 in the homelab config)`,
      `    actual   ${actual} (downloaded from ${URL})`,
      '    Nothing of this step was applied: the manifest is not the one the config pins.',
      '    fix: if the release changed on purpose, check the new file against the release (checksum, signature), pin its',
      '    sha256 in manifestSha256 and synthesize again; otherwise the download was altered: do not apply it',
    ].join('\n'));
    expect(r.stderr).toContain('Stopped at step 2/4 (operator).');
    // the namespaces step ran; nothing of the operator step, nor after it
    expect(r.calls.filter((c) => c.startsWith('apply '))).toEqual(['apply --server-side --force-conflicts --field-manager=homelab-bootstrap-namespaces -f <dir>/01-namespaces.yaml']);
  });

  test('a failed download stops the step before any change, with curl\'s error and how to fetch it by hand', () => {
    const box = sandbox();
    fs.rmSync(path.join(box.downloads, 'operator.yaml'));
    const r = box.run(YES);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(`  ✗ FAILED: download ${URL} (after `);
    expect(r.stderr).toContain('    curl: (22) The requested URL returned error: 404\n    Nothing of this step was applied.\n');
    expect(r.stderr).toContain(`    inspect: curl -fsSL -o operator.yaml ${URL} (or put the file in a folder named by HOMELAB_MANIFESTS)\n`);
    expect(r.calls).not.toContain(APPLY_OPERATOR);
  });

  describe('HOMELAB_MANIFESTS, a folder of already-downloaded manifests', () => {
    test('a manifest found there is verified the same way and never downloaded', () => {
      // GIVEN
      const box = sandbox();
      const folder = path.join(path.dirname(box.dir), 'manifests');
      fs.mkdirSync(folder);
      fs.writeFileSync(path.join(folder, 'operator.yaml'), OPERATOR_MANIFEST.content);
      // WHEN
      const r = box.run(YES, { HOMELAB_MANIFESTS: folder });
      // THEN no curl at all: not even the version check
      expect(r.stderr).toBe('');
      expect(r.status).toBe(0);
      expect(r.curlCalls).toEqual([]);
      expect(r.stdout).toContain(`  ✓ release manifests in HOMELAB_MANIFESTS=${folder} (operator.yaml): no download\n`);
      expect(r.stdout).toContain(`  ✓ verified operator.yaml: sha256 ${SHA256} (read from ${folder}/operator.yaml) (`);
      expect(appliedKustomization(box)).toContain('  - operator.yaml\n');
    });

    test('a manifest missing there is downloaded into it once: the re-run needs no network', () => {
      const box = sandbox();
      const folder = path.join(path.dirname(box.dir), 'manifests');
      fs.mkdirSync(folder);
      const first = box.run(YES, { HOMELAB_MANIFESTS: folder });
      expect(first.status).toBe(0);
      expect(first.curlCalls).toEqual([CURL_VERSION, DOWNLOAD]);
      expect(fs.readFileSync(path.join(folder, 'operator.yaml'), 'utf8')).toBe(OPERATOR_MANIFEST.content);
      // WHEN the server is gone
      fs.rmSync(path.join(box.downloads, 'operator.yaml'));
      const again = box.run(YES, { HOMELAB_MANIFESTS: folder });
      // THEN
      expect(again.stderr).toBe('');
      expect(again.status).toBe(0);
      expect(again.curlCalls).toEqual([]);
    });

    test('fails on a tampered file there, naming it and how to download it again', () => {
      const box = sandbox();
      const folder = path.join(path.dirname(box.dir), 'manifests');
      fs.mkdirSync(folder);
      fs.writeFileSync(path.join(folder, 'operator.yaml'), 'kind: Tampered\n');
      const r = box.run(YES, { HOMELAB_MANIFESTS: folder });
      expect(r.status).toBe(1);
      expect(r.curlCalls).toEqual([]);
      expect(r.stderr).toMatch(new RegExp(`    actual {3}[0-9a-f]{64} \\(read from ${folder}/operator\\.yaml\\)\n`));
      expect(r.stderr).toContain(`    fix: delete ${folder}/operator.yaml to download it again, or put the pinned release there\n`);
      expect(r.calls).not.toContain(APPLY_OPERATOR);
    });

    test('fails before the first change when it is not a folder', () => {
      const box = sandbox();
      const r = box.run(YES, { HOMELAB_MANIFESTS: path.join(box.home, 'nowhere') });
      expect(r.status).toBe(1);
      expect(r.stderr).toContain(`  ✗ FAILED: HOMELAB_MANIFESTS=${box.home}/nowhere is not a folder\n`);
      expect(r.calls).toEqual(['version --client -o json']);
    });
  });

  describe('signatures', () => {
    test('without cosign the runbook says the signature is not verified, once, and applies the verified manifest', () => {
      const box = sandbox({ signedOperator: true });
      const r = box.run(YES);
      expect(r.status).toBe(0);
      expect(r.stdout).toContain('  ! cosign not installed: the signatures upstream publishes are not verified (the sha256 pins still are)\n');
      expect(r.stdout.split(`  ! signature of ${URL} not verified: cosign not installed; the sha256 was verified\n`)).toHaveLength(2);
      expect(r.curlCalls).toEqual([CURL_VERSION, DOWNLOAD]);
      expect(r.cosignCalls).toEqual([]);
      expect(r.calls).toContain(APPLY_OPERATOR);
    });

    test('with cosign, the bundle is downloaded and verified against the pinned identity and issuer before the apply', () => {
      // GIVEN
      const box = sandbox({ signedOperator: true });
      box.useFakeCosign();
      box.serve({ 'operator.sigstore.json': '{"mediaType":"application/vnd.dev.sigstore.bundle.v0.3+json"}\n' });
      // WHEN
      const r = box.run(YES);
      // THEN
      expect(r.stderr).toBe('');
      expect(r.status).toBe(0);
      expect(r.stdout).toContain('  ✓ cosign on PATH: verifies the signatures upstream publishes\n');
      expect(r.curlCalls).toEqual([CURL_VERSION, DOWNLOAD, DOWNLOAD.replace(/operator\.yaml/g, 'operator.sigstore.json')
        .replace(URL.replace('operator.yaml', 'operator.sigstore.json'), OPERATOR_SIGNATURE.bundleUrl)]);
      expect(r.cosignCalls).toEqual([
        'verify-blob <staging>/manifests/operator.yaml --bundle <staging>/manifests/operator.sigstore.json '
          + `--certificate-identity ${OPERATOR_SIGNATURE.certificateIdentity} --certificate-oidc-issuer ${OPERATOR_SIGNATURE.certificateOidcIssuer}`,
      ]);
      expect(fs.readFileSync(`${box.log}.bundle`, 'utf8')).toContain('sigstore.bundle');
      expect(r.stdout).toContain(`  ✓ signature of operator.yaml verified by cosign (${OPERATOR_SIGNATURE.certificateIdentity})\n`);
      expect(r.calls).toContain(APPLY_OPERATOR);
    });

    test('fails when cosign refuses the signature, before applying anything of the step', () => {
      const box = sandbox({ signedOperator: true });
      box.useFakeCosign();
      box.serve({ 'operator.sigstore.json': '{}\n' });
      const r = box.run(YES, { FAKE_COSIGN_FAIL: 'Error: none of the expected identities matched what was in the certificate' });
      expect(r.status).toBe(1);
      expect(r.stderr).toContain(`  ✗ FAILED: signature of ${URL} (cosign verify-blob, identity ${OPERATOR_SIGNATURE.certificateIdentity}) (after `);
      expect(r.stderr).toContain('    Error: none of the expected identities matched what was in the certificate\n'
        + '    Nothing of this step was applied: the manifest is not signed by the release workflow.\n');
      expect(r.calls).not.toContain(APPLY_OPERATOR);
    });
  });

  test('an unpinned manifest is applied after printing its sha256 and the config line that pins it', () => {
    const box = sandbox({}, { ...OPTIONS, manifestSha256: { [URL]: 'unpinned' } });
    const r = box.run(YES);
    expect(r.status).toBe(0);
    expect(r.stdout).toContain([
      `  ! ${URL} is not pinned: its sha256 is ${SHA256} (downloaded from ${URL})`,
      '    pin it: check it against the release, then set in the homelab config',
      `      manifestSha256: { '${URL}': '${SHA256}' }`,
    ].join('\n'));
    expect(r.calls).toContain(APPLY_OPERATOR);
  });

  test('--dry-run shows what would be downloaded and verified, and downloads nothing', () => {
    const box = sandbox({ signedOperator: true });
    const r = box.run(['--dry-run']);
    expect(r.status).toBe(0);
    expect(r.curlCalls).toEqual([]);
    expect(r.calls).toEqual([]);
    expect(r.stdout).toContain('  check   sha256sum on PATH; curl unless $HOMELAB_MANIFESTS holds operator.yaml\n');
    expect(r.stdout).toContain([
      '[2/4] operator: the widget operator (release manifest)',
      `  verify  ${URL}: download with curl; its sha256 must be ${SHA256}`,
      `  verify  its signature when cosign is installed: cosign verify-blob --bundle ${OPERATOR_SIGNATURE.bundleUrl} `
        + `--certificate-identity ${OPERATOR_SIGNATURE.certificateIdentity} --certificate-oidc-issuer ${OPERATOR_SIGNATURE.certificateOidcIssuer}`,
      '  apply   kubectl apply --server-side --force-conflicts --field-manager=homelab-bootstrap-operator -k <private copy of 02-operator>',
      `  copy    the verified operator.yaml into the copy, named in its resources instead of ${URL}`,
    ].join('\n'));
  });
});

describe('renderRunbook and release manifests', () => {
  const remoteStep = (urls: string[]) => {
    const step = new BootstrapStep(Testing.app(), 'Remote', { stepName: 'remote', summary: 'remote' });
    step.useKustomization({ remoteResources: urls });
    return planSteps([step]);
  };

  test('fetches every release manifest first in its step, then applies the private copy', () => {
    const script = renderRunbook(buildSteps(), OPTIONS);
    expect(script).toContain(`\nstep 2 operator 'the widget operator (release manifest)'\nfetch_manifest operator ${URL} ${SHA256}\n`
      + `apply_staged operator 02-operator ${URL}\n`);
  });

  test('throws for a URL the steps apply that manifestSha256 does not pin', () => {
    expect(() => renderRunbook(buildSteps(), { minKubectlVersion: '1.29' })).toThrow(`runbook: bootstrap step 'operator' applies ${URL}, `
      + `which manifestSha256 does not pin. Add its sha256 (\`curl -fsSL ${URL} | sha256sum\`), or 'unpinned'.`);
  });

  test('throws for a pin that is not a sha256', () => {
    expect(() => renderRunbook(buildSteps(), { ...OPTIONS, manifestSha256: { [URL]: 'abc' } }))
      .toThrow(`runbook: manifestSha256 of ${URL}: 'abc' is not a sha256`);
  });

  test('throws for two URLs that end in the same file name (the offline folder holds them side by side)', () => {
    const a = 'https://example.com/a/v1/manifest.yaml';
    const b = 'https://example.com/b/v1/manifest.yaml';
    expect(() => renderRunbook(remoteStep([a, b]), { minKubectlVersion: '1.29', manifestSha256: { [a]: SHA256, [b]: SHA256 } }))
      .toThrow(`runbook: ${a} and ${b} end in the same file name 'manifest.yaml'`);
  });

  test('throws for a manifest whose copy would overwrite a file of the step\'s folder', () => {
    const url = 'https://example.com/v1/kustomization.yaml';
    expect(() => renderRunbook(remoteStep([url]), { minKubectlVersion: '1.29', manifestSha256: { [url]: SHA256 } }))
      .toThrow(`bootstrap step 'remote': the copy of ${url} would be 'kustomization.yaml', a file of the step's own folder`);
  });

  test('throws for a URL that does not end in a file name', () => {
    const url = 'https://example.com/download?file=a.yaml';
    expect(() => renderRunbook(remoteStep([url]), { minKubectlVersion: '1.29', manifestSha256: { [url]: SHA256 } }))
      .toThrow(`bootstrap step 'remote': '${url}' is not the URL of a release manifest`);
  });
});
