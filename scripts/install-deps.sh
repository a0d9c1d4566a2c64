#!/usr/bin/env bash
# Installs the Debian packages the build and the tests need, when they are missing.
# As root it runs apt-get; otherwise it prints the exact command and fails.
# `install-deps.sh bench` adds what `make bench` compares against; `package` what
# `make install` and `make deb` need; `check-deb` what `make check-deb` needs.
# `install-deps.sh oracle` makes the tests' Python virtual environment (.build/oracle)
# with Apple's App Store Server Library, when it is missing (see oracle_venv below).
set -euo pipefail
cd "$(dirname "$0")/.."

oracle=.build/oracle
# Whether python3 can make a virtual environment with pip (Debian's python3 needs python3-venv).
venv_works() {
  local probe
  probe=$(mktemp -d)
  python3 -m venv "$probe/venv" >/dev/null 2>&1 && "$probe/venv/bin/python" -m pip --version >/dev/null 2>&1
  local status=$?
  rm -rf "$probe"
  return $status
}
oracle_ready() {
  [ -x "$oracle/bin/python" ] && "$oracle/bin/python" - <<'PY' >/dev/null 2>&1
import importlib.metadata, sys
wanted = [line.split("==") for line in open("scripts/oracle-requirements.txt")
          if line.strip() and not line.startswith("#")]
sys.exit(any(importlib.metadata.version(name) != version.strip() for name, version in wanted))
PY
}

packages=(
  pkg-config      # SwiftPM finds the C libraries through it
  libsqlite3-dev  # the store file
  libncurses-dev  # the paywall (ncursesw)
  libssl-dev      # libcrypto: transaction signatures
  libmicrohttpd-dev  # storefront serve: the App Store Server API's HTTP server (its header; loaded at run time)
  libcurl4-openssl-dev  # storefront serve: notifications POSTed through libcurl (its header; loaded at run time)
  tmux            # end-to-end tests of the paywall
  openssl         # an independent verifier of the signatures, in tests
  sqlite3         # tests edit store files by hand, as a tamperer would
  zsh fish        # tests run the completion scripts in each shell
  libpq-dev       # the ledger's PostgreSQL backend: libpq's header (libpq5 is loaded when a connection opens)
  postgresql      # the tests' throwaway cluster (scripts/with-postgres.sh, docs/postgresql-tests.md)
  libnss-wrapper  # runs that cluster as the postgres user when the tests run as root
  iproute2        # test hosts in network namespaces reach that cluster over TCP (NetworkHosts)
)
case "${1:-}" in
  bench) packages+=(dialog jq time) ;;   # baselines (paint and key press; catalog check) and peak memory of a process
  package) packages+=(patchelf) ;;       # sets (or, the runtime linked in, removes) the installed binary's RUNPATH
  check-deb) packages+=(debootstrap) ;;  # a fresh Debian to install the package in
esac
if [ "${1:-}" = oracle ]; then
  oracle_ready && exit 0
  packages=()
  command -v python3 >/dev/null || packages+=(python3)
  # ensurepip, which `python3 -m venv` needs: Debian splits it into python3-venv.
  command -v python3 >/dev/null && ! venv_works && packages+=(python3-venv)
fi

missing=()
for package in ${packages[@]+"${packages[@]}"}; do
  if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q 'install ok installed'; then
    missing+=("$package")
  fi
done
install_oracle() {
  echo "Making $oracle: Apple's App Store Server Library for the tests (scripts/oracle-requirements.txt) …" >&2
  rm -rf "$oracle"
  mkdir -p .build
  python3 -m venv "$oracle"
  "$oracle/bin/python" -m pip install --quiet --disable-pip-version-check -r scripts/oracle-requirements.txt
  oracle_ready || { echo "storefront: $oracle does not import the library after installing it" >&2; exit 1; }
}

if [ ${#missing[@]} -eq 0 ]; then
  [ "${1:-}" = oracle ] && install_oracle
  exit 0
fi

command="apt-get update && apt-get install -y --no-install-recommends ${missing[*]}"
if [ "$(id -u)" -ne 0 ]; then
  echo "storefront needs these Debian packages: ${missing[*]}" >&2
  echo "Install them with:  sudo sh -c '$command'" >&2
  exit 1
fi
echo "Installing ${missing[*]} …" >&2
export DEBIAN_FRONTEND=noninteractive
# postgresql's postinst starts the system cluster it makes (invoke-rc.d … start || exit 1): in a
# container without systemd and without Docker's policy-rc.d, that start may fail, and with it the
# install. The tests never use that cluster, so while apt-get runs, a policy-rc.d of our own
# forbids starting services, as Docker's images do; removed afterwards.
policy=/usr/sbin/policy-rc.d
if [ ! -e "$policy" ] && [ ! -d /run/systemd/system ]; then
  printf '#!/bin/sh\n# scripts/install-deps.sh: no service starts while it installs packages.\nexit 101\n' > "$policy"
  chmod 755 "$policy"
  trap 'rm -f "$policy"' EXIT
fi
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
[ "${1:-}" = oracle ] && install_oracle
exit 0
