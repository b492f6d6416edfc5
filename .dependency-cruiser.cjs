// The architecture of lib/, checked in CI (`npm run lint:deps`). Layers point one way (../shared/STYLE.md §1):
//
//   cli, workflows -> synth -> plan, coverage, simulation, review -> homelab -> validation -> output -> constructs -> shared
//                                       \-> config -> shared
//
// A folder may import only folders below it. `config` (the schema) imports nothing but `shared`; nothing in
// `constructs`, `output` or `validation` knows the homelab config exists; `shared` is the leaf everyone may use.
const LAYERS = [
  ['cli', 'workflows'],
  ['synth'],
  ['plan', 'coverage', 'simulation', 'review'],
  ['homelab'],
  ['validation'],
  ['output'],
  ['constructs'],
  ['config'],
  ['shared'],
];
const folder = (names) => `^lib/(${names.join('|')})/`;

const upward = LAYERS.slice(1).map((layer, i) => ({
  name: `no-upward-from-${layer.join('-')}`,
  comment: `${layer.join(', ')} may not import a layer above it (${LAYERS.slice(0, i + 1).flat().join(', ')})`,
  severity: 'error',
  from: { path: folder(layer) },
  to: { path: folder(LAYERS.slice(0, i + 1).flat()) },
}));

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'No import cycles, between folders or files.',
      severity: 'error',
      from: { path: '^lib/' },
      to: { circular: true },
    },
    ...upward,
    {
      name: 'config-knows-only-shared',
      comment: 'The config schema imports nothing of lib/ but the shared leaf.',
      severity: 'error',
      from: { path: '^lib/config/' },
      to: { path: '^lib/', pathNot: '^lib/(config|shared)/' },
    },
    {
      name: 'constructs-output-validation-know-no-config',
      comment: 'Constructs take their own props; output and validation read objects, not the config.',
      severity: 'error',
      from: { path: folder(['constructs', 'output', 'validation']) },
      to: { path: '^lib/config/' },
    },
    {
      name: 'shared-is-a-leaf',
      comment: 'lib/shared imports nothing else of lib/.',
      severity: 'error',
      from: { path: '^lib/shared/' },
      to: { path: '^lib/', pathNot: '^lib/shared/' },
    },
    {
      name: 'lib-never-imports-the-root-config',
      comment: 'Entry points load the config file by path; lib/ never imports homelab.config.ts or examples.',
      severity: 'error',
      from: { path: '^lib/' },
      to: { path: '^(homelab\\.config\\.ts|examples/|test/|bench/|scripts/)' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    exclude: { path: '^(node_modules|dist|build)/' },
  },
};
