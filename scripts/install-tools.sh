#!/usr/bin/env bash
# Installs the command-line tools that the tests and checks use, from Debian packages, when they are missing:
#   - Lua 5.1 runs the generated health checks inside the bring-up simulation (lib/simulation); the
#     health-check tests themselves run them in Argo CD's own Lua VM (scripts/build-lua-health.js);
#   - ShellCheck lints the generated runbook dist/bootstrap/bootstrap.sh (test/output);
#   - yamllint lints the synthesized manifests;
#   - etcd (Debian's etcd-server) is the datastore of the cluster test's kube-apiserver (npm run test:cluster;
#     the API server itself is built from Go modules by scripts/build-control-plane.js);
#   - openssl generates the cluster test's certificates;
#   - Chromium (Debian's) is the browser mermaid-cli drives to render every Mermaid diagram the program writes
#     (npm run diagrams; mermaid-cli itself is the pinned tool package tools/mermaid, which downloads no browser);
#   - BusyBox runs Forgejo's restore script with the `sh` and `tar` of the Alpine-based rclone image (test/constructs/forgejo);
#   - kubectl comes from the Debian package kubernetes-client. Debian 12 ships kubectl 1.20, older than the
#     runbook's minimum, so it serves offline checks only; a machine that already has a kubectl keeps it.
#     Where the package does not exist, a note says so and the other tools still install.
# Safe to re-run: installs nothing when every tool is present. Needs apt-get, and root or sudo.
set -euo pipefail

missing=()
for pair in shellcheck:shellcheck yamllint:yamllint kubectl:kubernetes-client lua5.1:lua5.1 etcd:etcd-server openssl:openssl busybox:busybox chromium:chromium; do
  if ! command -v "${pair%%:*}" >/dev/null 2>&1; then missing+=("${pair#*:}"); fi
done
if [ "${#missing[@]}" -eq 0 ]; then
  echo "install-tools: shellcheck, yamllint, kubectl, lua5.1, etcd, openssl, busybox and chromium are present"
  exit 0
fi

if ! command -v apt-get >/dev/null 2>&1; then
  echo "install-tools: cannot install ${missing[*]}: apt-get not found; install them with your package manager" >&2
  exit 1
fi
sudo=()
if [ "$(id -u)" -ne 0 ]; then sudo=(sudo); fi
export DEBIAN_FRONTEND=noninteractive

echo "install-tools: installing ${missing[*]}"
"${sudo[@]}" apt-get update -qq
available=()
for package in "${missing[@]}"; do
  if apt-cache show "$package" >/dev/null 2>&1; then
    available+=("$package")
  else
    echo "install-tools: NOTE: Debian package '$package' is not available here; skipped" >&2
  fi
done
if [ "${#available[@]}" -gt 0 ]; then
  "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${available[@]}"
fi
for tool in shellcheck yamllint kubectl etcd chromium; do
  if command -v "$tool" >/dev/null 2>&1; then echo "install-tools: $tool: $(command -v "$tool")"; fi
done
