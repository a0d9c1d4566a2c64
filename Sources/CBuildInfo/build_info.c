// The commit reaches the binary through a header `make` writes before each build
// (scripts/commit-header.sh), only when the commit changes: nothing else recompiles.
// A C file, because a string can be passed to C at build time and Swift has no
// __has_include to do without the header when it is missing.
#include "build_info.h"

#if __has_include("../../.build/storefront-commit.h")
#include "../../.build/storefront-commit.h"
#endif

#ifndef STOREFRONT_COMMIT
#define STOREFRONT_COMMIT ""
#endif

const char *storefront_build_commit(void) {
    return STOREFRONT_COMMIT;
}
