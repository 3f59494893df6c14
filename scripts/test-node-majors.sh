#!/usr/bin/env bash
# Runs the suites that depend on Node.js itself on every major that package.json "engines"
# claims and that is not the machine's own (the npm package `node` brings the others from the
# registry). Usage: scripts/test-node-majors.sh [MAJOR...]   (default: 22 24)
#
# Which suites, and why (docs/development.md):
# - the behaviour project (what npm test runs): node:http, undici, fetch, streams and
#   process.execve differ between majors, and every behaviour rests on them;
# - the server and engine attack suites of the slow project: Node's HTTP parser, its timeouts
#   and how it gives memory back differ between majors (Node 22.15+ and 24 take the malloc
#   restart of src/cli/malloc-tuning.ts, Node 20 cannot).
# Not repeated: the package tests (npm pack and installs: the packaging, not Node), fuzz, load
# and the hostile servers (the same code paths as the attack suites, ten times longer), the
# bench's smoke run and the second opinions of other tools (Prism, Mockoon, Respect, Pact's
# verifier: those tools on our Node, not our code on theirs). They run once, on the machine's
# own Node, in .ci/run's npm run test:slow.
set -euo pipefail
cd "$(dirname "$0")/.."
majors=("${@:-22 24}")
# shellcheck disable=SC2206
majors=(${majors[*]})
own=$(node -p 'process.versions.node.split(".")[0]')
for major in "${majors[@]}"; do
  if [[ "$major" == "$own" ]]; then continue; fi
  echo "== vitest on Node.js $major"
  npx --yes -p "node@$major" node node_modules/vitest/vitest.mjs run --reporter=dot --project behaviour
  npx --yes -p "node@$major" node node_modules/vitest/vitest.mjs run --reporter=dot --project slow \
    test/hardening/server-attacks.test.ts test/hardening/engine-attacks.test.ts
done
