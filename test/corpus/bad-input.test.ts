import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { parseAllDocuments, stringify } from 'yaml';
import { REFERENCE_HOMELAB } from '../../lib/config/defaults';
import { OutputTree, readTree, writeTree } from '../../lib/output/output-tree';
import { synthesizeToDisk } from '../../lib/cli/synth';
import { formatOutputProblems } from '../../lib/validation/output-problem';
import { validateOutput } from '../../lib/validation/validate-output';
import { CORPUS_CASES } from './cases';
import { synthesizeHomelab } from '../../lib/synth/synthesize-homelab';

// The committed output: every failing synth below must leave a copy of it byte for byte as it was.
const DIST = readTree(path.resolve(__dirname, '../../dist'));

describe('bad-input corpus: config level', () => {
  let tmp: string;
  beforeEach(() => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'bad-input-'));
    writeTree(DIST, path.join(tmp, 'dist'));
  });
  afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

  test('there are at least 30 config-level cases', () => {
    expect(CORPUS_CASES.length).toBeGreaterThanOrEqual(30);
  });

  test.each(CORPUS_CASES)('fails for $name', ({ mutate, stderr }) => {
    // GIVEN the previous output
    const out = path.join(tmp, 'dist');
    // WHEN
    const result = synthesizeToDisk(mutate(REFERENCE_HOMELAB), { outdir: out });
    // THEN
    expect(result.exitCode).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(`${stderr}\n\nNothing was written; ${out}/ is unchanged.\n`);
    expect(readTree(out)).toEqual(DIST);
    expect(fs.readdirSync(tmp)).toEqual(['dist']);
  });
});

/** A copy of the committed output with one document of `file` changed by `edit`. */
function withObject(file: string, kind: string, edit: (o: Record<string, any>) => void): OutputTree {
  const docs = parseAllDocuments(DIST.get(file)!).map((d) => d.toJS() as Record<string, any>);
  const target = docs.find((d) => d.kind === kind);
  if (!target) throw new Error(`no ${kind} in ${file}`);
  edit(target);
  return new Map([...DIST, [file, docs.map((d) => stringify(d)).join('---\n')]]);
}

/** The reviewed RBAC exceptions synthesis validates the committed output with. */
const VALIDATION = synthesizeHomelab(REFERENCE_HOMELAB).validation;
const FORGEJO = 'bootstrap/07-forgejo.yaml';
const POSTGRES = 'bootstrap/06-postgres-forgejo-db.yaml';
const MIRROR = 'forgejo-mirror/forgejo-mirror.yaml';

