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
const { goHelper } = require('./go-helper');

const helper = goHelper('cnpg-webhook', /github\.com\/cloudnative-pg\/cloudnative-pg (v\S+)/);

module.exports = { helperPath: helper.helperPath };

if (require.main === module) helper.main();
