// The runbook after the cutover (`git.source: 'forgejo'`), as a rebuild runs it on a bare cluster, against
// kube-apiserver: the GitHub seed first, Forgejo up, the mirror verified, and only then the flip of the root app
// to Forgejo. GitHub and the inside of Forgejo's container cannot be reached here: a stand-in git answers
// `ls-remote` with the seed's commit, and a kubectl wrapper answers the runbook's one `kubectl exec` as Forgejo's
// API would (test/cluster/fixtures/); every other kubectl call is the real one.
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as YAML from 'yaml';
import { CnpgWebhook } from './harness/cnpg-webhook';
import { ControlPlane } from './harness/control-plane';
import { describeWithShared, offlineCopy, ROOT, synthesize } from './harness/output-tree';
import { createOperatorSecrets, operatorSecrets, runbookEnv, runRunbook, stepsStarted } from './harness/runbook';
import { changes, snapshot } from './harness/snapshot';
import { StatusWriter } from './harness/status-writer';

const COMMIT = 'c0ffee'.repeat(6) + 'c0ff';

/** The reference homelab after the cutover, synthesized from a config file as a user writes it. */
function cutoverTree(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'homelab-cutover-config-'));
  const config = path.join(dir, 'homelab.config.ts');
  fs.writeFileSync(config, [
    `import { REFERENCE_HOMELAB } from ${JSON.stringify(path.join(ROOT, 'lib', 'config', 'defaults'))};`,
    "export default { ...REFERENCE_HOMELAB, git: { ...REFERENCE_HOMELAB.git, source: 'forgejo' } };",
    '',
  ].join('\n'));
  return offlineCopy(synthesize(config));
}

describeWithShared('the rebuild after the cutover', () => {
  let plane: ControlPlane;
  let webhook: CnpgWebhook;
  let writer: StatusWriter;
  let tree: string;

  beforeAll(async () => {
    tree = cutoverTree();
    plane = await ControlPlane.start();
    webhook = new CnpgWebhook(plane);
    await webhook.start();
    writer = new StatusWriter(plane, { readyAfterMs: 300, controllers: [() => webhook.injectCaBundle()] }).start();
  }, 900_000);
  afterAll(async () => {
    await writer?.stop();
    await webhook?.stop();
    await plane?.stop();
    if (tree !== undefined) fs.rmSync(tree, { recursive: true, force: true });
  });

  function rootApplication(file: string): any {
    return YAML.parseAllDocuments(fs.readFileSync(path.join(tree, 'bootstrap', file), 'utf8')).map((d) => d.toJSON())
      .find((o) => o?.kind === 'Application' && o.metadata.name === 'root');
  }

  let env: ReturnType<typeof runbookEnv>;

  test('a rebuild seeds from GitHub, brings Forgejo up, verifies the mirror, then flips the root app to Forgejo', async () => {
    env = runbookEnv(plane, tree, {}, { cutover: true });
    // The read token a rebuild's operator made in the new Forgejo, where the runbook looks for it.
    const tokenFile = path.join(env.dir, '.config', 'homelab', 'forgejo-read-token');
    fs.mkdirSync(path.dirname(tokenFile), { recursive: true });
    fs.writeFileSync(tokenFile, 'test-read-token\n', { mode: 0o600 });
    Object.assign(env.env, { STANDIN_SEED_COMMIT: COMMIT, STANDIN_FORGEJO_COMMIT: COMMIT, STANDIN_FORGEJO_TOKEN_FILE: tokenFile });
    await createOperatorSecrets(plane, operatorSecrets(tree));

    const r = await runRunbook(tree, env);
    const steps = Number(/^STEPS=(\d+)$/m.exec(fs.readFileSync(path.join(tree, 'bootstrap', 'bootstrap.sh'), 'utf8'))![1]);
    expect(r.output).toContain(`Bootstrap complete: ${steps} steps applied and ready.`);
    expect(r.status).toBe(0);
    expect(stepsStarted(r.output)).toEqual(Array.from({ length: steps }, (_, i) => i + 1));
    expect(r.output).toContain(`(${COMMIT})`);

    // The seed was read once and Forgejo asked once, through deploy/forgejo.
    expect(fs.readFileSync(path.join(env.dir, 'git.log'), 'utf8').trim().split('\n')).toEqual([expect.stringMatching(/^ls-remote \S+ refs\/heads\/main$/)]);
    expect(fs.readFileSync(path.join(env.dir, 'exec.log'), 'utf8')).toMatch(/exec -i -n cicd deploy\/forgejo -- sh -c/);

    // The seed root read GitHub; the root app on the cluster now reads Forgejo, as the last step wrote it.
    const seed = rootApplication(fs.readdirSync(path.join(tree, 'bootstrap')).find((n) => /-argocd-seed-root\.yaml$/.test(n))!);
    const flipped = rootApplication(fs.readdirSync(path.join(tree, 'bootstrap')).find((n) => /-argocd-root\.yaml$/.test(n))!);
    expect(seed.spec.source.repoURL).toMatch(/github\.com/);
    const live = JSON.parse((await plane.kubectl(['get', 'application', 'root', '-n', 'argocd', '-o', 'json'])).stdout);
    expect(live.spec.source.repoURL).toBe(flipped.spec.source.repoURL);
    expect(live.spec.source.repoURL).toMatch(/forgejo/);
  });

  test('a re-run after the flip skips the seed root, verifies the mirror again, and writes no object', async () => {
    const before = await snapshot(plane);
    const r = await runRunbook(tree, env);
    expect(r.status).toBe(0);
    expect(r.output).toContain('✓ skipped: the root app already reads the verified Forgejo mirror');
    expect(r.output).toContain(`(${COMMIT})`);
    expect(changes(before, await snapshot(plane))).toEqual([]);
  });
});
