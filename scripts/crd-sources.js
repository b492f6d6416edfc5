'use strict';
// The pinned upstream CRDs of scripts/crd-sources.json, loaded and verified: each comes from CRD_DIR (default
// ../shared/crds) when it is there, else from its pinned Go module (`goModule`: `go mod download` through the module
// proxy, the module's h1 sum checked against the pin) or its pinned URL, and is refused unless its git blob SHA
// matches. Shared by scripts/import-crds.js (imports/) and scripts/generate-schemas.js (schemas/).
const { spawnSync } = require('child_process');
const crypto = require('crypto');
const fs = require('fs');
const path = require('path');

const root = path.resolve(__dirname, '..');
const { sources } = JSON.parse(fs.readFileSync(path.join(__dirname, 'crd-sources.json'), 'utf8'));
const crdDir = path.resolve(root, process.env.CRD_DIR ?? '../shared/crds');
const DOWNLOAD_TIMEOUT_MS = 20_000;

/** `git hash-object` of a buffer. */
function gitBlobSha(buf) {
  return crypto.createHash('sha1').update(`blob ${buf.length}\0`).update(buf).digest('hex');
}

/**
 * The bytes of `src.modulePath` inside the Go module `src.goModule` ({path, version, sum}), downloaded through the
 * Go module proxy into the module cache. `go mod download` verifies the zip against the checksum database; the
 * module's h1 sum is checked against the pin as well, so a changed proxy or GOSUMDB=off cannot slip other bytes in.
 */
function readFromGoModule(src) {
  const { path: modPath, version, sum } = src.goModule;
  const id = `${modPath}@${version}`;
  // Outside any module, so the project's own go.mod files (tools/) play no part.
  const r = spawnSync('go', ['mod', 'download', '-json', id], { cwd: require('os').tmpdir(), encoding: 'utf8', timeout: DOWNLOAD_TIMEOUT_MS * 6 });
  if (r.error) throw new Error(`cannot download ${id}: go: ${r.error.code ?? r.error.message}`);
  let info;
  try {
    info = JSON.parse(r.stdout);
  } catch {
    throw new Error(`cannot download ${id}: ${(r.stderr || r.stdout).trim()}`);
  }
  if (info.Error) throw new Error(`cannot download ${id}: ${info.Error}`);
  if (info.Sum !== sum) throw new Error(`${id}: module sum ${info.Sum} does not match the pinned ${sum}; refusing to use it`);
  return fs.readFileSync(path.join(info.Dir, src.modulePath));
}

/** The bytes of one pinned source, verified against its blob SHA. */
async function loadVerified(src) {
  const local = path.join(crdDir, src.file);
  let buf;
  if (fs.existsSync(local)) buf = fs.readFileSync(local);
  else if (src.goModule) buf = readFromGoModule(src);
  else {
    let res;
    try {
      // Bounded, so that a network that drops packets fails in seconds rather than hanging a CI run.
      res = await fetch(src.url, { signal: AbortSignal.timeout(DOWNLOAD_TIMEOUT_MS) });
      if (!res.ok) throw new Error(`HTTP ${res.status}`);
      buf = Buffer.from(await res.arrayBuffer());
    } catch (e) {
      throw new Error(`cannot download ${src.url}: ${e.cause?.code ?? e.message}`, { cause: e });
    }
  }
  const sha = gitBlobSha(buf);
  if (sha !== src.blob) throw new Error(`${src.file}: blob ${sha} does not match the pinned ${src.blob}; refusing to use it`);
  return buf;
}

/** Where a source is read from, for the generated READMEs: its Go module and path, or its URL. */
function sourceOf(src) {
  return src.goModule ? `Go module \`${src.goModule.path}@${src.goModule.version}\` (\`${src.goModule.sum}\`), \`${src.modulePath}\`` : src.url;
}

module.exports = { sources, crdDir, gitBlobSha, loadVerified, sourceOf };
