'use strict';
// Runs a TypeScript entry point without type-checking: esbuild bundles it, with the packages it uses, and the
// bundle runs from memory. Type-checking is `npm run typecheck`.
//
// One bundle with its dependencies inside loads faster than our code plus node_modules: Node resolves, reads
// and compiles no module files, and V8's code cache (below) covers cdk8s and cdk8s-plus too. Bundling takes
// most of a second, so the bundle is cached in .build/, keyed by the size and mtime of every source file and of
// the installed packages' lockfile: an unchanged tree skips esbuild. The cache file is written to a temporary
// name and renamed, so concurrent runs never read a half-written file.
const crypto = require('crypto');
const fs = require('fs');
const path = require('path');

const root = path.resolve(__dirname, '..');
/** Everything a bundle can contain besides the entry itself. */
const SOURCE_DIRS = ['lib', 'imports', 'schemas', 'examples', 'bench/fixtures'];
// node_modules/.package-lock.json is rewritten by every npm install, so a changed dependency rebuilds the bundle.
const SOURCE_FILES = ['main.ts', 'homelab.config.ts', 'package-lock.json', 'node_modules/.package-lock.json', 'scripts/run-ts.js'];

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
    // Whitespace only: names stay readable in stack traces, and the bundle is a third smaller to read and parse.
    minifyWhitespace: true,
    write: false,
    logLevel: 'error',
  });
  return result.outputFiles[0].text;
}

/** Most bundles kept in .build/ (about 7 MB each); the least recently written go first. */
const MAX_CACHED_BUNDLES = 8;

/** Removes the older bundles of a cache slot, then the oldest bundles beyond MAX_CACHED_BUNDLES. */
function prune(cacheDir, slot, keep) {
  const bundles = fs.readdirSync(cacheDir).filter((f) => f.endsWith('.js')).map((f) => path.join(cacheDir, f));
  const withCodeCache = (files) => files.flatMap((f) => [f, f.replace(/\.js$/, '.v8')]);
  const stale = bundles.filter((f) => path.basename(f).startsWith(`${slot}-`) && f !== keep);
  const rest = bundles.filter((f) => !stale.includes(f))
    .map((f) => ({ f, t: fs.statSync(f, { throwIfNoEntry: false })?.mtimeMs ?? 0 }))
    .sort((a, b) => b.t - a.t)
    .slice(MAX_CACHED_BUNDLES)
    .map((x) => x.f)
    .filter((f) => f !== keep);
  for (const f of withCodeCache([...stale, ...rest])) fs.rmSync(f, { force: true });
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
  // One cache slot per entry and transformed source (e.g. per --config file), so alternating configs do not
  // evict each other; within a slot, only the newest bundle is kept.
  const slot = `${path.basename(entry, '.ts')}-${crypto.createHash('sha1').update(source).digest('hex').slice(0, 8)}`;
  const cached = path.join(cacheDir, `${slot}-${fingerprint(source, extraFiles)}.js`);
  const useCache = process.env.HOMELAB_NO_BUNDLE_CACHE !== '1';
  let code;
  if (useCache && fs.existsSync(cached)) {
    code = readSource(cached);
  } else {
    code = bundle(entryAbs, source, entry);
    try {
      fs.mkdirSync(cacheDir, { recursive: true });
      const tmp = `${cached}.${process.pid}.tmp`;
      fs.writeFileSync(tmp, code);
      fs.renameSync(tmp, cached);
      prune(cacheDir, slot, cached);
    } catch {
      // A read-only checkout just bundles every time.
    }
  }
  process.argv = [process.argv[0], outfile, ...argv];
  execute(code, outfile, useCache ? cached.replace(/\.js$/, '.v8') : undefined);
}

/**
 * Reads a bundle. esbuild writes ASCII only (its default `charset`), and an ASCII file read as latin1 is the
 * same string without UTF-8 decoding, which takes a few milliseconds per megabyte.
 */
function readSource(file) {
  const bytes = fs.readFileSync(file);
  return require('buffer').isAscii(bytes) ? bytes.toString('latin1') : bytes.toString('utf8');
}

/**
 * Runs `code` as the CommonJS module `outfile`. With `codeCacheFile`, V8's compiled code is cached next to
 * the bundle, which saves compiling its few megabytes again (a quarter of a second) on every run.
 */
function execute(code, outfile, codeCacheFile) {
  const Module = require('module');
  const vm = require('vm');
  const m = new Module(outfile, module);
  m.filename = outfile;
  m.paths = Module._nodeModulePaths(root);
  let cachedData;
  if (codeCacheFile) {
    try {
      cachedData = fs.readFileSync(codeCacheFile);
    } catch {
      cachedData = undefined;
    }
  }
  const script = new vm.Script(Module.wrap(code), { filename: outfile, cachedData });
  const fresh = codeCacheFile !== undefined && (cachedData === undefined || script.cachedDataRejected);
  const fn = script.runInThisContext();
  try {
    fn.call(m.exports, m.exports, Module.createRequire(outfile), m, outfile, path.dirname(outfile));
  } finally {
    if (fresh) {
      try {
        const tmp = `${codeCacheFile}.${process.pid}.tmp`;
        fs.writeFileSync(tmp, script.createCachedData());
        fs.renameSync(tmp, codeCacheFile);
      } catch {
        // Without a writable cache the bundle is compiled every time.
      }
    }
  }
}

module.exports = { root, runTs, ensureInstalled };
