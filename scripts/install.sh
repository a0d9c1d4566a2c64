#!/usr/bin/env bash
# Installs (or with --uninstall removes) storefront under DESTDIR + PREFIX, as
# `make install`, `make uninstall` and `make deb` do:
#   PREFIX/bin/storefront                       RUNPATH PREFIX/lib/storefront, nothing else (none when static)
#   PREFIX/lib/storefront/                      the Swift runtime libraries it links, if any (no Debian package
#                                               has them; `make release` links them into the binary instead)
#   PREFIX/share/man/man1/storefront.1.gz       `storefront man`
#   PREFIX/share/bash-completion/completions/storefront, zsh's _storefront, fish's storefront.fish
#   PREFIX/share/doc/storefront/examples/products.json
# The binary finds nothing in the build tree or the toolchain once installed.
# Usage: install.sh [--uninstall] BINARY DESTDIR PREFIX
set -euo pipefail

uninstall=0
if [ "${1:-}" = --uninstall ]; then uninstall=1; shift; fi
binary=$1 destdir=$2 prefix=$3
root="$destdir$prefix"
cd "$(dirname "$0")/.."

# Debian's zsh reads vendor-completions; a /usr/local zsh reads site-functions.
if [ "$prefix" = /usr ]; then zsh_dir=share/zsh/vendor-completions; else zsh_dir=share/zsh/site-functions; fi
files=(bin/storefront share/man/man1/storefront.1.gz share/bash-completion/completions/storefront
       "$zsh_dir/_storefront" share/fish/vendor_completions.d/storefront.fish
       share/doc/storefront/examples/products.json)

if [ $uninstall = 1 ]; then
  for file in "${files[@]}"; do rm -f "$root/$file"; done
  rm -rf "$root/lib/storefront"
  rmdir "$root/share/doc/storefront/examples" "$root/share/doc/storefront" 2>/dev/null || true
  echo "Removed storefront from $root"
  exit 0
fi

command -v patchelf >/dev/null || { echo "install.sh: patchelf is missing: run scripts/install-deps.sh package" >&2; exit 1; }

# The Swift runtime libraries: what the binary links that no Debian package owns.
private_libs() {
  ldd "$binary" | awk '$2 == "=>" && $3 ~ /^\// { print $3 }' | while read -r lib; do
    dpkg -S "$lib" >/dev/null 2>&1 || dpkg -S "$(readlink -f "$lib")" >/dev/null 2>&1 || echo "$lib"
  done
}
if ldd "$binary" | grep -q 'not found'; then
  echo "install.sh: $binary links libraries that are not found:" >&2
  ldd "$binary" | grep 'not found' >&2
  exit 1
fi

private=$(private_libs)
install -d "$root/bin" "$root/share/man/man1" "$root/share/bash-completion/completions" \
  "$root/$zsh_dir" "$root/share/fish/vendor_completions.d" "$root/share/doc/storefront/examples"
install -m 0755 "$binary" "$root/bin/storefront"
if [ -n "$private" ]; then
  install -d "$root/lib/storefront"
  patchelf --set-rpath "$prefix/lib/storefront" "$root/bin/storefront"
else
  # The runtime is in the binary: it looks in no folder of its own (nor the toolchain's).
  patchelf --remove-rpath "$root/bin/storefront"
fi
for lib in $private; do
  # Their own RUNPATH is $ORIGIN: they find each other beside themselves.
  install -m 0644 "$(readlink -f "$lib")" "$root/lib/storefront/$(basename "$lib")"
done

"$binary" man | gzip -9n > "$root/share/man/man1/storefront.1.gz"
chmod 0644 "$root/share/man/man1/storefront.1.gz"
"$binary" completions bash > "$root/share/bash-completion/completions/storefront"
"$binary" completions zsh > "$root/$zsh_dir/_storefront"
"$binary" completions fish > "$root/share/fish/vendor_completions.d/storefront.fish"
install -m 0644 products.json "$root/share/doc/storefront/examples/products.json"
chmod 0644 "$root/share/bash-completion/completions/storefront" "$root/$zsh_dir/_storefront" \
  "$root/share/fish/vendor_completions.d/storefront.fish"
if [ -n "$private" ]; then
  echo "Installed storefront in $root ($(ls "$root/lib/storefront" | wc -l) Swift runtime libraries in $prefix/lib/storefront)"
else
  echo "Installed storefront in $root (the Swift runtime linked in)"
fi
