#!/usr/bin/env bash
# Writes scripts/link-order.txt: the functions of the release binary that the paywall runs
# (10,000 products, 100,000 transactions: first paint, a key press, quit), in the order
# callgrind first lists them. `make release`/`make bench` hand it to lld, which puts those
# functions side by side: the kernel maps 64 KB around every code page a process touches,
# so scattered, they kept ~6 MB more of the binary resident (docs/performance.md, memory).
# A stale list is harmless (functions it no longer names keep the default order); rerun this
# after large changes. Usage: link-order.sh BINARY CATALOG STORE   (e.g. the bench's
# .build/release/storefront, .build/bench/catalog-10000.json, .build/bench/history-100000.sqlite)
set -euo pipefail
cd "$(dirname "$0")/.."
binary=$1 catalog=$2 store=$3
work=$(mktemp -d)
trap 'tmux kill-session -t link-order 2>/dev/null || true; rm -rf "$work"' EXIT
# valgrind cannot read the binary's DWARF; its symbol table is all this needs.
strip -g -o "$work/storefront" "$binary"
sqlite3 "$store" ".backup $work/store.sqlite"
tmux new-session -d -s link-order -x 100 -y 30 \
  "valgrind --tool=callgrind --demangle=no --callgrind-out-file=$work/callgrind.out $work/storefront \
     --catalog $catalog --store $work/store.sqlite --latency 0 2>$work/valgrind.log; touch $work/done"
for _ in $(seq 1 600); do
  # The table's heading, not "Restore Purchases": the loading screen shows that button too, and a
  # list taken before the paint misses the table's measure of every product.
  sleep 0.5; tmux capture-pane -p -t link-order | grep -q "PRODUCT" && break
done
sleep 1; tmux send-keys -t link-order Down; sleep 2; tmux send-keys -t link-order q
for _ in $(seq 1 120); do [ -e "$work/done" ] && break; sleep 0.5; done
[ -s "$work/callgrind.out" ] || { echo "link-order.sh: callgrind wrote nothing; see valgrind's log:" >&2; cat "$work/valgrind.log" >&2; exit 1; }
# Function names per object (callgrind compresses them: "fn=(12) name" once, "fn=(12)" after).
awk -v binary="$work/storefront" '
  match($0, /^c?ob=\([0-9]+\)/) { id = substr($0, 4 + (substr($0,1,1) == "c"), RLENGTH - 3 - (substr($0,1,1) == "c"));
    if (length($0) > RLENGTH) objects[id] = substr($0, RLENGTH + 2)
    if (substr($0, 1, 2) == "ob") current = objects[id]; next }
  match($0, /^c?fn=\([0-9]+\)/) { id = substr($0, 4 + (substr($0,1,1) == "c"), RLENGTH - 3 - (substr($0,1,1) == "c"));
    if (length($0) > RLENGTH) names[id] = substr($0, RLENGTH + 2)
    if (substr($0, 1, 2) == "fn" && current == binary) { name = names[id]; sub(/'"'"'[0-9]+$/, "", name)
      if (name !~ /^0x/ && name != "(below main)" && !(name in seen)) { seen[name] = 1; print name } } }
' "$work/callgrind.out" > scripts/link-order.txt
echo "link-order.sh: $(wc -l < scripts/link-order.txt) functions in scripts/link-order.txt" >&2
