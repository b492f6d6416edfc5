import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { JOURNEYS_SCRIPT, SUITE_SCRIPT, UPLOAD_SCRIPT } from '../../lib/constructs/delivery/playwright-run';
import { findTool, testWith } from '../tools';

const SHELLCHECK = findTool('shellcheck');
const BASH = findTool('bash');

testWith(SHELLCHECK)('the run\'s scripts are shellcheck-clean: bash in the Playwright image, POSIX sh in the rclone image', () => {
  for (const [shell, script] of [['bash', SUITE_SCRIPT], ['bash', JOURNEYS_SCRIPT], ['sh', UPLOAD_SCRIPT]] as const) {
    const r = spawnSync(SHELLCHECK.command!, [`--shell=${shell}`, '--severity=style', '-'], { input: script, encoding: 'utf8' });
    expect(r.stdout).toBe('');
    expect(r.status).toBe(0);
  }
});

describe('the journeys and upload scripts, against a fake npx and rclone', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'e2e-scripts-'));
    fs.mkdirSync(path.join(dir, 'bin'));
    fs.mkdirSync(path.join(dir, 'results'));
    fs.mkdirSync(path.join(dir, 'work/repo/tests/e2e'), { recursive: true });
    fs.writeFileSync(path.join(dir, 'bin/npx'), '#!/bin/sh\necho "$*" > "$FAKE_DIR/npx-argv"\nexit "${JOURNEYS_EXIT:-0}"\n', { mode: 0o755 });
    fs.writeFileSync(path.join(dir, 'bin/rclone'), '#!/bin/sh\necho "$*" >> "$FAKE_DIR/rclone-argv"\n[ -n "${FAIL_UPLOAD:-}" ] && exit 1\nexit 0\n', { mode: 0o755 });
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  /** Runs `script` with the pod's paths moved under the temporary folder. */
  function run(script: string, env: Record<string, string> = {}) {
    const local = script.replaceAll('/results', path.join(dir, 'results')).replaceAll('/work', path.join(dir, 'work'));
    return spawnSync(BASH.command!, ['-c', local], {
      encoding: 'utf8',
      env: {
        PATH: `${path.join(dir, 'bin')}:${process.env.PATH}`, FAKE_DIR: dir, HOME: path.join(dir, 'home'),
        SUITE_PATH: 'tests/e2e', REMOTE: 'STORE:bucket/e2e-artifacts', RUN_FOLDER: 'shop/canary', POD_NAME: 'shop-e2e-abc', ...env,
      },
    });
  }
  const exitCode = () => fs.readFileSync(path.join(dir, 'results/exit-code'), 'utf8').trim();

  testWith(BASH)('a failed journey is recorded, uploaded, and fails the pod after the upload', () => {
    expect(run(JOURNEYS_SCRIPT, { JOURNEYS_EXIT: '1' }).status).toBe(0);
    expect(exitCode()).toBe('1');
    expect(fs.readFileSync(path.join(dir, 'npx-argv'), 'utf8')).toBe('--no-install playwright test --config playwright.homelab-gate.config.mjs\n');
    const upload = run(UPLOAD_SCRIPT);
    expect(upload.status).toBe(1);
    expect(upload.stderr).toContain('the journeys failed (playwright exit code 1); see STORE:bucket/e2e-artifacts/shop/canary/shop-e2e-abc');
    expect(fs.readFileSync(path.join(dir, 'rclone-argv'), 'utf8')).toBe(`copy ${path.join(dir, 'results')} STORE:bucket/e2e-artifacts/shop/canary/shop-e2e-abc\n`);
  });

  testWith(BASH)('passing journeys pass, even when the upload fails', () => {
    expect(run(JOURNEYS_SCRIPT).status).toBe(0);
    expect(exitCode()).toBe('0');
    expect(run(UPLOAD_SCRIPT).status).toBe(0);
    const failedUpload = run(UPLOAD_SCRIPT, { FAIL_UPLOAD: '1' });
    expect(failedUpload.status).toBe(0);
    expect(failedUpload.stderr).toContain('upload to STORE:bucket/e2e-artifacts/shop/canary/shop-e2e-abc failed; the journeys\' result stands');
  });

  testWith(BASH)('no recorded result (the journeys never ran) fails the pod', () => {
    const upload = run(UPLOAD_SCRIPT);
    expect(upload.status).toBe(1);
    expect(upload.stderr).toContain('the journeys failed (playwright exit code 1)');
  });
});
