#!/usr/bin/env bash
# `make test`'s clock: each phase's wall time in .build/make-test-times.txt, which
# `make bench` (figure 12) reads. `timed.sh --start` begins a new record (first, before the
# Debian packages and the oracle); `timed.sh NAME COMMAND...` runs one phase and adds its line.
record=.build/make-test-times.txt
if [ "$1" = --start ]; then
    mkdir -p .build
    # Fresh: no debug build yet, as in a new clone.
    fresh=no; [ -d .build/debug ] || fresh=yes
    printf 'start %s fresh=%s\n' "$(date +%s.%N)" "$fresh" > "$record"
    exit 0
fi
name=$1; shift
began=$(date +%s.%N)
"$@"; status=$?
printf '%s %s %s %s\n' "$name" "$began" "$(date +%s.%N)" "$status" >> "$record"
exit $status
