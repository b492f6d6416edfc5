// The runbook checks the API server's addresses before it applies the step whose NetworkPolicies let pods reach the API
// server only at network.kubernetesApiCidrs (lib/constructs/bootstrap/waits.ts `ApiEndpointsWithinPrecondition`,
// lib/output/render-runbook.ts `check_api_endpoints`), against the recording kubectl's EndpointSlice.
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { Testing } from 'cdk8s';
import { k8s } from 'cdk8s-plus-30';
import { REFERENCE_HOMELAB } from '../../lib/config/defaults';
import { BootstrapStep } from '../../lib/constructs/bootstrap/bootstrap-step';
import { ApiEndpointsWithinPrecondition } from '../../lib/constructs/bootstrap/waits';
import { renderRunbook, RunbookOptions } from '../../lib/output/render-runbook';
import { planSteps } from '../../lib/output/render-steps';
import { describePrecondition } from '../../lib/plan/homelab-plan';
import { synthesizeHomelab } from '../../lib/synth/synthesize-homelab';
import { buildSteps, RunbookSandbox, writeRunbook, OPERATOR_PIN } from '../fixtures/runbook-fixture';
import { findTool, testWith } from '../tools';

const SHELLCHECK = findTool('shellcheck');
const OPTIONS: RunbookOptions = { minKubectlVersion: '1.29', manifestSha256: OPERATOR_PIN };
const YES = ['--yes'];
/** How check_api_endpoints asks for the kubernetes Service's EndpointSlices. */
const GET_SLICES = 'get endpointslices -n default -l kubernetes.io/service-name=kubernetes -o jsonpath={range .items[*]}{.addressType}' +
  '{"\\t"}{range .endpoints[*]}{.addresses[*]}{" "}{end}{"\\t"}{range .ports[*]}{.name}={.port}{" "}{end}{"\\n"}{end}';
const CHECK: ApiEndpointsWithinPrecondition = {
  kind: 'api-endpoints-within',
  cidrs: ['192.168.1.0/24', '10.0.0.16/28'],
  port: 6443,
  cidrsSetting: 'network.kubernetesApiCidrs',
  portSetting: 'network.kubernetesApiPort',
  consequence: 'isolated pods reach the API server only there',
};

/** One step `isolate` with a generated Secret and then the check (added in that order), after a plain step. */
function checkedSteps(check: Partial<ApiEndpointsWithinPrecondition> = {}) {
  const app = Testing.app();
  const before = new BootstrapStep(app, 'Before', { stepName: 'before', summary: 'before' });
  new k8s.KubeNamespace(before, 'Ns', { metadata: { name: 'before' } });
  const isolate = new BootstrapStep(app, 'Isolate', { stepName: 'isolate', summary: 'isolate' });
  new k8s.KubeNamespace(isolate, 'Ns', { metadata: { name: 'isolated' } });
  isolate.addPrecondition({ kind: 'generated-secret', namespace: 'isolated', name: 'k', key: 'key', bytes: 32 });
  isolate.addPrecondition({ ...CHECK, ...check });
  isolate.dependsOn(before, 'first');
  return planSteps([before, isolate]);
}

function stepLines(script: string, header: string): string[] {
  const lines = script.split('\n');
  const from = lines.findIndex((l) => l.startsWith(header));
  return lines.slice(from, lines.indexOf('', from));
}

