#!/usr/bin/env bash
# `make check-deb`: proves the .deb works without a Swift toolchain.
#
# It installs the package with apt in a fresh Debian of this machine's release
# (debootstrap --variant=minbase, made once under .build/deb-check, used through
# a throwaway overlay so it stays pristine): apt fetches exactly the Depends, and
# no /opt/swift exists there. Then, with an empty environment, it checks that the
# Swift runtime is linked in or comes from /usr/lib/storefront, runs `storefront --version`, a
# catalog check, a purchase into a store file (SQLite, libcrypto, ICU prices), the
# paywall's "no terminal" exit, the man page and completions, and removes the package.
#
# Without network for debootstrap, or with --no-chroot, it falls back to the
# package's files from `dpkg -x`, run in a mount namespace where /opt/swift is
# hidden under an empty tmpfs and /usr/lib/storefront is the package's, with
# LD_LIBRARY_PATH unset.
# Usage: check-deb.sh [--no-chroot] [PACKAGE.deb]   (run as root)
set -euo pipefail
cd "$(dirname "$0")/.."
chroot_check=1
if [ "${1:-}" = --no-chroot ]; then chroot_check=0; shift; fi
deb=$(readlink -f "${1:-$(ls .build/deb/storefront_*.deb | head -n1)}")
[ -f "$deb" ] || { echo "check-deb.sh: no package: run make deb" >&2; exit 1; }
[ "$(id -u)" -eq 0 ] || { echo "check-deb.sh: needs root (chroot, mounts)" >&2; exit 1; }
work=$PWD/.build/deb-check
mkdir -p "$work"
echo "Checking $deb"
dpkg-deb --field "$deb" Package Version Depends

