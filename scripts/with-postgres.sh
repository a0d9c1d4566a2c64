#!/usr/bin/env bash
# Runs COMMAND... beside a throwaway PostgreSQL cluster: one for the whole `make test` run.
#
#   scripts/with-postgres.sh COMMAND...
#
# Starts a real cluster in a new folder under /dev/shm or /tmp (below), listening on a Unix socket in that folder
# only (listen_addresses=''), exports STOREFRONT_TEST_POSTGRES (a libpq URI naming the socket
# folder, its port and the superuser), runs the command, then stops the cluster and removes the folder
# whatever the command's exit. Exits with the command's status; fails, saying why (the server
# log's tail), when the cluster cannot start: a backend skipped is not a backend passing.
#
# PostgreSQL refuses to run as root. As root, initdb and the server run as the `postgres` user
# (else `nobody`) through setpriv, and because /etc/passwd may be readable by root only, with
# libnss-wrapper (LD_PRELOAD) answering their user look-ups from a passwd and a group file of
# their own in the folder. Not root: they run as the caller. Sources/TestSupport/PostgreSQLServer.swift
# does the same for `swift test` run by hand; docs/postgresql-tests.md says why.
set -euo pipefail

if [ $# -eq 0 ]; then
  echo "usage: $0 COMMAND..." >&2
  exit 2
fi
fail() {
  echo "with-postgres: $*" >&2
  exit 1
}

# The newest installed server (Debian's postgresql-NN puts it in /usr/lib/postgresql/NN/bin).
bin=${STOREFRONT_POSTGRES_BIN:-}
if [ -z "$bin" ]; then
  for candidate in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V); do
    [ -x "$candidate/initdb" ] && bin=$candidate
  done
fi
[ -n "$bin" ] && [ -x "$bin/initdb" ] && [ -x "$bin/pg_ctl" ] ||
  fail "no PostgreSQL server found in /usr/lib/postgresql/*/bin (install it: scripts/install-deps.sh)"

# In memory when the machine has room (/dev/shm, a tmpfs of 4 GB free or more): the runs make a
# store's ~50 tables and indexes hundreds of times, and each costs ~5 ms in files on a disk
# (ext4 on a virtual disk here: 250 ms a store, 50 in memory). Else /tmp.
# Short: the socket's path (folder + /.s.PGSQL.5432) must fit in 107 bytes.
base=/tmp
if [ "$(stat -f -c %T /dev/shm 2>/dev/null)" = tmpfs ] &&
   [ "$(df -Pk /dev/shm 2>/dev/null | awk 'NR == 2 { print $4 }')" -ge $((4 * 1024 * 1024)) ] 2>/dev/null; then
  base=/dev/shm
fi
folder=$(mktemp -d "$base/storefront-pg.XXXXXX")
data=$folder/data
log=$folder/server.log
# The cluster's superuser, whatever the OS user running it.
superuser=postgres

as_server=()
if [ "$(id -u)" -eq 0 ]; then
  wrapper=$(ls /usr/lib/*/libnss_wrapper.so /usr/lib/libnss_wrapper.so 2>/dev/null | head -n 1 || true)
  [ -n "$wrapper" ] || fail "running as root needs libnss_wrapper.so (Debian's libnss-wrapper: scripts/install-deps.sh)"
  command -v setpriv >/dev/null || fail "running as root needs setpriv (util-linux)"
  account=$(getent passwd postgres || getent passwd nobody || true)
  [ -n "$account" ] || fail "neither a postgres nor a nobody user to run the server as"
  IFS=: read -r name _ uid gid _ <<<"$account"
  printf '%s:x:%s:%s:PostgreSQL test cluster:%s:/bin/false\n' "$name" "$uid" "$gid" "$folder" > "$folder/passwd"
  printf '%s:x:%s:\n' "$name" "$gid" > "$folder/group"
  chmod 644 "$folder/passwd" "$folder/group"
  chown "$uid:$gid" "$folder"
  as_server=(setpriv --reuid="$uid" --regid="$gid" --clear-groups
             env LD_PRELOAD="$wrapper" NSS_WRAPPER_PASSWD="$folder/passwd" NSS_WRAPPER_GROUP="$folder/group")
fi
chmod 700 "$folder"
# The server's own tools, in the folder (the caller's may be one the server's user cannot enter),
# without the caller's PG* settings.
server() { (cd "$folder" && env -u PGHOST -u PGPORT -u PGDATA -u PGUSER -u PGDATABASE "${as_server[@]}" "$@"); }

stop() {
  if [ -f "$data/postmaster.pid" ]; then
    server "$bin/pg_ctl" -D "$data" -m fast -w -t 60 stop >/dev/null 2>&1 ||
      server "$bin/pg_ctl" -D "$data" -m immediate -w stop >/dev/null 2>&1 || true
  fi
  rm -rf "$folder"
}
trap stop EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

began=$(date +%s%N)
# --no-sync: initdb's files are not flushed to disk; the cluster lives for one run, and so does the
# server's fsync (below): a commit still reaches the kernel before it returns, so a server killed
# or stopped by a test loses nothing; only the machine's own crash would, which ends the run anyway.
# The bench's cluster (storefront-bench) keeps fsync on: it measures durable commits.
if ! server "$bin/initdb" -D "$data" -U "$superuser" -A trust -E UTF8 --no-locale --no-sync >"$folder/initdb.log" 2>&1; then
  tail -n 20 "$folder/initdb.log" >&2
  fail "initdb failed (above)"
fi
# Password roles: a member of storefront_password_users signs in with its password (the tests of
# a wrong password); everyone else is trusted, on a socket only this machine reaches.
cat > "$data/pg_hba.conf" <<EOF
# A test cluster (scripts/with-postgres.sh): a Unix socket only.
local all +storefront_password_users scram-sha-256
local all all trust
EOF
cat >> "$data/postgresql.conf" <<EOF

# A test cluster (scripts/with-postgres.sh): a Unix socket in its folder, no TCP.
listen_addresses = ''
unix_socket_directories = '$folder'
port = 5432
max_connections = 1000
fsync = off
EOF
[ "$(id -u)" -ne 0 ] || chown "$uid:$gid" "$data/pg_hba.conf"
if ! server "$bin/pg_ctl" -D "$data" -l "$log" -w -t 60 start >"$folder/pg_ctl.log" 2>&1; then
  cat "$folder/pg_ctl.log" >&2
  tail -n 20 "$log" >&2 || true
  fail "the PostgreSQL server did not start (its log's tail above)"
fi
psql_ok=$(env -u PGPASSWORD -u PGSERVICE "$bin/psql" -X -q -v ON_ERROR_STOP=1 -h "$folder" -p 5432 -U "$superuser" -d postgres -At \
  -c 'CREATE ROLE storefront_password_users NOLOGIN' -c 'SELECT 1' 2>&1) ||
  fail "the server started but does not answer: $psql_ok"
elapsed=$(( ($(date +%s%N) - began) / 1000000 ))
# The port too: the socket's name, which a caller's PGPORT would otherwise change.
export STOREFRONT_TEST_POSTGRES="postgresql:///postgres?host=$folder&port=5432&user=$superuser"
echo "with-postgres: PostgreSQL $("$bin/postgres" --version | awk '{print $3}') on $folder (started in $elapsed ms)" >&2

status=0
"$@" || status=$?
exit $status