describe('renderRunbook: the API server check', () => {
  test('is the first call of its step, before the step changes anything (a generated Secret added earlier, the apply)', () => {
    expect(stepLines(renderRunbook(checkedSteps(), OPTIONS), 'step 2 isolate')).toEqual([
      'step 2 isolate isolate',
      "check_api_endpoints '192.168.1.0/24 10.0.0.16/28' 6443 network.kubernetesApiCidrs network.kubernetesApiPort " +
        "'isolated pods reach the API server only there'",
      'ensure_secret isolated k key 32',
      'apply isolate -f 02-isolate.yaml',
    ]);
  });

  test('throws on no CIDR, a CIDR that is not IPv4 or has host bits set, a port that is not a TCP port, and no consequence', () => {
    const render = (check: Partial<ApiEndpointsWithinPrecondition>) => () => renderRunbook(checkedSteps(check), OPTIONS);
    expect(render({ cidrs: [] })).toThrow("bootstrap step 'isolate': api-endpoints-within needs at least one CIDR (network.kubernetesApiCidrs)");
    expect(render({ cidrs: ['fd00::/64'] })).toThrow("bootstrap step 'isolate': api-endpoints-within network.kubernetesApiCidrs: 'fd00::/64' is not " +
      "an IPv4 CIDR such as '192.168.1.0/24' or '192.168.1.10/32'.");
    expect(render({ cidrs: ['192.168.1.10/24'] })).toThrow("'192.168.1.10/24' has host bits set; write '192.168.1.0/24'");
    expect(render({ port: 0 })).toThrow("bootstrap step 'isolate': api-endpoints-within network.kubernetesApiPort must be a TCP port (1-65535), got 0");
    expect(render({ port: 65536 })).toThrow('must be a TCP port (1-65535), got 65536');
    expect(render({ consequence: ' ' })).toThrow("bootstrap step 'isolate': api-endpoints-within needs a consequence, printed when it fails");
  });

  test('the plan describes it in one line, naming the CIDRs, the port and their settings', () => {
    expect(describePrecondition(CHECK)).toBe('before applying, every address of the API server (EndpointSlices of Service ' +
      'default/kubernetes) lies in 192.168.1.0/24, 10.0.0.16/28 (network.kubernetesApiCidrs) and its https port is 6443 ' +
      '(network.kubernetesApiPort); otherwise the runbook stops, naming the addresses to write: isolated pods reach the API server only there.');
  });

  describe('the reference homelab', () => {
    const namespacesStep = (config: typeof REFERENCE_HOMELAB) =>
      stepLines(synthesizeHomelab(config).tree.get('bootstrap/bootstrap.sh')!, 'step 1 namespaces');

    test('checks network.kubernetesApiCidrs and kubernetesApiPort first in the namespaces step, which applies the default-deny policies', () => {
      const lines = namespacesStep(REFERENCE_HOMELAB);
      expect(lines[1]).toMatch(/^check_api_endpoints 192\.168\.1\.0\/24 6443 network\.kubernetesApiCidrs network\.kubernetesApiPort '.+'$/);
      expect(lines[2]).toBe('apply namespaces -f 01-namespaces.yaml');
    });

    test('takes the CIDRs and the port from the config', () => {
      const lines = namespacesStep({ ...REFERENCE_HOMELAB, network: { kubernetesApiCidrs: ['10.0.0.10/32', '10.0.0.11/32'], kubernetesApiPort: 7443 } });
      expect(lines[1]).toMatch(/^check_api_endpoints '10\.0\.0\.10\/32 10\.0\.0\.11\/32' 7443 /);
    });

    test('has no check when nothing is isolated (network.isolatePhase0: false)', () => {
      const lines = namespacesStep({ ...REFERENCE_HOMELAB, network: { isolatePhase0: false } });
      expect(lines.filter((l) => l.startsWith('check_api_endpoints'))).toEqual([]);
    });
  });

  testWith(SHELLCHECK)('a script with the check is shellcheck-clean', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'runbook-api-'));
    const file = path.join(dir, 'bootstrap.sh');
    fs.writeFileSync(file, renderRunbook(checkedSteps(), OPTIONS));
    const r = spawnSync(SHELLCHECK.command!, ['--shell=bash', '--severity=style', file], { encoding: 'utf8' });
    expect(r.stdout + r.stderr).toBe('');
    expect(r.status).toBe(0);
  });
});

