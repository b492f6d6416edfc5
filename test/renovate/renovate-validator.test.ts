import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { Tool, testWith } from '../tools';

/**
 * Renovate's own config validator (tools/renovate, installed by .ci/run before the tests) over renovate.json, and over
 * copies of it broken the two ways --strict exists for, so a green `npm run lint:renovate` is known to be able to fail.
 */

const root = path.resolve(__dirname, '../..');
const validatorPath = path.join(root, 'tools/renovate/node_modules/.bin/renovate-config-validator');
const validator: Tool = { name: 'renovate-config-validator (npm ci --prefix tools/renovate)', command: fs.existsSync(validatorPath) ? validatorPath : undefined };
const withValidator = testWith(validator);

/** Runs the validator with --strict in `dir`, where it finds the repository config (renovate.json) itself. */
function validate(dir: string): { status: number | null; output: string } {
  const r = spawnSync(validatorPath, ['--strict'], { cwd: dir, encoding: 'utf8', env: { ...process.env, LOG_FORMAT: 'json' } });
  return { status: r.status, output: `${r.stdout}${r.stderr}` };
}

describe('renovate-config-validator --strict', () => {
  let tmp: string;
  beforeAll(() => { tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'renovate-')); });
  afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));
  const config = () => JSON.parse(fs.readFileSync(path.join(root, 'renovate.json'), 'utf8'));
  const validateCopy = (name: string, edited: unknown) => {
    const dir = path.join(tmp, name);
    fs.mkdirSync(dir);
    fs.writeFileSync(path.join(dir, 'renovate.json'), JSON.stringify(edited, null, 2));
    return validate(dir);
  };

  withValidator('accepts renovate.json as the repository config', () => {
    const r = validate(root);
    expect(r.output).toContain('Config validated successfully');
    expect(r.status).toBe(0);
  }, 60_000);

  withValidator('refuses a misspelled option, naming it', () => {
    const c = config();
    c.packageRules[0].groupNme = c.packageRules[0].groupName;
    delete c.packageRules[0].groupName;
    const r = validateCopy('misspelled', c);
    expect(r.output).toContain('Invalid configuration option: packageRules[0].groupNme');
    expect(r.status).toBe(1);
  }, 60_000);

  withValidator('refuses, with --strict, an option Renovate would migrate (fileMatch, now managerFilePatterns)', () => {
    const c = config();
    c.customManagers[0].fileMatch = ['^lib/shared/pins\\.ts$'];
    delete c.customManagers[0].managerFilePatterns;
    const r = validateCopy('migrate', c);
    expect(r.output).toContain('Config migration necessary');
    expect(r.status).toBe(1);
  }, 60_000);
});
