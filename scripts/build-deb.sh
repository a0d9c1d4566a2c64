#!/usr/bin/env bash
# `make deb`: builds .build/deb/storefront_VERSION_ARCH.deb with dpkg-deb from the
# release binary. The layout is scripts/install.sh's with PREFIX=/usr; Depends
# names the Debian package of every library the binary and the shipped Swift
# runtime link (found with `dpkg -S` on what `ldd` resolves) and of libmicrohttpd,
# libcurl and libpq, which serve and a PostgreSQL store load when needed, at least
# the version built against.
# Usage: build-deb.sh [BINARY]   (default .build/release/storefront)
set -euo pipefail
cd "$(dirname "$0")/.."
binary=${1:-.build/release/storefront}
out=$PWD/.build/deb
root=$out/root
version=$("$binary" --version | awk '{ print $2 }')
arch=$(dpkg --print-architecture)

rm -rf "$root"
mkdir -p "$root/DEBIAN"
./scripts/install.sh "$binary" "$root" /usr >/dev/null

# The Debian package that owns a library (usrmerge: the database may list /lib or /usr/lib).
owner() {
  local path
  for path in "$1" "$(readlink -f "$1")" "/usr$1" "${1#/usr}"; do
    dpkg -S "$path" 2>/dev/null | head -n1 | cut -d: -f1 && return 0
  done
  return 1
}
# Loaded at run time, not linked (so not in ldd): libmicrohttpd (CMicroHTTPD) and libcurl, for
# serve and its notification POSTs (CCurl), and libpq when a store is in PostgreSQL (CLibPQ).
dlopened=$(for name in libmicrohttpd.so.12 libcurl.so.4 libpq.so.5; do
  path=$(ldconfig -p | awk -v name="$name" '$1 == name { print $NF; exit }')
  [ -n "$path" ] || { echo "build-deb.sh: $name is not installed" >&2; exit 1; }
  echo "$path"
done)
depends=$(
  { for elf in "$root/usr/bin/storefront" "$root"/usr/lib/storefront/*.so*; do
      [ -e "$elf" ] || continue  # no Swift runtime shipped when it is linked into the binary
      LD_LIBRARY_PATH="$root/usr/lib/storefront" ldd "$elf" | awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }'
    done; echo "$dlopened"; } | grep -v "^$root/" | sort -u | while read -r lib; do
    package=$(owner "$lib") || { echo "build-deb.sh: no Debian package owns $lib" >&2; exit 1; }
    upstream=$(dpkg-query -W -f '${Version}' "$package" | sed -E 's/-[^-]*$//')
    echo "$package (>= $upstream)"
  done | sort -u | paste -sd, | sed 's/,/, /g'
)
[ -n "$depends" ] || { echo "build-deb.sh: found no dependencies" >&2; exit 1; }

cat > "$root/DEBIAN/control" <<CONTROL
Package: storefront
Version: $version
Architecture: $arch
Maintainer: Storefront developers <storefront@localhost>
Installed-Size: $(du -sk --exclude=DEBIAN "$root" | cut -f1)
Depends: $depends
Section: devel
Priority: optional
Description: StoreKit simulator for Linux terminals
 storefront opens a paywall in the terminal and walks every in-app purchase
 flow of Apple's StoreKit (consumables, non-consumables, subscriptions, restore,
 Ask to Buy, interrupted purchases, refunds, renewals) against a SQLite store
 file; a scriptable command line (--json) runs the same flows in CI.
 .
 The Swift runtime it needs is in the binary (or, from a build that links it
 dynamically, shipped in /usr/lib/storefront).
CONTROL

mkdir -p "$root/usr/share/doc/storefront"
cat > "$root/usr/share/doc/storefront/copyright" <<'COPYRIGHT'
Storefront, a StoreKit simulator for Linux terminals.
/usr/bin/storefront holds the Swift runtime and Foundation of the Swift
toolchain it was built with (or /usr/lib/storefront does, from a dynamically
linked build): Apache License 2.0 with Runtime Library Exception; ICU's data
under the Unicode license.
COPYRIGHT

deb="$out/storefront_${version}_${arch}.deb"
rm -f "$out"/storefront_*.deb
dpkg-deb --root-owner-group -Zxz --build "$root" "$deb" >/dev/null
echo "$deb"
echo "Depends: $depends" >&2
