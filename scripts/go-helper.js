'use strict';
// One small Go program of tools/<name>, built once through the Go module proxy and cached in
// ~/.cache/homelab-gitops/<name>-<version>-<hash>, where the hash covers its go.mod, go.sum and main.go, so a
// change rebuilds it. Shared by scripts/build-lua-health.js and scripts/build-cnpg-webhook.js.
const { createHash } = require('crypto');
const { spawnSync } = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');

const SOURCES = ['go.mod', 'go.sum', 'main.go'];

/**
 * `name`: the folder under tools/; `versionOf`: a regular expression whose first group is the version of the
 * module the helper wraps, read from its go.mod; `cachePrefix`: how its cached binaries are named.
 */
function goHelper(name, versionOf, cachePrefix = name) {
  const toolDir = path.join(__dirname, '..', 'tools', name);

  /** The cached binary's path for the helper's current sources. */
  function helperPath() {
    const hash = createHash('sha256');
    for (const file of SOURCES) hash.update(fs.readFileSync(path.join(toolDir, file)));
    const version = versionOf.exec(fs.readFileSync(path.join(toolDir, 'go.mod'), 'utf8'))[1];
    const cache = process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache');
    return path.join(cache, 'homelab-gitops', `${cachePrefix}-${version}-${hash.digest('hex').slice(0, 12)}`);
  }

  function build() {
    const out = helperPath();
    if (fs.existsSync(out)) return out;
    fs.mkdirSync(path.dirname(out), { recursive: true });
    const tmp = `${out}.tmp-${process.pid}`;
    console.error(`build-${name}: building ${path.relative(process.cwd(), toolDir)} into ${out}`);
    const r = spawnSync('go', ['build', '-trimpath', '-o', tmp, '.'], { cwd: toolDir, stdio: 'inherit' });
    if (r.error !== undefined || r.status !== 0) {
      fs.rmSync(tmp, { force: true });
      throw new Error(`build-${name}: go build failed (${r.error ? r.error.message : `exit ${r.status}`})`);
    }
    fs.renameSync(tmp, out);
    return out;
  }

  /** The command line: build when missing and print the path; with --path, only print it. */
  function main() {
    try {
      console.log(process.argv[2] === '--path' ? helperPath() : build());
    } catch (e) {
      console.error(e.message);
      process.exit(1);
    }
  }

  return { helperPath, build, main };
}

module.exports = { goHelper };
