// interpose/insn_patch: cpuid/rdtsc/rdtscp in this very executable (patched as
// the main program) and in a dlopen'ed library become traps answered by fake
// callbacks. Installing is process-wide, so the InsnPatch fixture installs
// once per process; the wall-clock test runs in a fresh process of its own.
#include "insn_patch.h"

#include <gtest/gtest.h>

#include <dlfcn.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <sys/resource.h>
#include <unistd.h>

#include <atomic>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <set>
#include <string>
#include <utility>

namespace ip = pmonsim::interpose;

namespace {

// Each asm site below also writes (its address, a kind) into this section, so
// the test knows every site without asking the module under test.
struct asm_site {
    uint64_t address;
    uint64_t kind;  // 0 cpuid, 1 rdtsc, 2 rdtscp, 8 real ud2, 9 false site
};
constexpr uint64_t k_ud2_kind = 8;
constexpr uint64_t k_false_site_kind = 9;

#define RECORD_SITE(kind) \
    ".pushsection pmonsim_test_sites, \"aw\"\n\t.balign 8\n\t.quad 1b, " #kind "\n\t.popsection\n\t"

}  // namespace

extern "C" const asm_site __start_pmonsim_test_sites[];
extern "C" const asm_site __stop_pmonsim_test_sites[];

// Bytes that look like cpuid, rdtsc and rdtscp but are data.
extern "C" __attribute__((used)) const unsigned char pmonsim_test_rodata_opcodes[] = {
    0x0f, 0xa2, 0x0f, 0x31, 0x0f, 0x01, 0xf9};

