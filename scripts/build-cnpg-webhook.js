#!/usr/bin/env node
// Builds tools/cnpg-webhook, CloudNativePG v1.30.0's own admission webhooks (internal/webhook/v1, registered
// as the operator registers them, nothing else) as a small Go program the CNPG webhook tests and the cluster
// test run. Modules come from the Go module proxy; the binary is cached in ~/.cache/homelab-gitops/, keyed by
// the CNPG version and a hash of the helper's go.mod, go.sum and main.go, so a change rebuilds it.
//
//   node scripts/build-cnpg-webhook.js          build when missing, print the binary's path
//   node scripts/build-cnpg-webhook.js --path   print where the binary is (or would be); build nothing
//
// Needs Go (>= the go line of tools/cnpg-webhook/go.mod). A first build takes about 2.5 minutes on 2 cores,
// 3.5 when the module cache is empty too.
'use strict';
const { createHash } = require('crypto');
const { spawnSync } = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');

const TOOL_DIR = path.join(__dirname, '..', 'tools', 'cnpg-webhook');

/** The cached binary's path for the helper's current sources. */
function helperPath() {
  const hash = createHash('sha256');
  for (const file of ['go.mod', 'go.sum', 'main.go']) hash.update(fs.readFileSync(path.join(TOOL_DIR, file)));
  const goMod = fs.readFileSync(path.join(TOOL_DIR, 'go.mod'), 'utf8');
  const version = /github\.com\/cloudnative-pg\/cloudnative-pg (v\S+)/.exec(goMod)[1];
  const cache = process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache');
  return path.join(cache, 'homelab-gitops', `cnpg-webhook-${version}-${hash.digest('hex').slice(0, 12)}`);
}

function build() {
  const out = helperPath();
  if (fs.existsSync(out)) return out;
  fs.mkdirSync(path.dirname(out), { recursive: true });
  const tmp = `${out}.tmp-${process.pid}`;
  console.error(`build-cnpg-webhook: building ${path.relative(process.cwd(), TOOL_DIR)} into ${out}`);
  const r = spawnSync('go', ['build', '-trimpath', '-o', tmp, '.'], { cwd: TOOL_DIR, stdio: 'inherit' });
  if (r.error !== undefined || r.status !== 0) {
    fs.rmSync(tmp, { force: true });
    throw new Error(`build-cnpg-webhook: go build failed (${r.error ? r.error.message : `exit ${r.status}`})`);
  }
  fs.renameSync(tmp, out);
  return out;
}

module.exports = { helperPath };

if (require.main === module) {
  try {
    console.log(process.argv[2] === '--path' ? helperPath() : build());
  } catch (e) {
    console.error(e.message);
    process.exit(1);
  }
}
