'use strict';
// Runs a TypeScript entry point without type-checking: esbuild bundles it, with the packages it uses, and the
// bundle runs from memory. Type-checking is `npm run typecheck`.
//
// One bundle with its dependencies inside loads faster than our code plus node_modules: Node resolves, reads
// and compiles no module files, and V8's code cache (below) covers cdk8s and cdk8s-plus too.
//
// The homelab config is a bundle of its own. The entry's `homelab.config` import is left out of the entry bundle
// and answered at run time by the config's bundle, so editing the config (or passing `--config`) rebuilds a small
// bundle in a few milliseconds, while the entry bundle (about 4 MB, a second or two of esbuild) is rebuilt only
// when lib/ or the packages change. A config module is data: it gets its own copy of any lib/ helper it imports.
//
// Bundles are cached in .build/, each with the files esbuild read for it (its metafile inputs) and their sizes
// and modification times; a bundle is reused while all of them are unchanged. Files are written under a
// temporary name and renamed, so concurrent runs never read a half-written file.
const crypto = require('crypto');
const fs = require('fs');
const path = require('path');

const root = path.resolve(__dirname, '..');
const cacheDir = path.join(root, '.build');
/** What the entry bundle requires in place of its `homelab.config` import; `execute` answers it. */
const CONFIG_SPECIFIER = 'homelab:config';
/** The entry's import of the config, e.g. `./homelab.config` or `../../homelab.config`. */
const CONFIG_IMPORT = /(['"])(\.\.?\/)+homelab\.config\1/g;
/** Most bundles kept in .build/; the least recently used go first. */
const MAX_CACHED_BUNDLES = 24;

/** Installs the lockfile's exact dependencies on a fresh clone, once. */
function ensureInstalled() {
  if (!fs.existsSync(path.join(root, 'node_modules', '.package-lock.json'))) {
    require('child_process').execFileSync('npm', ['ci', '--no-audit', '--no-fund'], { cwd: root, stdio: 'inherit' });
  }
}

function stamp(file) {
  const st = fs.statSync(file, { throwIfNoEntry: false });
  return st ? `${st.size}:${st.mtimeMs}` : '-';
}

function hash(text) {
  return crypto.createHash('sha1').update(text).digest('hex').slice(0, 12);
}

/** Writes `content` to `file` under a temporary name first. */
function writeAtomically(file, content) {
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, content);
  fs.renameSync(tmp, file);
}

/**
 * The cached bundle `name` when it is still fresh: every file esbuild read for it (and this script) has the size
 * and modification time it had then. A hit marks the bundle as used, for pruning.
 */
function cachedBundle(name) {
  let inputs;
  try {
    inputs = JSON.parse(fs.readFileSync(path.join(cacheDir, `${name}.inputs.json`), 'utf8'));
  } catch {
    return undefined;
  }
  if (!inputs.every(([input, st]) => st !== '-' && stamp(path.resolve(root, input)) === st)) return undefined;
  try {
    const file = path.join(cacheDir, `${name}.js`);
    const now = new Date();
    fs.utimesSync(file, now, now);
    return readSource(file);
  } catch {
    return undefined;
  }
}

/**
 * Bundles `source` (the text of `entryAbs`, possibly rewritten) into one CommonJS file. `externalPackages`
 * leaves packages as `require` calls (a config needs no copy of them).
 */
function bundle(entryAbs, source, { externalPackages }) {
  const esbuild = require('esbuild');
  const result = esbuild.buildSync({
    // Named as the file it replaces, so the metafile lists the entry under its own path.
    stdin: { contents: source, resolveDir: path.dirname(entryAbs), sourcefile: path.basename(entryAbs), loader: 'ts' },
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    // Whitespace only: names stay readable in stack traces, and the bundle is a third smaller to read and parse.
    minifyWhitespace: true,
    external: [CONFIG_SPECIFIER],
    ...(externalPackages ? { packages: 'external' } : {}),
    metafile: true,
    write: false,
    logLevel: 'error',
  });
  // esbuild names inputs relative to its working directory.
  const inputs = Object.keys(result.metafile.inputs).map((f) => path.resolve(process.cwd(), f));
  return { code: result.outputFiles[0].text, inputs: [...new Set([...inputs, entryAbs, __filename])].sort() };
}

/**
 * The bundle of `entryAbs` (its source rewritten by `transform`): from the cache when fresh, else built and
 * cached. A bundle's first line names its build, and its V8 code cache is stored under that name, so a code
 * cache is only ever used with the exact code it was made from (V8 itself only checks the length).
 */
function loadBundle(entryAbs, transform, options) {
  const kind = options.externalPackages ? 'config' : 'entry';
  const name = `${kind}-${path.basename(entryAbs, '.ts')}-${hash(entryAbs)}`;
  const file = path.join(cacheDir, `${name}.js`);
  const useCache = process.env.HOMELAB_NO_BUNDLE_CACHE !== '1';
  let code = useCache ? cachedBundle(name) : undefined;
  if (code === undefined) {
    const built = bundle(entryAbs, transform(fs.readFileSync(entryAbs, 'utf8')), options);
    code = `//build:${hash(built.code)}\n${built.code}`;
    if (useCache) {
      try {
        fs.mkdirSync(cacheDir, { recursive: true });
        writeAtomically(file, code);
        // Stamps taken after the build: a file edited while esbuild ran makes the next run rebuild.
        writeAtomically(path.join(cacheDir, `${name}.inputs.json`),
          JSON.stringify(built.inputs.map((f) => [path.relative(root, f), stamp(f)])));
        prune(name);
      } catch {
        // A read-only checkout just bundles every time.
      }
    }
  }
  const build = /^\/\/build:([0-9a-f]+)\n/.exec(code)[1];
  return { code, codeCache: useCache ? path.join(cacheDir, `${name}.${build}.v8`) : undefined };
}

/**
 * Removes the code caches of older builds of `current`, then the least recently used bundles beyond
 * MAX_CACHED_BUNDLES, with their side files.
 */
function prune(current) {
  const files = fs.readdirSync(cacheDir);
  for (const f of files) {
    if (f.startsWith(`${current}.`) && f.endsWith('.v8')) fs.rmSync(path.join(cacheDir, f), { force: true });
  }
  const bundles = files.filter((f) => f.endsWith('.js'))
    .map((f) => ({ name: f.slice(0, -3), t: fs.statSync(path.join(cacheDir, f), { throwIfNoEntry: false })?.mtimeMs ?? 0 }))
    .sort((a, b) => b.t - a.t);
  for (const { name } of bundles.slice(MAX_CACHED_BUNDLES)) {
    if (name === current) continue;
    for (const f of files) if (f === `${name}.js` || f.startsWith(`${name}.`)) fs.rmSync(path.join(cacheDir, f), { force: true });
  }
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
 * Bundles (or reuses the cached bundles of) `entry`, a path relative to the project root, and runs it with
 * `argv` as its arguments. With `configFile` (an absolute path), the entry's `homelab.config` import is that
 * module instead of the project's homelab.config.ts. HOMELAB_NO_BUNDLE_CACHE=1 bundles afresh every time.
 */
function runTs(entry, argv, { configFile } = {}) {
  ensureInstalled();
  const entryAbs = path.join(root, entry);
  const outfile = entryAbs.replace(/\.ts$/, '.js');
  const main = loadBundle(entryAbs, (source) => source.replace(CONFIG_IMPORT, JSON.stringify(CONFIG_SPECIFIER)),
    { externalPackages: false });
  // The config bundle is built and run only when the entry bundle requires it.
  let config;
  const configModule = () => {
    if (!config) {
      const configAbs = configFile ?? path.join(root, 'homelab.config.ts');
      const b = loadBundle(configAbs, (source) => source, { externalPackages: true });
      config = execute(b.code, configAbs.replace(/\.ts$/, '.js'), b.codeCache);
    }
    return config;
  };
  process.argv = [process.argv[0], outfile, ...argv];
  execute(main.code, outfile, main.codeCache, (id) => (id === CONFIG_SPECIFIER ? configModule() : undefined));
}

/**
 * Runs `code` as the CommonJS module `outfile` and returns its exports. `resolveSpecial` may answer a require
 * before Node does. With `codeCacheFile`, V8's compiled code is cached next to the bundle, which saves
 * compiling its few megabytes again on every run.
 */
function execute(code, outfile, codeCacheFile, resolveSpecial = () => undefined) {
  const Module = require('module');
  const vm = require('vm');
  const m = new Module(outfile, module);
  m.filename = outfile;
  m.paths = Module._nodeModulePaths(path.dirname(outfile));
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
  const nodeRequire = Module.createRequire(outfile);
  const requireFn = Object.assign((id) => resolveSpecial(id) ?? nodeRequire(id), nodeRequire);
  try {
    fn.call(m.exports, m.exports, requireFn, m, outfile, path.dirname(outfile));
  } finally {
    if (fresh) {
      try {
        writeAtomically(codeCacheFile, script.createCachedData());
      } catch {
        // Without a writable cache the bundle is compiled every time.
      }
    }
  }
  return m.exports;
}

module.exports = { root, runTs, ensureInstalled, loadBundle };
