#!/usr/bin/env node
// On a fresh clone, installs exactly the lockfile's dependencies (npm ci) before the first synth or test,
// so the README's two commands work as they are. Does nothing once node_modules is installed.
'use strict';
require('./run-ts').ensureInstalled();
