#!/usr/bin/env node
// Builds tools/actionlint, rhysd/actionlint v1.7.12's own command (the version tools/actionlint/go.mod pins), which
// .ci/run runs over the generated pull-request workflows (.github/workflows/pr-review.yaml,
// .forgejo/workflows/pr-review.yaml). Modules come from the Go module proxy; the binary is cached in
// ~/.cache/homelab-gitops/, keyed by the actionlint module version and a hash of the helper's go.mod, go.sum and
// main.go, so a change rebuilds it. actionlint runs shellcheck over every `run:` block when shellcheck is on PATH
// (scripts/install-tools.sh installs it).
//
//   node scripts/build-actionlint.js          build when missing, print the binary's path
//   node scripts/build-actionlint.js --path   print where the binary is (or would be); build nothing
//
// Needs Go (>= the go line of tools/actionlint/go.mod).
'use strict';
const { goHelper } = require('./go-helper');

const helper = goHelper('actionlint', /github\.com\/rhysd\/actionlint (v\S+)/);

module.exports = { helperPath: helper.helperPath };

if (require.main === module) helper.main();