# The checks, run with the package installed and the toolchain out of reach. $1: the
# folder the package's /usr is in ("" when installed), $2: the catalog to use.
checks='
set -euo pipefail
usr=$1/usr catalog=$2
fail() { echo "FAIL: $*" >&2; exit 1; }
[ -z "${LD_LIBRARY_PATH:-}" ] || fail "LD_LIBRARY_PATH is set"
[ ! -e /opt/swift ] || [ -z "$(ls -A /opt/swift)" ] || fail "the toolchain is in reach at /opt/swift"
echo "--- ldd $usr/bin/storefront"
ldd "$usr/bin/storefront" | tee /tmp/ldd.txt
! grep -q "not found" /tmp/ldd.txt || fail "a library is not found"
# The Swift runtime is linked in (none in ldd), or each of its libraries comes from /usr/lib/storefront.
swift_libs=$(grep -E "libswift|libFoundation|libdispatch|lib_FoundationICU" /tmp/ldd.txt || true)
! echo "$swift_libs" | grep . | grep -v "=> /usr/lib/storefront/" || fail "a Swift library comes from elsewhere than /usr/lib/storefront"
echo "--- storefront --version"
version=$("$usr/bin/storefront" --version)
echo "$version"
[[ $version =~ ^storefront\ [0-9]+\.[0-9]+\.[0-9]+\ \((commit\ [0-9a-f]+|unknown\ commit) ]] || fail "unexpected --version: $version"
echo "--- catalog check, a purchase, the paywall without a terminal"
"$usr/bin/storefront" catalog check "$catalog" > /tmp/check.txt || fail "catalog check failed"
sed -n 1,3p /tmp/check.txt
export HOME=$(mktemp -d)
"$usr/bin/storefront" --catalog "$catalog" buy com.razeware.razefaces.swiftshopping --json | grep -q "\"result\" *: *\"success\"" || fail "buy did not succeed"
"$usr/bin/storefront" --catalog "$catalog" entitlements | grep -q com.razeware.razefaces.swiftshopping || fail "the purchase is not an entitlement"
[ -f "$HOME/.local/state/storefront/store.sqlite" ] || fail "no store file in the state folder"
set +e; "$usr/bin/storefront" --catalog "$catalog" </dev/null >/dev/null 2>&1; code=$?; set -e
[ $code -eq 2 ] || fail "the paywall without a terminal exited $code, not 2"
echo "--- man page and completions"
zcat "$usr/share/man/man1/storefront.1.gz" | grep -q "^.TH STOREFRONT 1" || fail "no man page"
grep -q "complete -F _storefront storefront" "$usr/share/bash-completion/completions/storefront" || fail "no bash completion"
[ -s "$usr/share/zsh/vendor-completions/_storefront" ] || fail "no zsh completion"
[ -s "$usr/share/fish/vendor_completions.d/storefront.fish" ] || fail "no fish completion"
echo "PASS"
'

suite=$(. /etc/os-release && echo "$VERSION_CODENAME")
base=$work/$suite-minbase

# A fresh Debian of this release, made once; false when debootstrap cannot make it.
make_base() {
  [ -f "$base/.complete" ] && return 0
  command -v debootstrap >/dev/null || return 1
  rm -rf "$base"
  echo "Making a fresh Debian $suite in $base (once) …"
  debootstrap --variant=minbase "$suite" "$base" http://deb.debian.org/debian >"$work/debootstrap.log" 2>&1 || return 1
  touch "$base/.complete"
}

chroot_run() {
  local run=$work/run
  rm -rf "$run"
  mkdir -p "$run/upper" "$run/work" "$run/root"
  unshare --mount --fork env BASE="$base" RUN="$run" DEB="$deb" CHECKS="$checks" bash -euo pipefail -c '
    mount -t overlay overlay -o "lowerdir=$BASE,upperdir=$RUN/upper,workdir=$RUN/work" "$RUN/root"
    mount -t proc proc "$RUN/root/proc"
    mount --rbind /dev "$RUN/root/dev"
    cp /etc/resolv.conf "$RUN/root/etc/resolv.conf"
    cp "$DEB" "$RUN/root/root/"
    printf "%s" "$CHECKS" > "$RUN/root/root/checks.sh"
    chroot "$RUN/root" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root DEBIAN_FRONTEND=noninteractive bash -euo pipefail -c "
      echo \"--- apt-get install ./$(basename "$DEB") in a fresh \$(cat /etc/debian_version) without /opt/swift\"
      apt-get update -qq
      apt-get install -y -qq --no-install-recommends /root/$(basename "$DEB") >/tmp/apt.log 2>&1 || { cat /tmp/apt.log; exit 1; }
      grep -E \"^(Unpacking|Setting up)\" /tmp/apt.log | sed \"s/^/  /\"
      bash /root/checks.sh \"\" /usr/share/doc/storefront/examples/products.json
      apt-get remove -y -qq storefront >/dev/null
      [ ! -e /usr/bin/storefront ] && [ ! -e /usr/lib/storefront ] || { echo \"FAIL: remove left files\" >&2; exit 1; }
      echo \"removed cleanly\"
    "
  '
  rm -rf "$run"
}

extract_run() {
  local x=$work/extract
  rm -rf "$x"
  dpkg -x "$deb" "$x"
  unshare --mount --fork env X="$x" CHECKS="$checks" bash -euo pipefail -c '
    [ -d /opt/swift ] && mount -t tmpfs -o ro tmpfs /opt/swift
    # /usr/lib with the package'\''s storefront folder laid over it, read-only.
    mount -t overlay overlay -o "lowerdir=$X/usr/lib:/usr/lib" /usr/lib
    command -v swift >/dev/null && { echo "FAIL: swift is still reachable" >&2; exit 1; }
    env -u LD_LIBRARY_PATH bash -c "$CHECKS" checks "$X" "$X/usr/share/doc/storefront/examples/products.json"
  '
}

if [ $chroot_check = 1 ] && make_base; then
  chroot_run
  echo "check-deb: the package installs and runs in a fresh Debian without the Swift toolchain"
else
  [ $chroot_check = 0 ] || echo "check-deb: no fresh Debian could be made (see $work/debootstrap.log); checking the extracted package with the toolchain hidden" >&2
  extract_run
  echo "check-deb: the extracted package runs with the toolchain hidden from the loader"
fi