namespace {

struct regs4 {
    uint32_t eax, ebx, ecx, edx;
};

__attribute__((noinline, noclone)) regs4 do_cpuid(uint32_t leaf, uint32_t subleaf) {
    regs4 r;
    asm volatile("1: cpuid\n\t" RECORD_SITE(0)
                 : "=a"(r.eax), "=b"(r.ebx), "=c"(r.ecx), "=d"(r.edx)
                 : "a"(leaf), "c"(subleaf));
    return r;
}

__attribute__((noinline, noclone)) uint64_t do_rdtsc() {
    uint32_t lo, hi;
    asm volatile("1: rdtsc\n\t" RECORD_SITE(1) : "=a"(lo), "=d"(hi));
    return (uint64_t(hi) << 32) | lo;
}

__attribute__((noinline, noclone)) uint64_t do_rdtscp(uint32_t* aux) {
    uint32_t lo, hi, c;
    asm volatile("1: rdtscp\n\t" RECORD_SITE(2) : "=a"(lo), "=d"(hi), "=c"(c));
    *aux = c;
    return (uint64_t(hi) << 32) | lo;
}

// The encoding is B8 00 0F A2 00: a byte scan would take 0F A2 for cpuid.
__attribute__((noinline, noclone)) uint32_t false_site() {
    uint32_t v;
    asm volatile("1: movl $0x00a20f00, %%eax\n\t" RECORD_SITE(9) "movl %%eax, %0" : "=r"(v) : : "eax");
    return v;
}

__attribute__((noinline, noclone)) void real_ud2() {
    asm volatile("1: ud2\n\t" RECORD_SITE(8));
}

// Registers around one instruction: what it writes, and what it must keep
// (r12 and r15 are callee-saved values live across the instruction). The carry
// flag, cleared before, must still be clear after: resuming at the wrong byte
// (rdtscp's third byte F9 is stc) or losing the flags would set or garble it.
struct full_regs {
    uint64_t rax, rbx, rcx, rdx, rsi, rdi, r8, r11, r12, r15;
    uint8_t carry;
};
constexpr uint64_t k_ones = ~uint64_t(0);
constexpr uint64_t k_keep[] = {0x1111222233334444, 0x5555666677778888, 0x0123456789abcdef,
                               0xfedcba9876543210, 0x0f0f0f0ff0f0f0f0, 0x7777000077770000};

#define KEEP_REGS                                                                                  \
    uint64_t si = k_keep[0], di = k_keep[1];                                                       \
    register uint64_t r8 asm("r8") = k_keep[2];                                                    \
    register uint64_t r11 asm("r11") = k_keep[3];                                                  \
    register uint64_t r12 asm("r12") = k_keep[4];                                                  \
    register uint64_t r15 asm("r15") = k_keep[5]
#define KEEP_OPERANDS "+S"(si), "+D"(di), "+r"(r8), "+r"(r11), "+r"(r12), "+r"(r15), [carry] "=&r"(carry)

__attribute__((noinline, noclone)) full_regs cpuid_full(uint64_t rax, uint64_t rcx) {
    uint64_t a = rax, b = k_ones, c = rcx, d = k_ones;
    uint8_t carry;
    KEEP_REGS;
    asm volatile("clc\n\t1: cpuid\n\t" RECORD_SITE(0) "setc %b[carry]"
                 : "+a"(a), "+b"(b), "+c"(c), "+d"(d), KEEP_OPERANDS);
    return {a, b, c, d, si, di, r8, r11, r12, r15, carry};
}

__attribute__((noinline, noclone)) full_regs rdtsc_full() {
    uint64_t a = k_ones, b = k_ones, c = k_ones, d = k_ones;
    uint8_t carry;
    KEEP_REGS;
    asm volatile("clc\n\t1: rdtsc\n\t" RECORD_SITE(1) "setc %b[carry]"
                 : "+a"(a), "+b"(b), "+c"(c), "+d"(d), KEEP_OPERANDS);
    return {a, b, c, d, si, di, r8, r11, r12, r15, carry};
}

__attribute__((noinline, noclone)) full_regs rdtscp_full() {
    uint64_t a = k_ones, b = k_ones, c = k_ones, d = k_ones;
    uint8_t carry;
    KEEP_REGS;
    asm volatile("clc\n\t1: rdtscp\n\t" RECORD_SITE(2) "setc %b[carry]"
                 : "+a"(a), "+b"(b), "+c"(c), "+d"(d), KEEP_OPERANDS);
    return {a, b, c, d, si, di, r8, r11, r12, r15, carry};
}

void expect_kept(const full_regs& r) {
    EXPECT_EQ(r.rsi, k_keep[0]);
    EXPECT_EQ(r.rdi, k_keep[1]);
    EXPECT_EQ(r.r8, k_keep[2]);
    EXPECT_EQ(r.r11, k_keep[3]);
    EXPECT_EQ(r.r12, k_keep[4]);
    EXPECT_EQ(r.r15, k_keep[5]);
    EXPECT_EQ(r.carry, 0);
}

std::set<std::pair<uint64_t, uint64_t>> recorded_sites(bool traps_only) {
    std::set<std::pair<uint64_t, uint64_t>> out;
    for (const asm_site* s = __start_pmonsim_test_sites; s != __stop_pmonsim_test_sites; ++s) {
        if (!traps_only || s->kind <= 2)
            out.insert({s->address, s->kind});
    }
    return out;
}

uint64_t recorded_address(uint64_t kind) {
    for (const asm_site* s = __start_pmonsim_test_sites; s != __stop_pmonsim_test_sites; ++s) {
        if (s->kind == kind)
            return s->address;
    }
    return 0;
}

// ---------------------------------------------------------------------------
// The fake answers: recognisable, and impossible for a real CPU.

constexpr uint32_t k_genu = 0x756e6547, k_inei = 0x49656e69, k_ntel = 0x6c65746e;  // "GenuineIntel"
constexpr uint64_t k_fake_tsc_tag = 0xfeed;  // bits 63..48: a real TSC is decades away
constexpr uint32_t k_fake_aux = 0x5a5a;

void fake_cpuid(uint32_t leaf, uint32_t subleaf, uint32_t out[4]) {
    out[0] = leaf * 0x10 + subleaf;  // leaf 0 says 0: a real CPU has at least leaf 1
    if (leaf == 0) {
        out[1] = k_genu;
        out[2] = k_ntel;
        out[3] = k_inei;
    } else {
        out[1] = 0xb0b00000 | leaf;
        out[2] = 0xc0c00000 | subleaf;
        out[3] = 0xd0d0d0d0;
    }
}

std::atomic<uint64_t> g_fake_ticks{0};
uint64_t fake_rdtsc() {
    return (k_fake_tsc_tag << 48) + g_fake_ticks.fetch_add(1000) + 1000;
}
uint32_t fake_tsc_aux() {
    return k_fake_aux;
}
constexpr ip::trap_answers k_answers{fake_cpuid, fake_rdtsc, fake_tsc_aux};

std::string vendor_of(const regs4& r) {
    char v[13];
    std::memcpy(v, &r.ebx, 4);
    std::memcpy(v + 4, &r.edx, 4);
    std::memcpy(v + 8, &r.ecx, 4);
    v[12] = 0;
    return v;
}

std::string real_path(const std::string& path) {
    char buf[PATH_MAX];
    return realpath(path.c_str(), buf) ? std::string(buf) : path;
}

std::string exe_path() {
    return real_path("/proc/self/exe");
}

std::set<std::pair<uint64_t, uint64_t>> patched_in(const std::string& object) {
    std::set<std::pair<uint64_t, uint64_t>> out;
    for (const auto& s : ip::patched_sites()) {
        if (real_path(s.object) == object)
            out.insert({s.address, s.kind});
    }
    return out;
}

bool any_patched_in(uint64_t start, uint64_t size) {
    for (const auto& s : ip::patched_sites()) {
        if (s.address + 3 > start && s.address < start + size)
            return true;
    }
    return false;
}

// ---------------------------------------------------------------------------
// What the instructions did before anything was installed (static
// initialisation runs before any test, in every process).

struct before_install {
    bool installed;
    regs4 leaf0;
    uint64_t tsc1, tsc2;
    bool has_rdtscp;
    uint64_t tscp;
    uint32_t aux;
};

before_install record_before() {
    before_install b{};
    b.installed = ip::traps_installed();
    b.leaf0 = do_cpuid(0, 0);
    b.tsc1 = do_rdtsc();
    b.tsc2 = do_rdtsc();
    b.has_rdtscp = (do_cpuid(0x80000001, 0).edx >> 27) & 1;
    if (b.has_rdtscp)
        b.tscp = do_rdtscp(&b.aux);
    return b;
}
const before_install g_before = record_before();

TEST(InsnPatchBeforeInstall, RealInstructionsRun) {
    EXPECT_FALSE(g_before.installed);
    EXPECT_GE(g_before.leaf0.eax, 1u);
    std::string vendor = vendor_of(g_before.leaf0);
    EXPECT_EQ(vendor.size(), 12u) << vendor;
    EXPECT_NE(g_before.tsc1 >> 48, k_fake_tsc_tag);
    EXPECT_GT(g_before.tsc2, g_before.tsc1);
    if (g_before.has_rdtscp) {
        EXPECT_NE(g_before.tscp >> 48, k_fake_tsc_tag);
        EXPECT_GE(g_before.tscp, g_before.tsc2);
    }
}

// ---------------------------------------------------------------------------

class InsnPatch : public ::testing::Test {
protected:
    static void SetUpTestSuite() {
        if (!ip::traps_installed())
            installed_ = ip::install_traps(k_answers, true, &error_);
    }
    void SetUp() override { ASSERT_TRUE(installed_) << error_; }

