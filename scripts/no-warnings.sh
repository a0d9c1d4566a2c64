#!/usr/bin/env bash
# Runs a build command with its output shown as it comes, and fails when the build fails or
# printed a warning (`make test`: CI fails on a new warning). SwiftPM prints a file's warnings
# only when it compiles that file, so a fresh build (CI's) sees them all.
set -o pipefail
log=$(mktemp)
trap 'rm -f "$log"' EXIT
"$@" 2>&1 | tee "$log" || exit $?
if grep -Eq '(^|: )warning: ' "$log"; then
    echo "error: the build printed warnings (make test allows none):" >&2
    grep -E '(^|: )warning: ' "$log" | sort -u >&2
    exit 1
fi
