#!/usr/bin/env bash
# Writes .build/storefront-commit.h with the commit being built (`git describe
# --always --dirty`), for `storefront --version`; rewrites it only when the commit
# changed, so an unchanged tree does not recompile. Outside a git checkout (a
# tarball) the commit is empty and the binary says "unknown commit".
set -euo pipefail
cd "$(dirname "$0")/.."
commit=$(git describe --always --dirty --abbrev=12 2>/dev/null || true)
# Only characters that are safe inside a C string literal.
commit=$(printf '%s' "$commit" | tr -cd 'A-Za-z0-9._+-')
header=.build/storefront-commit.h
content="#define STOREFRONT_COMMIT \"$commit\""
mkdir -p .build
if [ ! -f "$header" ]; then
  echo "$content" > "$header"
  # A build before the header existed did not list it as a dependency: recompile once.
  touch Sources/CBuildInfo/build_info.c
elif [ "$(cat "$header")" != "$content" ]; then
  echo "$content" > "$header"
fi
