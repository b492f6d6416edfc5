#!/usr/bin/env node
// Builds Policy Assistant, Kubernetes SIG Network's static NetworkPolicy simulator (kubernetes-sigs/network-policy-api,
// cmd/policy-assistant), at a pinned commit. The NetworkPolicy evaluator's cross-check test runs it
// (test/simulation/network-policy-assistant.test.ts) and is skipped, visibly, when the binary is absent.
//
// Why not `go install <module>@<version>` through the Go module proxy: cmd/policy-assistant is a module of its own
// whose go.mod declares `module sigs.k8s.io/network-policy-api/policy-assistant`, a path that does not match its
// folder, and it has no tags; the proxy answers 404 for both paths
// (`go list -m -versions sigs.k8s.io/network-policy-api/cmd/policy-assistant`, `.../policy-assistant`), and the
// root module's v0.3.0 zip leaves the nested module out. So the source comes from git at a pinned commit; its
// dependencies still come from the module proxy, checked against its go.sum (-mod=readonly).
//
//   node scripts/build-policy-assistant.js          build when missing, print the binary's path
//   node scripts/build-policy-assistant.js --path   print where the binary is (or would be); build nothing
//
// Needs git and Go (>= the go line of cmd/policy-assistant/go.mod, 1.21). POLICY_ASSISTANT_GIT overrides where the
// source is fetched from (any git URL or path holding the pinned commit, e.g. a local mirror).
'use strict';
const { spawnSync } = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');

/** The last commit that changed cmd/policy-assistant when this was written (2026-04-21). */
const COMMIT = '3778017d9ce2a57aedda7f6e41969fc31e13b5a7';
const DEFAULT_SOURCE = 'https://github.com/kubernetes-sigs/network-policy-api.git';

/** The cached binary's path for the pinned commit. */
function binaryPath() {
  const cache = process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache');
  return path.join(cache, 'homelab-gitops', `policy-assistant-${COMMIT.slice(0, 12)}`);
}

function run(command, args, cwd) {
  const r = spawnSync(command, args, { cwd, stdio: ['ignore', 'inherit', 'inherit'], env: { ...process.env, GOFLAGS: '-mod=readonly' } });
  if (r.error !== undefined || r.status !== 0) {
    throw new Error(`build-policy-assistant: ${command} ${args.join(' ')} failed (${r.error ? r.error.message : `exit ${r.status}`})`);
  }
}

function build() {
  const out = binaryPath();
  if (fs.existsSync(out)) return out;
  fs.mkdirSync(path.dirname(out), { recursive: true });
  const source = process.env.POLICY_ASSISTANT_GIT || DEFAULT_SOURCE;
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'policy-assistant-'));
  const tmp = `${out}.tmp-${process.pid}`;
  try {
    console.error(`build-policy-assistant: fetching ${COMMIT} from ${source}, building into ${out}`);
    run('git', ['init', '-q', work]);
    run('git', ['fetch', '-q', '--depth', '1', source, COMMIT], work);
    run('git', ['checkout', '-q', COMMIT], work);
    run('go', ['build', '-trimpath', '-o', tmp, './cmd/policy-assistant'], path.join(work, 'cmd', 'policy-assistant'));
    fs.renameSync(tmp, out);
    return out;
  } finally {
    fs.rmSync(tmp, { force: true });
    // The Go module cache marks its files read-only; they live in GOMODCACHE, not here, so a plain removal works.
    fs.rmSync(work, { recursive: true, force: true });
  }
}

module.exports = { binaryPath, COMMIT };

if (require.main === module) {
  try {
    console.log(process.argv[2] === '--path' ? binaryPath() : build());
  } catch (e) {
    console.error(e.message);
    process.exit(1);
  }
}
