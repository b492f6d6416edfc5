// The generated runbook end to end against a real kube-apiserver, with the real kubectl of the same release:
// every wait passes in order, a second run changes nothing, and a run killed in any step converges when run
// again. The StatusWriter plays the controllers (test/cluster/harness/status-writer.ts); the wait Jobs' own
// kubectl commands run for real, as their ServiceAccounts.
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { describeWithShared, offlineCopy } from './harness/output-tree';
import { createOperatorSecrets, operatorSecrets, runbookEnv, runRunbook, standInReleases, stepsStarted } from './harness/runbook';
import { changes, snapshot } from './harness/snapshot';
import { Stack, startStack, stopStack } from './harness/stack';

function stepCount(tree: string): number {
  return Number(/^STEPS=(\d+)$/m.exec(fs.readFileSync(path.join(tree, 'bootstrap', 'bootstrap.sh'), 'utf8'))![1]);
}

export interface RunbookCase {
  readonly name: string;
  /** The output tree (a folder holding bootstrap/). */
  readonly dist: () => string;
  /** Also kill a run in each step in turn (about 100 s): once is enough, the runbook is the same script. */
  readonly killInEachStep: boolean;
}

/** The runbook cases for one tree; each tree is its own test file, so jest runs the two side by side. */
export function describeRunbook({ name, dist, killInEachStep }: RunbookCase): void {
  describeWithShared(`${name}: the runbook against kube-apiserver`, () => {
    let tree: string;
    let steps: number;
    beforeAll(() => {
      tree = offlineCopy(dist());
      steps = stepCount(tree);
    });
    afterAll(() => fs.rmSync(tree, { recursive: true, force: true }));

    describe('on a bare cluster', () => {
      let stack: Stack;
      beforeAll(async () => { stack = await startStack(); }, 900_000);
      afterAll(() => stopStack(stack));

      test('runs to the end: every step in order, every wait passes (once the Secrets it names exist)', async () => {
        const env = runbookEnv(stack.plane, tree);
        const secrets = operatorSecrets(tree);
        let r = await runRunbook(tree, env);
        if (secrets.length > 0) {
          // A Secret the operator must create stops the run before the step that needs it, naming it.
          expect(r.status).toBe(1);
          expect(r.output).toContain(`FAILED: Secret ${secrets[0].namespace}/${secrets[0].name} does not exist`);
          await createOperatorSecrets(stack.plane, secrets);
          r = await runRunbook(tree, env);
        }
        expect(r.output).toContain(`Bootstrap complete: ${steps} steps applied and ready.`);
        expect(r.status).toBe(0);
        expect(stepsStarted(r.output)).toEqual(Array.from({ length: steps }, (_, i) => i + 1));
        expect(r.output).not.toMatch(/FAILED/);
        expect(stack.writer.error).toBeUndefined();
      });

      test('the Barman Cloud plugin step: TLS Secrets made by the runbook\'s openssl, its CRD established, its Deployment rolled out', async () => {
        // GIVEN the run above; every tree of these cases backs its clusters up, so the plugin step is there
        expect(fs.readdirSync(path.join(tree, 'bootstrap')).filter((f) => f.endsWith('-barman-cloud-plugin'))).toHaveLength(1);
        const get = async (...args: string[]) => {
          const r = await stack.plane.kubectl(['get', ...args]);
          expect(r.stderr).toBe('');
          return r.stdout;
        };
        for (const [name, cn, usage] of [['barman-cloud-server-tls', 'barman-cloud', 'TLS Web Server Authentication'],
          ['barman-cloud-client-tls', 'barman-cloud-client', 'TLS Web Client Authentication']]) {
          expect(await get('secret', name, '-n', 'cnpg-system', '-o', 'jsonpath={.type}')).toBe('kubernetes.io/tls');
          const crt = Buffer.from(await get('secret', name, '-n', 'cnpg-system', '-o', 'jsonpath={.data.tls\\.crt}'), 'base64').toString();
          // ca.crt is the certificate itself, as cert-manager's selfSigned issuer writes it
          expect(Buffer.from(await get('secret', name, '-n', 'cnpg-system', '-o', 'jsonpath={.data.ca\\.crt}'), 'base64').toString()).toBe(crt);
          const text = spawnSync('openssl', ['x509', '-noout', '-subject', '-text'], { input: crt, encoding: 'utf8' }).stdout;
          expect(text).toMatch(new RegExp(`subject=CN ?= ?${cn}\\n`));
          expect(text).toContain(usage);
        }
        expect(await get('crd', 'objectstores.barmancloud.cnpg.io', '-o', 'jsonpath={.status.conditions[?(@.type=="Established")].status}')).toBe('True');
        expect(await get('deployment', 'barman-cloud', '-n', 'cnpg-system', '-o', 'jsonpath={.status.availableReplicas}')).toBe('1');
        // the Service CNPG discovers the plugin by, naming the two Secrets
        expect(await get('service', 'barman-cloud', '-n', 'cnpg-system', '-o', 'jsonpath={.metadata.annotations}'))
          .toMatch(/"cnpg.io\/pluginClientSecret":"barman-cloud-client-tls".*"cnpg.io\/pluginServerSecret":"barman-cloud-server-tls"/);
        expect(await get('objectstores.barmancloud.cnpg.io', '-A', '-o', 'name')).toMatch(/-backup$/m);
      });

      test('each wait Job ran its own command as its ServiceAccount and passed', () => {
        const executed = stack.writer.events.filter((e) => e.what.startsWith('running kubectl'));
        expect(executed.length).toBeGreaterThan(0);
        for (const e of executed) {
          expect(stack.writer.events).toContainEqual(expect.objectContaining({ key: e.key, what: expect.stringMatching(/^Complete \(exit 0\)/) }));
        }
      });

      test('helm was asked for each pinned release with its generated values file (the charts are stood in)', () => {
        const releases = [...standInReleases(tree).keys()];
        const calls = fs.readFileSync(path.join(stack.plane.dir, 'runbook', 'helm.log'), 'utf8').split('\n').filter((l) => l.includes('upgrade --install'));
        expect(releases.length).toBeGreaterThan(0);
        // One call per release and run, in the runbook's order (the ddb tree ran twice: see the first test).
        expect(calls.length % releases.length).toBe(0);
        for (const [i, release] of calls.map((_, i) => releases[i % releases.length]).entries()) {
          expect(calls[i]).toMatch(new RegExp(`--kube-context homelab-test upgrade --install ${release} \\S+ --repo https://\\S+ --version \\d+\\.\\d+\\.\\d+ `));
          expect(calls[i]).toMatch(new RegExp(`-f ${tree}/bootstrap/\\d+-${release}/values\\.yaml`));
        }
      });

      test('a second run changes nothing: no object is written again (Jobs are re-created by design)', async () => {
        const before = await snapshot(stack.plane);
        const r = await runRunbook(tree, runbookEnv(stack.plane, tree));
        expect(r.status).toBe(0);
        expect(changes(before, await snapshot(stack.plane))).toEqual([]);
      });
    });

    if (killInEachStep) describe('killed in each step in turn', () => {
      let stack: Stack;
      beforeAll(async () => { stack = await startStack(); }, 900_000);
      afterAll(() => stopStack(stack));

      test('every re-run picks up where the killed one stopped, and the last one converges', async () => {
        const env = runbookEnv(stack.plane, tree);
        await createOperatorSecrets(stack.plane, operatorSecrets(tree));
        for (let k = 1; k <= steps; k++) {
          const killed = await runRunbook(tree, env, { killAtStep: k, killDelayMs: 700 });
          expect({ step: k, killedAt: killed.killedAt }).toEqual({ step: k, killedAt: k });
        }
        const r = await runRunbook(tree, env);
        expect(r.output).toContain(`Bootstrap complete: ${steps} steps applied and ready.`);
        expect(r.status).toBe(0);
      });
    });
  });
}
