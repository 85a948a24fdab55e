// Bytes currently allocated by malloc, for the tests that read a long trace
// in constant memory: glibc's heap chunks plus mmapped blocks, or under ASan
// what its allocator has handed out and not had back (ASan replaces malloc,
// and mallinfo2 then says 0); 0 where neither is known.
#pragma once
#include <cstddef>

#if defined(__GLIBC__)
#include <malloc.h>
#if defined(__SANITIZE_ADDRESS__)
#define PMONSIM_TEST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define PMONSIM_TEST_ASAN 1
#endif
#endif
#if PMONSIM_TEST_ASAN  // (sanitizer/allocator_interface.h, which gcc 12 does not install)
extern "C" std::size_t __sanitizer_get_current_allocated_bytes();
#endif
#endif

namespace pmonsim::test {

inline std::size_t heap_in_use() {
#if PMONSIM_TEST_ASAN
    return __sanitizer_get_current_allocated_bytes();
#elif defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 33))
    const struct mallinfo2 mi = mallinfo2();
    return mi.uordblks + mi.hblkhd;
#else
    return 0;
#endif
}

}  // namespace pmonsim::test
