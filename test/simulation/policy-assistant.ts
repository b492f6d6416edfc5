// Runs Policy Assistant (kubernetes-sigs/network-policy-api cmd/policy-assistant, built by
// scripts/build-policy-assistant.js) on NetworkPolicy JSON and flows of the evaluator's model, all flows in one run of
// `policy-assistant analyze --mode walkthrough --policy-path <dir> --traffic-path <file>`, and reads its verdicts.
//
// What its walkthrough mode does, at the pinned commit (pkg/cli/analyze.go, VerdictWalkthrough; pkg/matcher):
// - it refuses a NetworkPolicy without spec.policyTypes (pkg/kube/read.go: "missing spec.policyTypes"), because it
//   reads files, not objects the API server defaulted; this wrapper applies the API server's defaulting first;
// - it reads one policy or one NetworkPolicyList per file; this wrapper writes one NetworkPolicyList;
// - it drops the traffic's ResolvedPortName (CreateTraffic takes only the port number), so a named policy port never
//   matches in this mode: compare flows whose policies use numeric ports only;
// - its ipBlock matches any peer's IP, pods included (pkg/matcher/ippeermatcher.go), i.e. the evaluator's
//   `ipBlockMatchesPods: true`; and it panics on a peer without a valid IP, so every pod gets one;
// - it has no notion of nodes (no local-node exception);
// - its NotIn does not match a pod without the label (pkg/kube/labelselector.go, IsMatchExpressionMatchForLabels),
//   where Kubernetes' does (apimachinery pkg/labels/selector.go, Requirement.Matches: NotIn is true when the key is
//   absent); network-policy-assistant.test.ts pins that difference.
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { Flow, FlowEndpoint, NamespaceModel, NetworkPolicyJson, PodModel } from '../../lib/simulation/network-policy';
import { Tool } from '../tools';

const { binaryPath } = require('../../scripts/build-policy-assistant.js') as { binaryPath: () => string };

/** Policy Assistant as a test tool: present when scripts/build-policy-assistant.js has built it. */
export function findPolicyAssistant(): Tool {
  const binary = binaryPath();
  return { name: 'policy-assistant (node scripts/build-policy-assistant.js)', command: fs.existsSync(binary) ? binary : undefined };
}

/** Policy Assistant's verdict on one flow, with its walkthrough columns. */
export interface PolicyAssistantVerdict {
  readonly allowed: boolean;
  readonly ingress: string;
  readonly egress: string;
}

/**
 * The verdict of Policy Assistant on each flow. Pods need an `ip` (Policy Assistant panics without one);
 * `namespaces` gives namespace labels beyond `kubernetes.io/metadata.name`, as for `evaluateFlow`.
 */
export function runPolicyAssistant(
  binary: string, policies: readonly NetworkPolicyJson[], flows: readonly Flow[], namespaces: readonly NamespaceModel[] = [],
): PolicyAssistantVerdict[] {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'policy-assistant-run-'));
  try {
    const policyDir = path.join(dir, 'policies');
    fs.mkdirSync(policyDir);
    const list = { apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicyList', items: policies.map(withDefaultPolicyTypes) };
    fs.writeFileSync(path.join(policyDir, 'policies.json'), JSON.stringify(list));
    const trafficFile = path.join(dir, 'traffic.json');
    fs.writeFileSync(trafficFile, JSON.stringify(flows.map((flow) => ({
      Source: peer(flow.from, namespaces), Destination: peer(flow.to, namespaces), Protocol: flow.protocol ?? 'TCP', ResolvedPort: flow.port,
    }))));
    const r = spawnSync(binary, ['analyze', '--mode', 'walkthrough', '--policy-path', policyDir, '--traffic-path', trafficFile], {
      encoding: 'utf8', maxBuffer: 64 * 1024 * 1024,
    });
    if (r.error !== undefined || r.status !== 0) throw new Error(`policy-assistant failed (${r.error?.message ?? `exit ${r.status}`}): ${r.stderr}`);
    const verdicts = parseWalkthrough(r.stdout);
    if (verdicts.length !== flows.length) throw new Error(`policy-assistant: ${verdicts.length} verdicts for ${flows.length} flows:\n${r.stdout}`);
    return verdicts;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** The API server's defaulting of policyTypes (kubernetes/kubernetes pkg/apis/networking/v1/defaults.go). */
function withDefaultPolicyTypes(policy: NetworkPolicyJson): NetworkPolicyJson {
  const spec = policy.spec ?? {};
  if ((spec.policyTypes ?? []).length > 0) return policy;
  return { ...policy, spec: { ...spec, policyTypes: (spec.egress ?? []).length > 0 ? ['Ingress', 'Egress'] : ['Ingress'] } };
}

function peer(endpoint: FlowEndpoint, namespaces: readonly NamespaceModel[]): object {
  if (!('namespace' in endpoint)) return { IP: endpoint.ip };
  const pod: PodModel = endpoint;
  if (pod.ip === undefined) throw new Error(`runPolicyAssistant: pod ${pod.namespace}/${pod.name ?? '?'} needs an ip (Policy Assistant panics without one).`);
  const labels = namespaces.find((n) => n.name === pod.namespace)?.labels ?? {};
  return {
    Internal: { PodLabels: pod.labels ?? {}, NamespaceLabels: { ...labels, 'kubernetes.io/metadata.name': pod.namespace }, Namespace: pod.namespace },
    IP: pod.ip,
  };
}

/**
 * The rows of the walkthrough table (| TRAFFIC | VERDICT | INGRESS WALKTHROUGH | EGRESS WALKTHROUGH |), one per flow,
 * in order. Rows are separated by `+---` lines (SetRowLine); a row may span several lines (a multi-line cell); the
 * table merges a cell equal to the one above into a blank (SetAutoMergeCells), so a blank cell repeats the previous.
 */
function parseWalkthrough(stdout: string): PolicyAssistantVerdict[] {
  const lines = stdout.split('\n').filter((l) => l.startsWith('|') || l.startsWith('+'));
  const rows: string[][][] = [];
  let current: string[][] = [];
  for (const line of lines) {
    if (line.startsWith('+')) {
      if (current.length > 0) rows.push(current);
      current = [];
    } else {
      current.push(line.split('|').slice(1, -1).map((c) => c.trim()));
    }
  }
  const [header, ...body] = rows;
  if (header?.[0]?.[1] !== 'VERDICT') throw new Error(`policy-assistant: no walkthrough table in:\n${stdout}`);
  const previous = ['', '', '', ''];
  return body.map((row) => {
    const cell = (col: number): string => {
      const text = row.map((line) => line[col]).filter((c) => c !== '').join(' ');
      if (text !== '') previous[col] = text;
      return previous[col];
    };
    const verdict = cell(1);
    if (verdict !== 'Allowed' && verdict !== 'Denied') throw new Error(`policy-assistant: unexpected verdict '${verdict}'`);
    return { allowed: verdict === 'Allowed', ingress: cell(2), egress: cell(3) };
  });
}
