'use strict';
// Runs a TypeScript entry point without type-checking: esbuild bundles it (our code only; node_modules stay
// external) and the bundle runs from memory. Type-checking is `npm run typecheck`.
//
// Bundling our sources (with the generated imports/ and schemas/) takes most of a second, so the bundle is
// cached in .build/, keyed by the size and mtime of every source file: an unchanged tree skips esbuild. The
// cache file is written to a temporary name and renamed, so concurrent runs never read a half-written file.
const crypto = require('crypto');
const fs = require('fs');
const path = require('path');

const root = path.resolve(__dirname, '..');
/** Everything a bundle can contain besides the entry itself. */
const SOURCE_DIRS = ['lib', 'imports', 'schemas', 'examples', 'bench/fixtures'];
const SOURCE_FILES = ['main.ts', 'homelab.config.ts', 'package-lock.json', 'scripts/run-ts.js'];

/** Installs the lockfile's exact dependencies on a fresh clone, once. */
function ensureInstalled() {
  if (!fs.existsSync(path.join(root, 'node_modules', '.package-lock.json'))) {
    require('child_process').execFileSync('npm', ['ci', '--no-audit', '--no-fund'], { cwd: root, stdio: 'inherit' });
  }
}

/** A fingerprint of the sources: path, size and mtime of every file, in sorted order. */
function fingerprint(extra, extraFiles) {
  const hash = crypto.createHash('sha1').update(extra);
  const add = (file) => {
    const st = fs.statSync(file, { throwIfNoEntry: false });
    hash.update(`${path.relative(root, file)}\0${st ? `${st.size}:${st.mtimeMs}` : '-'}\n`);
  };
  const walk = (dir) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else add(p);
    }
  };
  for (const d of SOURCE_DIRS) if (fs.existsSync(path.join(root, d))) walk(path.join(root, d));
  for (const f of SOURCE_FILES) add(path.join(root, f));
  // Config modules may import siblings at the project root, and --config may name a file anywhere.
  for (const f of fs.readdirSync(root).filter((n) => n.endsWith('.ts')).sort()) add(path.join(root, f));
  for (const f of extraFiles) add(path.resolve(f));
  return hash.digest('hex').slice(0, 16);
}

function bundle(entryAbs, source, entry) {
  const esbuild = require('esbuild');
  const result = esbuild.buildSync({
    stdin: { contents: source, resolveDir: path.dirname(entryAbs), sourcefile: entry, loader: 'ts' },
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    packages: 'external',
    write: false,
    logLevel: 'error',
  });
  return result.outputFiles[0].text;
}

/** Removes the other cached bundles of `entry`, so .build/ holds one file per entry point. */
function prune(cacheDir, entryName, keep) {
  for (const f of fs.readdirSync(cacheDir)) {
    if (f.startsWith(`${entryName}-`) && path.join(cacheDir, f) !== keep && !f.endsWith('.tmp')) {
      fs.rmSync(path.join(cacheDir, f), { force: true });
    }
  }
}

/**
 * Bundles (or reuses the cached bundle of) `entry`, a path relative to the project root, and runs it with
 * `argv` as its arguments. `transform` may rewrite the entry's source first (used to swap the config module);
 * `extraFiles` are files outside the project's source folders that the bundle reads (such a config module).
 * HOMELAB_NO_BUNDLE_CACHE=1 bundles afresh every time.
 */
function runTs(entry, argv, transform = (source) => source, extraFiles = []) {
  ensureInstalled();
  const entryAbs = path.join(root, entry);
  const outfile = entryAbs.replace(/\.ts$/, '.js');
  const source = transform(fs.readFileSync(entryAbs, 'utf8'));
  const cacheDir = path.join(root, '.build');
  const entryName = path.basename(entry, '.ts');
  const cached = path.join(cacheDir, `${entryName}-${fingerprint(source, extraFiles)}.js`);
  const useCache = process.env.HOMELAB_NO_BUNDLE_CACHE !== '1';
  let code;
  if (useCache && fs.existsSync(cached)) {
    code = fs.readFileSync(cached, 'utf8');
  } else {
    code = bundle(entryAbs, source, entry);
    try {
      fs.mkdirSync(cacheDir, { recursive: true });
      const tmp = `${cached}.${process.pid}.tmp`;
      fs.writeFileSync(tmp, code);
      fs.renameSync(tmp, cached);
      prune(cacheDir, entryName, cached);
    } catch {
      // A read-only checkout just bundles every time.
    }
  }
  process.argv = [process.argv[0], outfile, ...argv];
  const Module = require('module');
  const m = new Module(outfile, module);
  m.filename = outfile;
  m.paths = Module._nodeModulePaths(root);
  m._compile(code, outfile);
}

module.exports = { root, runTs, ensureInstalled };
