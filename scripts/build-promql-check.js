#!/usr/bin/env node
// Builds tools/promql-check, Prometheus v3.14.0's own rule-file loader (model/rulefmt with promql/parser, what
// `promtool check rules` runs) as a small Go program the tests of the backup alerts run over every generated
// PrometheusRule. Modules come from the Go module proxy; the binary is cached in ~/.cache/homelab-gitops/, keyed by
// the Prometheus module version and a hash of the helper's go.mod, go.sum and main.go, so a change rebuilds it.
//
//   node scripts/build-promql-check.js          build when missing, print the binary's path
//   node scripts/build-promql-check.js --path   print where the binary is (or would be); build nothing
//
// Needs Go (>= the go line of tools/promql-check/go.mod).
'use strict';
const { goHelper } = require('./go-helper');

const helper = goHelper('promql-check', /github\.com\/prometheus\/prometheus (v\S+)/);

module.exports = { helperPath: helper.helperPath };

if (require.main === module) helper.main();
