// The simulated runbook stops where bootstrap.sh's check_api_endpoints stops: at the namespaces step, before the
// default-deny policies, when the API server is not where network.kubernetesApiCidrs / kubernetesApiPort say.
import { REFERENCE_HOMELAB } from '../../lib/config/defaults';
import { planSteps } from '../../lib/output/render-steps';
import { Faults, Lua51HealthEvaluator, simulateBringUp, SimulationInput } from '../../lib/simulation';
import { synthesizeHomelab } from '../../lib/synth/synthesize-homelab';
import { findTool, testWith } from '../tools';

const lua = findTool('lua5.1', ['lua5.1'], '-v');
const evaluator = new Lua51HealthEvaluator({ command: lua.command ?? 'lua5.1' });
const synthesis = synthesizeHomelab(REFERENCE_HOMELAB);
const input: SimulationInput = { tree: synthesis.tree, steps: planSteps(synthesis.bootstrap.steps) };
const bringUp = (apiServerEndpoints: Faults['apiServerEndpoints']) => simulateBringUp(input, { evaluator, faults: { apiServerEndpoints } });

describe('bring-up simulation: the API server outside network.kubernetesApiCidrs', () => {
  test('an address outside the CIDRs stops the runbook at the namespaces step, before anything is applied', () => {
    // WHEN the second control-plane node is on another network than the reference's 192.168.1.0/24
    const outcome = bringUp({ addresses: ['192.168.1.10', '10.0.0.5'], port: 6443 });
    // THEN
    expect(outcome.state).toBe('Failed');
    expect(outcome.where).toBe('runbook step 1 namespaces');
    expect(outcome.message).toMatch(/^API server addresses outside network\.kubernetesApiCidrs \(192\.168\.1\.0\/24\): 10\.0\.0\.5: .*time out/);
    expect(outcome.timeline.filter((e) => / applied /.test(e.message))).toEqual([]);
  });

  test('another port stops it there too, naming the port and the setting', () => {
    const outcome = bringUp({ addresses: ['192.168.1.10'], port: 16443 });
    expect(outcome.where).toBe('runbook step 1 namespaces');
    expect(outcome.message).toMatch(/^the API server serves on port 16443, but network\.kubernetesApiPort is 6443: /);
  });

  test('an IPv6 API server stops it: the config takes IPv4 CIDRs only', () => {
    const outcome = bringUp({ addresses: ['fd00::10'], port: 6443 });
    expect(outcome.where).toBe('runbook step 1 namespaces');
    expect(outcome.message).toMatch(/^the API server has IPv6 addresses \(fd00::10\), but network\.kubernetesApiCidrs holds IPv4 CIDRs only/);
  });

  testWith(lua)('every address inside (the edges of the CIDR included) and the configured port: the bring-up converges', () => {
    const outcome = bringUp({ addresses: ['192.168.1.0', '192.168.1.255'], port: 6443 });
    expect(outcome.message).not.toMatch(/API server/);
    expect(outcome.state).toBe('Healthy');
  });
});
