#!/usr/bin/env node
// Builds tools/lua-health, Argo CD's own Lua health evaluation (argo-cd v3.5.1 util/lua and util/settings,
// gitops-engine health) as a small Go program the tests of lib/constructs/argocd/health-checks.ts run.
// Modules come from the Go module proxy; the binary is cached in ~/.cache/homelab-gitops/, keyed by the
// Argo CD version and a hash of the helper's go.mod, go.sum and main.go, so a change rebuilds it.
//
//   node scripts/build-lua-health.js          build when missing, print the binary's path
//   node scripts/build-lua-health.js --path   print where the binary is (or would be); build nothing
//
// Needs Go (>= the go line of tools/lua-health/go.mod). A first build takes about 6 minutes on 2 cores.
'use strict';
const { goHelper } = require('./go-helper');

const helper = goHelper('lua-health', /github\.com\/argoproj\/argo-cd\/v3 (v\S+)/, 'lua-health-argocd');

module.exports = { helperPath: helper.helperPath };

if (require.main === module) helper.main();
