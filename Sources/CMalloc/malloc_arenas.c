#include "malloc_arenas.h"
#include <malloc.h>

int storefront_use_one_malloc_arena(void) {
    return mallopt(M_ARENA_MAX, 1);
}
