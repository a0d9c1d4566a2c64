#!/usr/bin/env bash
# Installs the Debian packages the build and the tests need, when they are missing.
# As root it runs apt-get; otherwise it prints the exact command and fails.
# `install-deps.sh bench` adds what `make bench` compares against; `package` what
# `make install` and `make deb` need; `check-deb` what `make check-deb` needs.
set -euo pipefail

packages=(
  pkg-config      # SwiftPM finds the C libraries through it
  libsqlite3-dev  # the store file
  libncurses-dev  # the paywall (ncursesw)
  libssl-dev      # libcrypto: transaction signatures
  tmux            # end-to-end tests of the paywall
  openssl         # an independent verifier of the signatures, in tests
  sqlite3         # tests edit store files by hand, as a tamperer would
  zsh fish        # tests run the completion scripts in each shell
)
case "${1:-}" in
  bench) packages+=(dialog) ;;           # the baseline of the first-paint and key-press benchmarks
  package) packages+=(patchelf) ;;       # points the installed binary at its private Swift runtime
  check-deb) packages+=(debootstrap) ;;  # a fresh Debian to install the package in
esac

missing=()
for package in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q 'install ok installed'; then
    missing+=("$package")
  fi
done
[ ${#missing[@]} -eq 0 ] && exit 0

command="apt-get update && apt-get install -y --no-install-recommends ${missing[*]}"
if [ "$(id -u)" -ne 0 ]; then
  echo "storefront needs these Debian packages: ${missing[*]}" >&2
  echo "Install them with:  sudo sh -c '$command'" >&2
  exit 1
fi
echo "Installing ${missing[*]} …" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
