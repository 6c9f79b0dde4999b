#!/usr/bin/env bash
# Smoke test of the package as a user gets it: `npm pack`, then install the tarball into a blank CommonJS project
# and a blank ES-module project (`npm init -y`, production dependencies only) and, in each:
#   - `npx assay run` the YAML and the TypeScript examples of docs/config.md (read from the docs, as written);
#   - an internal error's stack names src/ files and lines (the bin's source maps, shipped with their sources);
#   - `require('assay')` and `import 'assay'`, and subpaths (`assay/stats`, `assay/spade`, `assay/store`);
#   - the optional peers (PDF ingest, the transformers embedder) are asked for by name with their install command;
#   - no warning from assay's own npm config, no install script of assay's own; node_modules ≤ 150 MB;
#   - without better-sqlite3's binary (its install script not run), the store says how to build it.
# Then assay/vitest: the tarball and vitest (from the registry) in a blank project with examples/vitest copied in,
# `npx vitest run` (exit 1: one rule fails on purpose; its message carries rate, interval and worst input), under
# this Node and under Node 24 (the registry's `node` package; better-sqlite3 built against its headers), where
# `assay init` and `assay run` run too.
# The matchers' types in that project, under TypeScript 5.9 and 7 with a strict tsconfig (module esnext, bundler):
# the example's own tsconfig (setupFiles route: "types" names assay/vitest/matchers), and a test file using both
# matchers with `import 'assay/vitest/matchers'` above and below `import … from 'vitest'`.
# Needs the npm registry. Run by .ci/run; by hand: bash scripts/smoke-pack.sh (KEEP=1 keeps the folder).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
WORK=$(mktemp -d "${TMPDIR:-/tmp}/assay-smoke-XXXXXX")
[ "${KEEP:-}" = 1 ] && echo "smoke: working in $WORK" || trap 'rm -rf "$WORK"' EXIT
MAX_MB=${ASSAY_SMOKE_MAX_MB:-150}

fail() {
  echo "smoke: FAIL: $*" >&2
  exit 1
}
# expect <code> <log> <command...>: run, keep stdout+stderr in <log>, and insist on the exit code.
expect() {
  local want=$1 log=$2 rc=0
  shift 2
  "$@" >"$log" 2>&1 || rc=$?
  if [ "$rc" != "$want" ]; then
    cat "$log" >&2
    fail "$* exited with $rc, expected $want"
  fi
}

cd "$ROOT"
npm pack --silent --pack-destination "$WORK" >"$WORK/pack.txt"
TARBALL="$WORK/$(tail -n 1 "$WORK/pack.txt")"
echo "smoke: packed $(basename "$TARBALL") ($(du -k "$TARBALL" | cut -f1) kB)"

# The examples exactly as docs/config.md shows them: its first YAML block and the assay.config.ts block.
node --input-type=module - "$ROOT/docs/config.md" "$WORK" <<'EOF'
import { readFileSync, writeFileSync } from 'node:fs';
const [doc, out] = process.argv.slice(2);
const md = readFileSync(doc, 'utf8');
const block = (lang, after = 0) => {
  const start = md.indexOf('```' + lang + '\n', after);
  if (start < 0) throw new Error(`${doc}: no \`\`\`${lang} block`);
  return md.slice(start + lang.length + 4, md.indexOf('\n```', start) + 1);
};
writeFileSync(`${out}/assay.yaml`, block('yaml'));
writeFileSync(`${out}/assay.config.ts`, block('ts', md.indexOf('In `assay.config.ts`, `predicate` is a real function')));
EOF

# The install line README gives until assay is on npm: `npm install ./assay/assay-<version>.tgz`, its version this
# package's (a README that names another version fails here).
README_LINE=$(grep -m1 -E '^npm install \./assay/assay-[^ ]+\.tgz' "$ROOT/README.md" | sed 's/ *#.*//') ||
  fail "README.md: no 'npm install ./assay/assay-<version>.tgz' line (the install before publication)"
[ "$(basename "$(echo "$README_LINE" | grep -oE '\./assay/assay-[^ ]+\.tgz')")" = "$(basename "$TARBALL")" ] ||
  fail "README.md: '$README_LINE' names another tarball than the package packs ($(basename "$TARBALL"))"
README_INSTALL=$(echo "$README_LINE" | sed "s#\./assay/assay-[^ ]*\.tgz#$TARBALL#")

