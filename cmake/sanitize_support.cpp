// What a PMONSIM_SANITIZE build links into every executable (CMakeLists.txt;
// never into the normal build or the installed libraries).
//
// 1. The runtime defaults the build needs (ASAN_OPTIONS / UBSAN_OPTIONS still
//    override them flag by flag; scripts/sanitize says why each is set).
//
// 2. SystemC 2.3.4's QuickThreads coroutines, completed for ASan. ASan must be
//    told of every stack switch (__sanitizer_start_switch_fiber before it,
//    __sanitizer_finish_switch_fiber on the new stack after it): it keeps the
//    bounds of the stack it believes it runs on, and on every throw
//    (__asan_handle_no_return) it unpoisons that stack from the thrower's frame
//    up, which clears the redzones of the frames the exception unwinds. With the
//    wrong bounds it skips that ("ASan is ignoring requested
//    __asan_handle_no_return ... False positive error reports may follow"), the
//    stale redzones stay, and a later frame on the same memory reports a
//    stack-buffer-overflow or use-after-scope that is not there (gcc 12's ASan
//    even in its own sigaltstack interceptor). SystemC 2.3.4 (Debian's
//    libsystemc) tells ASan only half of it, sc_cor_qt.cpp:
//    - sc_cor_pkg_qt::yield() announces the target's m_stack / m_stack_size, and
//      for the main coroutine (the stack sc_start() was called on) these are
//      nullptr / 0: ASan then takes {0, 0} as the bounds of the main stack;
//    - sc_cor_pkg_qt::abort(), the switch away from an SC_THREAD that has ended
//      (returned, or thrown: SystemC catches it and sc_start() throws it again
//      on the main stack), announces nothing, so ASan keeps the dead thread's
//      stack as the current one until the next yield().
//    Either way a throw on the main stack after a simulation (or inside one)
//    and a throw in a thread resumed by abort() run with wrong bounds.
//    SystemC 3.0.1 fixes both (upstream commit 1a61764c, "sc_cor_qt: support
//    Asan option detect_stack_use_after_return=1"); for older SystemC this
//    file fills them in from outside, through symbols libsystemc binds
//    dynamically (its own GOT, so the executable's definitions win):
//    - __sanitizer_start_switch_fiber: a target of {nullptr, 0} is the main
//      coroutine, whose real bounds are those of this OS thread's stack;
//    - sc_core::sc_cor_pkg_qt::abort: announces the switch to the next
//      coroutine, then runs SystemC's own;
//    - sc_cor_qt_aborthelp, the helper QuickThreads runs on the next
//      coroutine's stack right after abort's switch (SystemC's returns 0 and
//      does nothing else): finishes the switch.
//    SystemC 2.3.4 passes no slot for ASan's fake stacks, so
//    detect_stack_use_after_return must stay off (the default, set below).
//
// 3. UBSan's vptr check without a file descriptor. The first time the check
//    meets a pair of (dynamic, static) type it looks at the vtable, and gcc
//    12's runtime tests that memory is readable through a pipe. In a process
//    that has used up its descriptors (EMFILE) the pipe fails, and the check
//    aborts the run on an "invalid vptr" that is not (cli_unreadable_inputs
//    opens 80 traces under ulimit -n 40 on purpose). Its handler is wrapped:
//    with no descriptor left the check is skipped rather than failed.
#include <dlfcn.h>
#include <fcntl.h>
#include <pthread.h>
#include <sanitizer/common_interface_defs.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#define PMONSIM_EXPORT extern "C" __attribute__((visibility("default"), used))

PMONSIM_EXPORT const char* __asan_default_options() {
    // verify_asan_link_order=0: pmonsim exec preloads libpmonsim-preload.so
    // (built without sanitizers) ahead of libasan into the programs it runs,
    // this build's own probes and pmon-stat included.
    return "verify_asan_link_order=0:detect_stack_use_after_return=0";
}

PMONSIM_EXPORT const char* __ubsan_default_options() { return "print_stacktrace=1:halt_on_error=1"; }

