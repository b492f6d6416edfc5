import { execFileSync, spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

// The library as a consumer gets it: `npm pack` (which builds JavaScript and .d.ts first, through `prepack`),
// installed into a temporary cdk8s app written in plain JavaScript that sees nothing of this repository but the
// tarball, and synthesized there.
const root = path.resolve(__dirname, '../..');
const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
let work: string;
let app: string;
let tarball: string;

function run(cmd: string, args: string[], cwd: string): string {
  const r = spawnSync(cmd, args, { cwd, encoding: 'utf8', env: { ...process.env, npm_config_update_notifier: 'false', npm_config_fund: 'false', npm_config_audit: 'false' } });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed (${r.status}):\n${r.stdout}\n${r.stderr}`);
  return r.stdout;
}

beforeAll(() => {
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'homelab-gitops-package-'));
  const packed = JSON.parse(run('npm', ['pack', '--json', '--pack-destination', work], root));
  tarball = path.join(work, packed[0].filename);
  app = path.join(work, 'app');
  fs.mkdirSync(app);
  fs.writeFileSync(path.join(app, 'package.json'), JSON.stringify({
    name: 'consumer', private: true,
    dependencies: {
      'homelab-gitops': `file:${tarball}`,
      // The versions this repository pins, from the npm cache that its own install filled.
      cdk8s: pkg.devDependencies.cdk8s, 'cdk8s-plus-30': pkg.devDependencies['cdk8s-plus-30'], constructs: pkg.devDependencies.constructs,
    },
  }, null, 2));
  run('npm', ['install', '--prefer-offline', '--no-package-lock'], app);
});

afterAll(() => {
  if (work) fs.rmSync(work, { recursive: true, force: true });
});

test('the tarball holds the built JavaScript and declarations, and none of the sources', () => {
  const files: string[] = JSON.parse(run('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], root))[0].files.map((f: { path: string }) => f.path);
  expect(files).toContain('build/lib/index.js');
  expect(files).toContain('build/lib/index.d.ts');
  expect(files).toContain('build/lib/constructs/cnpg/cnpg-cluster.js');
  expect(files.filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'))).toEqual([]);
  expect(files.filter((f) => /^(lib|test|dist|scripts)\//.test(f))).toEqual([]);
});

test('a plain JavaScript cdk8s app synthesizes two constructs from the package entry point', () => {
  // GIVEN an app that requires the package by name only
  fs.writeFileSync(path.join(app, 'main.js'), `
const { App, Chart } = require('cdk8s');
const { CnpgCluster, CnpgDatabase, WaitForPostgresJob, PodSecurityNamespace } = require('homelab-gitops');
const app = new App({ outdir: 'out' });
const chart = new Chart(app, 'demo', { disableResourceNameHashes: true });
new PodSecurityNamespace(chart, 'Namespace', { name: 'demo', enforce: 'restricted' });
const cluster = new CnpgCluster(chart, 'Postgres', { name: 'demo-pg', namespace: 'demo', initdbDatabase: 'app' });
const database = new CnpgDatabase(chart, 'Reports', { cluster, pgName: 'reports', owner: 'app' });
new WaitForPostgresJob(chart, 'Wait', { cluster, databases: [database] });
app.synth();
console.log(require.resolve('homelab-gitops'));
`);
  // WHEN
  const resolved = execFileSync('node', ['main.js'], { cwd: app, encoding: 'utf8' }).trim();
  // THEN the package resolved from the app's node_modules, not from this repository
  expect(resolved).toBe(path.join(fs.realpathSync(app), 'node_modules', 'homelab-gitops', 'build', 'lib', 'index.js'));
  const written = fs.readFileSync(path.join(app, 'out', 'demo.k8s.yaml'), 'utf8');
  const kinds = written.split('\n').filter((l) => l.startsWith('kind: ')).map((l) => l.slice(6));
  expect(kinds).toEqual(expect.arrayContaining(['Namespace', 'Cluster', 'Database', 'Job', 'ServiceAccount', 'Role', 'RoleBinding']));
  expect(written).toContain('name: demo-pg');
  expect(written).toContain('pod-security.kubernetes.io/enforce: restricted');
  // The wait Job comes after what it waits for: the dependency the construct declares survives packaging.
  expect(written.indexOf('kind: Job')).toBeGreaterThan(written.indexOf('kind: Database'));
});

test('the declarations type a TypeScript consumer: props are checked', () => {
  fs.writeFileSync(path.join(app, 'check.ts'), `
import { Chart, Testing } from 'cdk8s';
import { CnpgCluster } from 'homelab-gitops';
const chart: Chart = Testing.chart();
new CnpgCluster(chart, 'Pg', { name: 'pg', namespace: 'demo', instances: 'three' });
`);
  const tsc = path.join(root, 'node_modules', 'typescript', 'bin', 'tsc');
  const r = spawnSync('node', [tsc, '--noEmit', '--strict', '--skipLibCheck', '--module', 'commonjs', '--moduleResolution', 'node10', '--target', 'es2022', 'check.ts'],
    { cwd: app, encoding: 'utf8' });
  expect(r.status).toBe(2);
  expect(r.stdout).toContain("check.ts(5,63): error TS2322: Type 'string' is not assignable to type 'number'.");
});