/** Rules that only the output can break: config has no images, Roles or Jobs. The trees are never written. */
const OUTPUT_CASES: { name: string; tree: () => OutputTree; message: string }[] = [
  {
    name: 'an image tagged latest',
    tree: () => withObject(FORGEJO, 'Deployment', (d) => { d.spec.template.spec.containers[0].image = 'docker.io/library/redis:latest'; }),
    message: 'The synthesized output has 1 problem:\n  - bootstrap/07-forgejo.yaml: Deployment cicd/forgejo-redis: spec.template.spec.containers[0].image: container \'redis\': image \'docker.io/library/redis:latest\' uses the tag \'latest\', which moves; pin a version tag or a digest (@sha256:...)',
  },
  {
    name: 'an untagged image',
    tree: () => withObject(FORGEJO, 'Deployment', (d) => { d.spec.template.spec.containers[0].image = 'docker.io/library/redis'; }),
    message: 'The synthesized output has 1 problem:\n  - bootstrap/07-forgejo.yaml: Deployment cicd/forgejo-redis: spec.template.spec.containers[0].image: container \'redis\': image \'docker.io/library/redis\' is not pinned: without a tag it pulls :latest, which moves; use a version tag or a digest (@sha256:...)',
  },
  {
    name: 'a malformed digest',
    tree: () => withObject(FORGEJO, 'Deployment', (d) => { d.spec.template.spec.containers[0].image = 'docker.io/library/redis@sha256:abc'; }),
    message: 'The synthesized output has 1 problem:\n  - bootstrap/07-forgejo.yaml: Deployment cicd/forgejo-redis: spec.template.spec.containers[0].image: container \'redis\': image \'docker.io/library/redis@sha256:abc\' has a malformed sha256 digest (3 characters, 64 lower-case hex digits expected); copy the full digest from the registry',
  },
  {
    name: 'a container that may run as root',
    tree: () => withObject(FORGEJO, 'Deployment', (d) => { d.spec.template.spec.securityContext.runAsNonRoot = false; }),
    message: 'The synthesized output has 1 problem:\n  - bootstrap/07-forgejo.yaml: Deployment cicd/forgejo-redis: spec.template.spec.securityContext.runAsNonRoot: the pod sets runAsNonRoot: false, which the restricted profile forbids; set it to true',
  },
  {
    name: 'a container that may escalate privileges',
    tree: () => withObject(FORGEJO, 'Deployment', (d) => { d.spec.template.spec.containers[0].securityContext.allowPrivilegeEscalation = true; }),
    message: 'The synthesized output has 1 problem:\n  - bootstrap/07-forgejo.yaml: Deployment cicd/forgejo-redis: spec.template.spec.containers[0].securityContext.allowPrivilegeEscalation: container \'redis\' has allowPrivilegeEscalation true; the restricted profile needs false. Set securityContext.allowPrivilegeEscalation: false',
  },
  {
    name: 'a hostPath volume',
    tree: () => withObject(FORGEJO, 'Deployment', (d) => { d.spec.template.spec.volumes.push({ name: 'host', hostPath: { path: '/var' } }); }),
    message: 'The synthesized output has 1 problem:\n  - bootstrap/07-forgejo.yaml: Deployment cicd/forgejo-redis: spec.template.spec.volumes[1].hostPath: volume \'host\' mounts host path \'/var\', which the baseline profile forbids; use a persistentVolumeClaim or emptyDir',
  },
  {
    name: 'a container memory limit of 400m',
    tree: () => withObject(FORGEJO, 'Deployment', (d) => { d.spec.template.spec.containers[0].resources.limits.memory = '400m'; }),
    message: 'The synthesized output has 2 problems:\n  - bootstrap/07-forgejo.yaml: Deployment cicd/forgejo-redis: spec.template.spec.containers[0].resources.limits.memory: container \'redis\': memory \'400m\' is 0.4 bytes: the \'m\' suffix means thousandths for bytes; write \'400Mi\'\n  - bootstrap/07-forgejo.yaml: Deployment cicd/forgejo-redis: spec.template.spec.containers[0].resources.requests.memory: container \'redis\': memory request \'64Mi\' is above its limit \'400m\'; the API server rejects it. Lower the request or raise the limit',
  },
  {
    name: 'a Job without activeDeadlineSeconds',
    tree: () => withObject(MIRROR, 'Job', (j) => { delete j.spec.activeDeadlineSeconds; }),
    message: 'The synthesized output has 1 problem:\n  - forgejo-mirror/forgejo-mirror.yaml: Job cicd/forgejo-mirror: spec.activeDeadlineSeconds: Job has no activeDeadlineSeconds, so a stuck run never ends and blocks whatever waits for it; set a deadline',
  },
  {
    name: 'a repository credential whose url is not the root app\'s repoURL',
    tree: () => {
      const file = 'bootstrap/09-argocd-repo-credential/kustomization.yaml';
      return new Map([...DIST, [file, DIST.get(file)!.replace('url=git@github.com:homelab-owner/homelab.git', 'url=git@github.com:homelab-owner/other.git')]]);
    },
    message: 'The synthesized output has 1 problem:\n  - bootstrap/09-argocd-repo-credential/kustomization.yaml: Secret homelab-repo-github: ' +
      'secretGenerator[0].literals: repository credential url \'git@github.com:homelab-owner/other.git\' is not the root app\'s repoURL ' +
      '\'git@github.com:homelab-owner/homelab.git\' (argocd/root/root.yaml); Argo CD matches credentials by exact URL, so the root app ' +
      'could not read the repository. Derive both from git.source.',
  },
  {
    name: 'a wildcard Role',
    tree: () => withObject(POSTGRES, 'Role', (r) => { r.rules[0].verbs = ['*']; }),
    message: 'The synthesized output has 1 problem:\n  - bootstrap/06-postgres-forgejo-db.yaml: Role cicd/wait-for-forgejo-db: rules[0].verbs[0]: Role \'wait-for-forgejo-db\' grants \'*\' in verbs; wildcards also grant whatever is added later. List the verbs it needs',
  },
  {
    name: 'a Role that reads Secrets without a reason',
    tree: () => withObject(POSTGRES, 'Role', (r) => { r.rules.push({ apiGroups: [''], resources: ['secrets'], verbs: ['get'] }); }),
    message: 'The synthesized output has 1 problem:\n  - bootstrap/06-postgres-forgejo-db.yaml: Role cicd/wait-for-forgejo-db: rules[1].resources[0]: Role \'wait-for-forgejo-db\' can get Secrets; remove \'secrets\', or add { role: \'cicd/wait-for-forgejo-db\', reason } to the Secret-access allow-list',
  },
];

describe('bad-input corpus: output level', () => {
  test.each(OUTPUT_CASES)('fails for $name', ({ tree, message }) => {
    expect(formatOutputProblems(validateOutput(tree(), VALIDATION))).toBe(message);
  });
});