namespace {

[[noreturn]] void fail(const char* what) {
    std::fprintf(stderr, "pmonsim sanitize_support: %s\n", what);
    std::abort();
}

template <class F>
F next_definition(const char* name) {
    void* p = dlsym(RTLD_NEXT, name);
    if (!p)
        fail(name);
    return reinterpret_cast<F>(p);
}

// Whether the process can open two more descriptors (errno as it was).
bool descriptors_left() {
    const int saved = errno;
    int fds[2];
    bool left = true;
    if (pipe2(fds, O_CLOEXEC) == 0) {
        close(fds[0]);
        close(fds[1]);
    } else {
        left = errno != EMFILE && errno != ENFILE;
    }
    errno = saved;
    return left;
}

}  // namespace

// (Every check is fatal in this build, -fno-sanitize-recover: the _abort handler.)
// (The pointer and the hash are integers to the runtime; gcc declares them void*.)
PMONSIM_EXPORT void __ubsan_handle_dynamic_type_cache_miss_abort(void* data, void* pointer, void* hash) {
    using handler_fn = void (*)(void*, void*, void*);
    static const handler_fn real = next_definition<handler_fn>("__ubsan_handle_dynamic_type_cache_miss_abort");
    if (descriptors_left())
        real(data, pointer, hash);
}

#ifdef PMONSIM_SYSTEMC_FIBER_FIXUP
namespace {

// sc_core::sc_cor_qt of SystemC 2.3.4 (sysc/kernel/sc_cor_qt.h, which is not
// installed): the vtable pointer of sc_cor, then these.
struct sc_cor_qt_fields {
    void* vptr;
    std::size_t m_stack_size;
    void* m_stack;
    void* m_sp;
    void* m_pkg;
};

// The stack of this OS thread: SystemC's main coroutine.
void thread_stack(const void** bottom, std::size_t* size) {
    static thread_local void* t_bottom = nullptr;
    static thread_local std::size_t t_size = 0;
    if (!t_bottom) {
        pthread_attr_t attr;
        if (pthread_getattr_np(pthread_self(), &attr) != 0 || pthread_attr_getstack(&attr, &t_bottom, &t_size) != 0)
            fail("pthread_getattr_np failed");
        pthread_attr_destroy(&attr);
    }
    *bottom = t_bottom;
    *size = t_size;
}

using start_fn = void (*)(void**, const void*, std::size_t);
using abort_fn = void (*)(void*, void*);

}  // namespace

PMONSIM_EXPORT void __sanitizer_start_switch_fiber(void** fake_stack_save, const void* bottom, std::size_t size) {
    static const start_fn real = next_definition<start_fn>("__sanitizer_start_switch_fiber");
    if (!bottom && size == 0)
        thread_stack(&bottom, &size);
    real(fake_stack_save, bottom, size);
}

// void sc_core::sc_cor_pkg_qt::abort(sc_core::sc_cor* next): `this` comes first.
PMONSIM_EXPORT void pmonsim_sc_cor_pkg_qt_abort(void* pkg, void* next) __asm__(
    "_ZN7sc_core13sc_cor_pkg_qt5abortEPNS_6sc_corE");
void pmonsim_sc_cor_pkg_qt_abort(void* pkg, void* next) {
    static const abort_fn real = next_definition<abort_fn>("_ZN7sc_core13sc_cor_pkg_qt5abortEPNS_6sc_corE");
    const auto* cor = static_cast<const sc_cor_qt_fields*>(next);
    // The layout is the one above: a thread's saved stack pointer lies in its
    // stack; the main coroutine has none.
    auto sp = reinterpret_cast<std::uintptr_t>(cor->m_sp);
    auto stack = reinterpret_cast<std::uintptr_t>(cor->m_stack);
    if (cor->m_stack ? !(sp > stack && sp <= stack + cor->m_stack_size) : cor->m_stack_size != 0)
        fail("sc_core::sc_cor_qt is not laid out as in SystemC 2.3.4");
    // No fake-stack slot: the ended thread's fake stack, if any, is freed.
    __sanitizer_start_switch_fiber(nullptr, cor->m_stack, cor->m_stack_size);
    real(pkg, next);
}

// Runs between the switch and its end: nothing in it is instrumented.
PMONSIM_EXPORT __attribute__((no_sanitize_address)) void* sc_cor_qt_aborthelp(void*, void*, void*) {
    __sanitizer_finish_switch_fiber(nullptr, nullptr, nullptr);
    return nullptr;
}
#endif