    static bool installed_;
    static std::string error_;
};
bool InsnPatch::installed_ = false;
std::string InsnPatch::error_;

TEST_F(InsnPatch, CpuidIsAnsweredByTheCallback) {
    regs4 r = do_cpuid(0, 0);
    EXPECT_EQ(r.eax, 0u);
    EXPECT_EQ(vendor_of(r), "GenuineIntel");
    r = do_cpuid(7, 1);
    EXPECT_EQ(r.eax, 0x71u);
    EXPECT_EQ(r.ebx, 0xb0b00007u);
    EXPECT_EQ(r.ecx, 0xc0c00001u);
    EXPECT_EQ(r.edx, 0xd0d0d0d0u);
}

TEST_F(InsnPatch, RdtscAndRdtscpAreAnsweredByTheCallback) {
    uint64_t t1 = do_rdtsc();
    uint64_t t2 = do_rdtsc();
    EXPECT_EQ(t1 >> 48, k_fake_tsc_tag);
    EXPECT_GT(t2, t1);
    uint32_t aux = 0;
    uint64_t t3 = do_rdtscp(&aux);
    EXPECT_EQ(t3 >> 48, k_fake_tsc_tag);
    EXPECT_GT(t3, t2);
    EXPECT_EQ(aux, k_fake_aux);
}

TEST_F(InsnPatch, OnlyTheRegistersTheInstructionWritesChange) {
    // cpuid reads only EAX and ECX, and writes zero-extended 32-bit values.
    full_regs r = cpuid_full(0xdeadbeef00000007, 0xcafef00d00000001);
    EXPECT_EQ(r.rax, 0x71u);
    EXPECT_EQ(r.rbx, 0xb0b00007u);
    EXPECT_EQ(r.rcx, 0xc0c00001u);
    EXPECT_EQ(r.rdx, 0xd0d0d0d0u);
    expect_kept(r);

    r = rdtsc_full();
    EXPECT_EQ(r.rax >> 32, 0u);
    EXPECT_EQ(r.rdx, k_fake_tsc_tag << 16);
    EXPECT_EQ(r.rbx, k_ones);
    EXPECT_EQ(r.rcx, k_ones);
    expect_kept(r);

    r = rdtscp_full();
    EXPECT_EQ(r.rax >> 32, 0u);
    EXPECT_EQ(r.rdx, k_fake_tsc_tag << 16);
    EXPECT_EQ(r.rcx, k_fake_aux);
    EXPECT_EQ(r.rbx, k_ones);
    expect_kept(r);
}

TEST_F(InsnPatch, PatchedSitesAreExactlyTheInstructionsOfThisProgram) {
    auto expected = recorded_sites(true);
    ASSERT_EQ(expected.size(), 6u);  // 2 cpuid, 2 rdtsc, 2 rdtscp above
    EXPECT_EQ(patched_in(exe_path()), expected);

    int fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
    ASSERT_GE(fd, 0);
    for (const auto& s : ip::patched_sites()) {
        if (real_path(s.object) != exe_path())
            continue;
        const auto* mem = reinterpret_cast<const unsigned char*>(s.address);
        EXPECT_EQ(mem[0], 0x0f);
        EXPECT_EQ(mem[1], 0x0b);
        unsigned char file[3] = {};
        ASSERT_EQ(pread(fd, file, 3, static_cast<off_t>(s.file_offset)), 3);
        const unsigned char* original = s.kind == 0   ? pmonsim_test_rodata_opcodes
                                        : s.kind == 1 ? pmonsim_test_rodata_opcodes + 2
                                                      : pmonsim_test_rodata_opcodes + 4;
        EXPECT_EQ(std::memcmp(file, original, s.kind == 2 ? 3 : 2), 0) << "site at file offset " << s.file_offset;
    }
    close(fd);

    ip::patch_counts n = ip::patched_counts();
    EXPECT_GE(n.cpuid, 2u);
    EXPECT_GE(n.rdtsc, 2u);
    EXPECT_GE(n.rdtscp, 2u);
}

TEST_F(InsnPatch, BytesThatOnlyLookLikeCpuidAreLeftAlone) {
    uint64_t mov = recorded_address(k_false_site_kind);
    ASSERT_NE(mov, 0u);
    const unsigned char expected[] = {0xb8, 0x00, 0x0f, 0xa2, 0x00};
    EXPECT_EQ(std::memcmp(reinterpret_cast<const void*>(mov), expected, sizeof expected), 0);
    EXPECT_FALSE(any_patched_in(mov, sizeof expected));
    EXPECT_EQ(false_site(), 0x00a20f00u);

    const unsigned char data[] = {0x0f, 0xa2, 0x0f, 0x31, 0x0f, 0x01, 0xf9};
    EXPECT_EQ(std::memcmp(pmonsim_test_rodata_opcodes, data, sizeof data), 0);
    EXPECT_FALSE(any_patched_in(reinterpret_cast<uint64_t>(pmonsim_test_rodata_opcodes), sizeof data));
}

sigjmp_buf g_jump;
volatile sig_atomic_t g_program_handler_calls = 0;
void* volatile g_program_fault_address = nullptr;

void program_sigill_handler(int, siginfo_t* info, void*) {
    g_program_handler_calls = g_program_handler_calls + 1;
    g_program_fault_address = info->si_addr;
    siglongjmp(g_jump, 1);
}

TEST_F(InsnPatch, ProgramSigillHandlerGetsTrapsThatAreNotSites) {
    struct sigaction act{};
    act.sa_sigaction = program_sigill_handler;
    act.sa_flags = SA_SIGINFO;
    sigemptyset(&act.sa_mask);
    struct sigaction old{};
    ASSERT_EQ(ip::hold_sigill_action(&act, &old), 0);
    EXPECT_EQ(old.sa_handler, SIG_DFL);  // the program had none; ours stays hidden

    struct sigaction kernel{};
    ASSERT_EQ(sigaction(SIGILL, nullptr, &kernel), 0);
    EXPECT_NE(kernel.sa_sigaction, program_sigill_handler);
    struct sigaction seen{};
    ASSERT_EQ(ip::hold_sigill_action(nullptr, &seen), 0);
    EXPECT_EQ(seen.sa_sigaction, program_sigill_handler);

    g_program_handler_calls = 0;
    if (sigsetjmp(g_jump, 1) == 0) {
        real_ud2();
        ADD_FAILURE() << "ud2 returned";
    }
    EXPECT_EQ(g_program_handler_calls, 1);
    EXPECT_EQ(reinterpret_cast<uint64_t>(g_program_fault_address), recorded_address(k_ud2_kind));

    // Patched sites still reach us, not the program.
    EXPECT_EQ(do_cpuid(0, 0).eax, 0u);
    EXPECT_EQ(g_program_handler_calls, 1);
    ASSERT_EQ(ip::hold_sigill_action(&old, nullptr), 0);
}

// With the program's action back at SIG_DFL, an unknown trap must kill.
[[noreturn]] void ud2_with_default_action() {
    struct rlimit no_core{};
    setrlimit(RLIMIT_CORE, &no_core);
    struct sigaction dfl{};
    dfl.sa_handler = SIG_DFL;
    ip::hold_sigill_action(&dfl, nullptr);
    real_ud2();
    _exit(0);
}

TEST_F(InsnPatch, TrapThatIsNotASiteKillsWithoutProgramHandler) {
    EXPECT_EXIT(ud2_with_default_action(), ::testing::KilledBySignal(SIGILL), "");
}

using cpuid_fn = void (*)(uint32_t, uint32_t, uint32_t*);

TEST_F(InsnPatch, DlopenedLibraryIsPatchedByPatchNewObjects) {
    const std::string path = real_path(PMONSIM_INSN_PATCH_TESTLIB);
    void* lib = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    ASSERT_NE(lib, nullptr) << dlerror();
    auto fn = reinterpret_cast<cpuid_fn>(dlsym(lib, "pmonsim_testlib_cpuid"));
    ASSERT_NE(fn, nullptr);

    uint32_t out[4] = {};
    fn(0, 0, out);
    EXPECT_GE(out[0], 1u) << "not patched yet: the real cpuid answers";
    EXPECT_TRUE(patched_in(path).empty());

    std::string error;
    ASSERT_TRUE(ip::patch_new_objects(&error)) << error;
    fn(0, 0, out);
    EXPECT_EQ(out[0], 0u);
    regs4 r{out[0], out[1], out[2], out[3]};
    EXPECT_EQ(vendor_of(r), "GenuineIntel");
    fn(5, 3, out);
    EXPECT_EQ(out[0], 0x53u);
    auto sites = patched_in(path);
    ASSERT_EQ(sites.size(), 1u);
    EXPECT_EQ(sites.begin()->second, 0u);

    // Nothing new: nothing more. Unloaded: forgotten.
    size_t total = ip::patched_sites().size();
    ASSERT_TRUE(ip::patch_new_objects(&error)) << error;
    EXPECT_EQ(ip::patched_sites().size(), total);
    ASSERT_EQ(dlclose(lib), 0);
    ASSERT_TRUE(ip::patch_new_objects(&error)) << error;
    EXPECT_TRUE(patched_in(path).empty());
    EXPECT_EQ(ip::patched_sites().size(), total - 1);
}

// ---------------------------------------------------------------------------
// Wall-clock mode, in a process of its own (re-executed by the death test).

[[noreturn]] void fail_child(const char* what) {
    std::fprintf(stderr, "wall-clock mode: %s\n", what);
    std::fflush(stderr);
    _exit(1);
}

[[noreturn]] void wall_clock_child() {
    std::string error;
    if (ip::traps_installed())
        fail_child("traps were installed before the test");
    if (!ip::install_traps(k_answers, false, &error))
        fail_child(error.c_str());
    if (do_cpuid(0, 0).eax != 0)
        fail_child("cpuid is not answered");
    uint64_t t1 = do_rdtsc();
    uint64_t t2 = do_rdtsc();
    if (t1 >> 48 == k_fake_tsc_tag || t2 <= t1 || g_fake_ticks.load() != 0)
        fail_child("rdtsc is answered by the callback");
    ip::patch_counts n = ip::patched_counts();
    if (n.rdtsc != 0 || n.rdtscp != 0 || n.cpuid < 2)
        fail_child("wrong sites patched");
    const auto* rdtsc_code = reinterpret_cast<const unsigned char*>(recorded_address(1));
    if (rdtsc_code[0] != 0x0f || rdtsc_code[1] != 0x31)
        fail_child("rdtsc bytes changed");
    _exit(0);
}

TEST(InsnPatchWallClock, RdtscIsLeftAlone) {
    GTEST_FLAG_SET(death_test_style, "threadsafe");  // a fresh process: no traps yet
    EXPECT_EXIT(wall_clock_child(), ::testing::ExitedWithCode(0), "");
}

}  // namespace