describe('bootstrap.sh checks the API server before the namespaces step (recording kubectl)', () => {
  let box: RunbookSandbox;
  beforeAll(() => {
    // GIVEN the fixture's namespaces step with the check: 192.168.1.0/24 and 10.0.0.16/28 (10.0.0.16 to 10.0.0.31), port 6443
    box = new RunbookSandbox(writeRunbook(buildSteps({ apiEndpointsWithin: { cidrs: CHECK.cidrs, port: 6443 } }), OPTIONS));
    box.writeSeedKey();
  });
  const applies = (calls: readonly string[]) => calls.filter((c) => c.startsWith('apply') || c.startsWith('create') || c.startsWith('delete'));

  test('passes when every address lies in a CIDR, the edges of a range included, and the port is the one configured', () => {
    // WHEN
    const r = box.run(YES, { FAKE_API_ADDRESSES: '192.168.1.10 10.0.0.16 10.0.0.31' });
    // THEN one read, after the cluster is confirmed, before the step's apply
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const read = r.calls.indexOf(GET_SLICES);
    expect(read).toBe(r.calls.indexOf('get namespace kube-system -o jsonpath={.metadata.uid}') + 1);
    expect(r.calls[read + 1]).toMatch(/-namespaces -f <dir>\/01-namespaces\.yaml$/);
    expect(r.stdout).toContain("[1/4] namespaces: namespaces\n  ✓ the API server's addresses 10.0.0.16, 10.0.0.31, 192.168.1.10 lie in " +
      'network.kubernetesApiCidrs (192.168.1.0/24 10.0.0.16/28), its port is 6443 (network.kubernetesApiPort)\n');
  });

  test('stops before the step changes anything, naming the address outside and the CIDR list that fits every address', () => {
    // WHEN 10.0.0.32 is just past 10.0.0.16/28, 10.0.0.15 just before it
    const r = box.run(YES, { FAKE_API_ADDRESSES: '192.168.1.10 10.0.0.32 10.0.0.15' });
    // THEN
    expect(r.status).toBe(1);
    expect(applies(r.calls)).toEqual([]);
    expect(r.calls[r.calls.length - 1]).toBe(GET_SLICES);
    expect(r.stderr).toContain('  ✗ FAILED: the API server\'s addresses lie in network.kubernetesApiCidrs and its port is network.kubernetesApiPort ' +
      '(EndpointSlices of Service default/kubernetes) (after ');
    expect(r.stderr).toContain('    API server addresses outside network.kubernetesApiCidrs (192.168.1.0/24 10.0.0.16/28): 10.0.0.32, 10.0.0.15\n' +
      '    Nothing of this step was applied: isolated pods reach the API server only there, and would time out.\n' +
      "    fix: set network.kubernetesApiCidrs: ['10.0.0.15/32', '10.0.0.32/32', '192.168.1.10/32'] (every API server address)\n" +
      '    (in the homelab config), then synthesize again and re-run\n' +
      '    inspect: kubectl get endpointslices -n default -l kubernetes.io/service-name=kubernetes -o yaml\n');
    expect(r.stderr).toContain('Stopped at step 1/4 (namespaces)');
  });

  test('stops on another port, naming it and the setting that fits', () => {
    const r = box.run(YES, { FAKE_API_PORT: '16443' });
    expect(r.status).toBe(1);
    expect(applies(r.calls)).toEqual([]);
    expect(r.stderr).toContain('    the API server serves on port 16443, but network.kubernetesApiPort is 6443\n' +
      '    Nothing of this step was applied: isolated pods reach the API server only there, and would time out.\n' +
      '    fix: set network.kubernetesApiPort: 16443\n');
    expect(r.stderr).not.toContain('outside');
  });

  test('stops on an IPv6 API server: the config takes IPv4 CIDRs only', () => {
    const r = box.run(YES, { FAKE_API_ADDRESS_TYPE: 'IPv6', FAKE_API_ADDRESSES: 'fd00::10' });
    expect(r.status).toBe(1);
    expect(applies(r.calls)).toEqual([]);
    expect(r.stderr).toContain('    the API server has IPv6 addresses (fd00::10), but network.kubernetesApiCidrs holds IPv4 CIDRs only: ' +
      'no policy of this step can allow them\n');
    expect(r.stderr).toContain('    fix: isolate on an IPv4 cluster, or set network.isolatePhase0: false\n');
  });

  test('stops when no EndpointSlice lists an address', () => {
    const r = box.run(YES, { FAKE_API_ADDRESSES: '' });
    expect(r.status).toBe(1);
    expect(applies(r.calls)).toEqual([]);
    expect(r.stderr).toContain('    no EndpointSlice of Service default/kubernetes lists an address (kube-apiserver writes one, named kubernetes)\n');
    expect(r.stderr).not.toContain('fix:');
  });

  test('stops on an API error, naming it, and never guesses', () => {
    const r = box.run(YES, { FAKE_API_ENDPOINTS_ERROR: 'Error from server (Forbidden): endpointslices.discovery.k8s.io is forbidden' });
    expect(r.status).toBe(1);
    expect(applies(r.calls)).toEqual([]);
    expect(r.stderr).toContain('✗ FAILED: read the API server\'s addresses (EndpointSlices of Service default/kubernetes) (after ');
    expect(r.stderr).toContain('    Error from server (Forbidden): endpointslices.discovery.k8s.io is forbidden\n');
  });

  test('--dry-run plans the check in its step and runs no kubectl command', () => {
    const r = box.run(['--dry-run']);
    expect(r.status).toBe(0);
    expect(r.calls).toEqual([]);
    expect(r.stdout).toContain('[1/4] namespaces: namespaces\n  check   the API server\'s addresses (EndpointSlices of Service default/kubernetes) ' +
      'lie in 192.168.1.0/24 10.0.0.16/28 (network.kubernetesApiCidrs), its https port is 6443 (network.kubernetesApiPort)\n  apply   ');
  });
});
