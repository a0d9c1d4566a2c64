#!/usr/bin/env bash
# Counts the SQL statements one CLI purchase sends to a PostgreSQL store (issue 44), from the
# server's own log (`log_statement = 'all'`): a figure for docs/performance.md.
#
#   scripts/with-postgres.sh scripts/count-statements.sh [BINARY] [PRODUCT]
#
# BINARY defaults to .build/debug/storefront, PRODUCT to a non-consumable of products.json.
# Creates a store from products.json (not counted), then runs `buy PRODUCT` and prints how many
# statements it sent; with STOREFRONT_COUNT_LIST=1, each of them too (their first line).
# Needs the cluster scripts/with-postgres.sh starts (it exports STOREFRONT_TEST_POSTGRES).
set -euo pipefail
cd "$(dirname "$0")/.."
binary=${1:-.build/debug/storefront}
product=${2:-com.razeware.razefaces.swiftshopping}
uri=${STOREFRONT_TEST_POSTGRES:?run under scripts/with-postgres.sh}
# with-postgres.sh's cluster: its socket folder is in the URI, its log is server.log there.
folder=$(sed -n 's/.*[?&]host=\([^&]*\).*/\1/p' <<<"$uri")
log=$folder/server.log
[ -f "$log" ] || { echo "count-statements: no server log at $log" >&2; exit 1; }
psql() { command psql -X -q -v ON_ERROR_STOP=1 -At "$uri" "$@"; }

"$binary" --store "$uri" --catalog products.json products >/dev/null
psql -c "ALTER SYSTEM SET log_statement = 'all'" -c "SELECT pg_reload_conf()" >/dev/null
# The reload reaches the server's processes asynchronously: wait until a new session logs.
until psql -c "SELECT 'count-statements ready'" >/dev/null && grep -q "count-statements ready" "$log"; do sleep 0.1; done
start=$(wc -l <"$log")
"$binary" --store "$uri" buy "$product" >/dev/null
# Each statement is logged as it runs: the purchase's are all in by the time it exits.
lines=$(tail -n +"$((start + 1))" "$log" | head -n "$(($(wc -l <"$log") - start))")
psql -c "ALTER SYSTEM RESET log_statement" -c "SELECT pg_reload_conf()" >/dev/null
# Simple protocol logs `statement:`, prepared statements `execute NAME:` (their parameters on a
# `DETAIL:` line after).
statements=$(grep -E 'LOG:  (statement|execute [^:]*):' <<<"$lines" || true)
if [ "${STOREFRONT_COUNT_LIST:-}" = 1 ]; then
  grep -E 'LOG:  (statement|execute [^:]*):|DETAIL:  [Pp]arameters:' <<<"$lines" |
    sed -E 's/.*LOG:  (statement|execute [^:]*): //; s/.*DETAIL:  [Pp]arameters: /    with /'
fi
echo "buy $product: $(grep -c . <<<"$statements") statements"
