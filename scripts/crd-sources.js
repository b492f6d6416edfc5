'use strict';
// The pinned upstream CRDs of scripts/crd-sources.json, loaded and verified: each comes from CRD_DIR (default
// ../shared/crds) when it is there, else from its pinned URL, and is refused unless its git blob SHA matches.
// Shared by scripts/import-crds.js (imports/) and scripts/generate-schemas.js (schemas/).
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

/** The bytes of one pinned source, verified against its blob SHA. */
async function loadVerified(src) {
  const local = path.join(crdDir, src.file);
  let buf;
  if (fs.existsSync(local)) buf = fs.readFileSync(local);
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

module.exports = { sources, crdDir, gitBlobSha, loadVerified };
