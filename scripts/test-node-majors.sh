#!/usr/bin/env bash
# Runs the vitest suite on every Node.js major that package.json "engines" claims and that
# is not the machine's own (the npm package `node` brings the others from the registry).
# Usage: scripts/test-node-majors.sh [MAJOR...]   (default: 22 24)
set -euo pipefail
cd "$(dirname "$0")/.."
majors=("${@:-22 24}")
# shellcheck disable=SC2206
majors=(${majors[*]})
own=$(node -p 'process.versions.node.split(".")[0]')
# The package tests (test/package: npm pack, installs into scratch projects, about 2 minutes)
# test the packaging, not Node: they run once, on the machine's own Node (.ci/run's npm test).
export EH_SKIP_PACKAGE_TESTS=1
for major in "${majors[@]}"; do
  if [[ "$major" == "$own" ]]; then continue; fi
  echo "== vitest on Node.js $major"
  npx --yes -p "node@$major" node node_modules/vitest/vitest.mjs run --reporter=dot
done
