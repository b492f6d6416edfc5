#!/usr/bin/env node
// Rewrites a copied kustomization for an offline `kubectl kustomize`: every http(s) resource is replaced by
// stubs.yaml, holding one minimal object per patch target; secretGenerator files get a dummy placeholder.
'use strict';
const fs = require('fs');
const path = require('path');
const YAML = require('yaml');

const dir = process.argv[2];
const file = path.join(dir, 'kustomization.yaml');
const k = YAML.parse(fs.readFileSync(file, 'utf8'));
const remote = (k.resources ?? []).filter((r) => /^https?:\/\//.test(r));
if (remote.length > 0) {
  // A patch file names its object; an inline JSON 6902 patch names it in `target` (a workload stub then has the one
  // container with resources that such patches address).
  const fromFiles = (k.patches ?? []).filter((p) => p.path !== undefined)
    .flatMap((p) => YAML.parseAllDocuments(fs.readFileSync(path.join(dir, p.path), 'utf8')))
    .map((d) => d.toJSON())
    .map((o) => ({
      apiVersion: o.apiVersion,
      kind: o.kind,
      // a patch that names a namespace only matches an object in it
      metadata: { name: o.metadata.name, ...(o.metadata.namespace ? { namespace: o.metadata.namespace } : {}) },
    }));
  const fromTargets = (k.patches ?? []).filter((p) => p.path === undefined && p.target?.name !== undefined)
    .map(({ target: t }) => ({
      apiVersion: t.group ? `${t.group}/${t.version}` : t.version,
      kind: t.kind,
      metadata: { name: t.name, ...(t.namespace ? { namespace: t.namespace } : {}) },
      ...(t.kind === 'Deployment' ? { spec: { template: { spec: { containers: [{ name: 'stub', image: 'stub', resources: {} }] } } } } : {}),
    }));
  const stubs = [...fromFiles, ...fromTargets];
  fs.writeFileSync(path.join(dir, 'stubs.yaml'), stubs.map((s) => YAML.stringify(s)).join('---\n'));
  k.resources = [...k.resources.filter((r) => !remote.includes(r)), 'stubs.yaml'];
}
for (const gen of k.secretGenerator ?? []) {
  for (const f of gen.files ?? []) {
    const name = f.includes('=') ? f.split('=')[1] : f;
    fs.writeFileSync(path.join(dir, name), 'placeholder-not-a-secret\n');
  }
}
fs.writeFileSync(file, YAML.stringify(k));