for kind in cjs esm; do
  P="$WORK/$kind"
  mkdir -p "$P"
  cd "$P"
  npm init -y >/dev/null
  [ "$kind" = esm ] && npm pkg set type=module
  # README's install line before publication, as written, its tarball's path pointed at the one packed here.
  expect 0 install.log $README_INSTALL --no-audit --no-fund
  if grep -q 'Unknown project config' install.log; then cat install.log >&2; fail "$kind: npm warns about a project config"; fi
  if grep -q '^npm warn install-scripts *assay@' install.log; then cat install.log >&2; fail "$kind: assay itself has an install script"; fi
  mb=$(du -sm node_modules | cut -f1)
  echo "smoke: $kind: installed, node_modules $mb MB; npm's install-scripts notice lists: $(grep -oE '^npm warn install-scripts +[^ ]+@[^ ]+' install.log | awk '{print $4}' | tr '\n' ' ')"
  [ "$mb" -le "$MAX_MB" ] || fail "$kind: node_modules is $mb MB, more than $MAX_MB MB"

  cp "$WORK/assay.yaml" "$WORK/assay.config.ts" .
  expect 0 version.log npx --no-install assay --version
  # An internal error of the installed bin (stdout's write made to throw, from outside) prints its stack in
  # terms of the sources, from the maps the package ships: src/ files and lines, no frame in the bundle.
  printf 'process.stdout.write = () => { throw new TypeError("stdout refused the write"); };\n' >refuse.mjs
  expect 3 internal.log node --import ./refuse.mjs node_modules/assay/dist/cli/main.js --version
  grep -q 'at main (.*node_modules/assay/src/cli/main\.ts:[0-9]*:[0-9]*)$' internal.log || { cat internal.log >&2; fail "$kind: the internal error's stack names no line of src/cli/main.ts"; }
  if grep -q 'dist/cli/' internal.log; then cat internal.log >&2; fail "$kind: the internal error's stack names the bundle"; fi
  # The YAML example is built to fail its 0.95 target (true rate 0.9): exit 1 with the validator's row.
  expect 1 yaml.log npx --no-install assay run assay.yaml --no-progress
  grep -q 'contraction_validator' yaml.log || fail "$kind: the YAML run printed no validator row"
  expect 0 ts.log npx --no-install assay run assay.config.ts --no-progress
  grep -q 'names_customer' ts.log || fail "$kind: the TypeScript run printed no names_customer row"

  printf "const a = require('assay');\nconst s = require('assay/stats');\nif (typeof a.defineConfig !== 'function' || typeof a.runExperiment !== 'function' || typeof s.wilson !== 'function') process.exit(1);\n" >require.cjs
  printf "import { defineConfig } from 'assay';\nimport { select } from 'assay/spade';\nimport { openSqliteStore } from 'assay/store';\nif (typeof defineConfig !== 'function' || typeof select !== 'function' || typeof openSqliteStore !== 'function') process.exit(1);\n" >import.mjs
  expect 0 require.log node require.cjs
  expect 0 import.log node import.mjs

  # Optional peers are not installed with assay: the features that need them say which package, and how.
  printf 'Photosynthesis turns light into chemical energy.\n' >note.txt
  printf '%%PDF-1.4\n' >doc.pdf
  expect 2 pdf.log npx --no-install assay kb ingest doc.pdf --kb kb-pdf
  grep -q 'npm install pdfjs-dist' pdf.log || { cat pdf.log >&2; fail "$kind: PDF ingest did not name pdfjs-dist"; }
  expect 2 tf.log npx --no-install assay kb ingest note.txt --kb kb-tf --embedder transformers
  grep -q 'npm install @huggingface/transformers' tf.log || { cat tf.log >&2; fail "$kind: the transformers embedder did not name its package"; }
  expect 0 kb.log npx --no-install assay kb ingest note.txt --kb kb-lex
  # The README's first steps: a starter config, then `assay run` with no argument (it finds ./assay.yaml).
  mkdir -p starter && (cd starter && expect 0 ../init.log npx --no-install assay init && expect 0 ../starter.log npx --no-install assay run --no-progress)
  if [ "$kind" = cjs ]; then
    # Where npm did not run better-sqlite3's install script (denied, --ignore-scripts), the store says how to fix it.
    mv node_modules/better-sqlite3/build "$WORK/better-sqlite3-build"
    expect 3 native.log npx --no-install assay run assay.yaml --no-progress --store fresh.db
    mv "$WORK/better-sqlite3-build" node_modules/better-sqlite3/build
    grep -q 'npm rebuild better-sqlite3' native.log || { cat native.log >&2; fail "the store did not say how to build better-sqlite3"; }
  fi
  echo "smoke: $kind: assay --version, an internal error in src/ terms, run YAML (exit 1 as designed), run TS (exit 0), require, import, optional peers named, init + run: ok"
