#ifndef STOREFRONT_BUILD_INFO_H
#define STOREFRONT_BUILD_INFO_H

/// The commit the binary was built from, as `make` wrote it into
/// .build/storefront-commit.h; "" when built without it (a plain `swift build`,
/// a tarball without .git).
const char *storefront_build_commit(void);

#endif
