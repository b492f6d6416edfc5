// ESLint (flat config) with typescript-eslint's recommended rules over the TypeScript sources and tests.
// Formatting follows ../shared/STYLE.md §11: 2 spaces, single quotes, semicolons, trailing commas, 150 columns.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['node_modules/', 'dist/', 'imports/', 'schemas/', 'build/', '.build/', '.cdk8s.out/', 'coverage/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    rules: {
      // The generated CRD classes and parsed YAML are untyped JSON; `any` at those edges is deliberate.
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      // STYLE.md §4: defaults with `??`, never `||`, is enforced by review and tests; these keep the basics.
      eqeqeq: ['error', 'always'],
      'no-var': 'error',
      'prefer-const': 'error',
      quotes: ['error', 'single', { avoidEscape: true }],
      semi: ['error', 'always'],
      'comma-dangle': ['error', 'always-multiline'],
      'max-len': ['error', { code: 150, ignoreUrls: true, ignoreStrings: true, ignoreTemplateLiterals: true, ignoreRegExpLiterals: true }],
      indent: 'off',
      // Control characters in regular expressions are deliberate here: ANSI colours, YAML's forbidden characters.
      'no-control-regex': 'off',
    },
  },
  {
    files: ['**/*.js', '**/*.cjs'],
    languageOptions: { sourceType: 'commonjs', globals: { require: 'readonly', module: 'writable', process: 'readonly', console: 'readonly', __dirname: 'readonly', __filename: 'readonly', Buffer: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly', exports: 'writable', fetch: 'readonly', AbortSignal: 'readonly', URL: 'readonly' } },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    files: ['test/**/*.ts'],
    rules: {
      // Tests build partial objects and assert on untyped YAML.
      '@typescript-eslint/no-non-null-assertion': 'off',
      // Tests load the plain-JavaScript scripts and bench helpers they check.
      '@typescript-eslint/no-require-imports': 'off',
    },
  },
);