done
# vitest_example <label>: in the current folder (the tarball and vitest installed), run the example project.
vitest_example() {
  cp "$ROOT"/examples/vitest/{vitest.config.mts,mock-llm.ts,support-bot.test.ts,answers.test.ts} .
  expect 1 vitest.log env NO_COLOR=1 CI=1 npx --no-install vitest run
  # better-sqlite3 12 aborts a Vitest worker on Node 24 if a statement is collected after its database closed
  # (src/store/sqlite-retain.ts keeps them): the abort is checked by name.
  if grep -q 'Assertion failed: (env) != nullptr' vitest.log; then
    cat vitest.log >&2
    fail "$1: a Vitest worker aborted at exit in better-sqlite3's Statement destructor (a statement collected after its store closed)"
  fi
  grep -q '✓ short' vitest.log || { cat vitest.log >&2; fail "$1: the passing rule did not pass"; }
  # Vitest lists a passing file's tests one by one only when one is slow (> 300 ms); else "✓ answers.test.ts (2 tests)".
  grep -Eq '✓ (delivery answers stay short, reliably|answers\.test\.ts \(2 tests\))' vitest.log || { cat vitest.log >&2; fail "$1: toHoldReliably did not pass"; }
  grep -Eq 'no-apology-loop: FAIL · rate [0-9.]+% \[[0-9.]+%, [0-9.]+%\] \(95% CI(, inputs run)?\) · minSuccess 95\.0% · errors 0\.0%' vitest.log ||
    { cat vitest.log >&2; fail "$1: the failing rule's message has no rate, interval and error share"; }
  grep -q '#2 "I want a refund": ' vitest.log || { cat vitest.log >&2; fail "$1: the failing rule's message names no worst input"; }
  grep -q 'assay · support-bot.test.ts › support bot' vitest.log || { cat vitest.log >&2; fail "$1: the reporter printed no reliability table"; }
  echo "smoke: $1: assay/vitest example (exit 1 as designed: short passed, no-apology-loop failed with its message): ok"
}
# matcher_types: in the current folder (the example copied in, TypeScript 5.9 as `typescript`, 7 as `typescript7`),
# `tsc --noEmit` over each documented way to get the matchers' types. Each must compile with no error.
matcher_types() {
  cp "$ROOT"/examples/vitest/tsconfig.json .
  mkdir -p types
  for order in above below; do
    {
      [ "$order" = above ] && echo "import 'assay/vitest/matchers';"
      echo "import { expect, test } from 'vitest';"
      [ "$order" = below ] && echo "import 'assay/vitest/matchers';"
      cat <<'TS'
declare function answer(question: string): Promise<string>;
test('both matchers', async () => {
  expect('arrives tomorrow').toSatisfy({ type: 'contains', value: 'tomorrow' });
  expect('{}').toSatisfy({ name: 'json-out', check: { type: 'json' } });
  expect(3).toSatisfy((x: number) => x > 2);
  await expect(() => answer('Where is my order?')).toHoldReliably({ type: 'words', max: 40 }, { samples: 80, minSuccess: 0.95 });
});
TS
    } >"types/import-$order.test.ts"
    printf '{ "compilerOptions": { "strict": true, "module": "esnext", "moduleResolution": "bundler", "types": ["node"], "noEmit": true, "target": "ES2022" }, "files": ["import-%s.test.ts"] }\n' "$order" >"types/tsconfig.$order.json"
  done
  for tsc in typescript typescript7; do
    local v
    v=$(node "node_modules/$tsc/bin/tsc" --version)
    expect 0 tsc-example.log node "node_modules/$tsc/bin/tsc" -p tsconfig.json
    for order in above below; do expect 0 "tsc-$order.log" node "node_modules/$tsc/bin/tsc" -p "types/tsconfig.$order.json"; done
    echo "smoke: matcher types ($v, strict, bundler): the example (setupFiles + \"types\"), import above and below vitest: ok"
  done
}
VITEST_SPEC="vitest@$(node -p "require('$ROOT/package.json').devDependencies.vitest")"
TS_SPECS=("typescript@$(node -p "require('$ROOT/package.json').devDependencies.typescript")" "typescript7@npm:typescript@7" "@types/node@20")
P="$WORK/vitest" && mkdir -p "$P" && cd "$P"
npm init -y >/dev/null && npm pkg set type=module
expect 0 install.log npm install --no-audit --no-fund "$TARBALL" "$VITEST_SPEC" "${TS_SPECS[@]}"
vitest_example "node $(node --version)"
matcher_types

# Node 24 from the registry: its package carries the headers better-sqlite3 is compiled against.
N24="$WORK/node24" && mkdir -p "$N24" && cd "$N24"
npm init -y >/dev/null
expect 0 install.log npm install --no-audit --no-fund node@24
NODE24_DIR=$(echo "$N24"/node_modules/node/node_modules/node-linux-*)
P="$WORK/vitest-node24" && mkdir -p "$P" && cd "$P"
(
  export PATH="$N24/node_modules/node/bin:$PATH" npm_config_nodedir="$NODE24_DIR"
  case "$(node --version)" in v24.*) ;; *) fail "node@24 gave $(node --version)" ;; esac
  npm init -y >/dev/null && npm pkg set type=module
  expect 0 install.log npm install --no-audit --no-fund "$TARBALL" "$VITEST_SPEC"
  vitest_example "node $(node --version)"
  # The bin (a bundle, with Node's compile cache from 22.1) under Node 24: the README's first steps.
  mkdir -p starter && (cd starter && expect 0 ../init24.log npx --no-install assay init && expect 0 ../starter24.log npx --no-install assay run --no-progress)
  echo "smoke: node $(node --version): assay init + run: ok"
)
echo "smoke: ok"
