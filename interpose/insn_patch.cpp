// Trapping cpuid/rdtsc/rdtscp: see insn_patch.h for why and the limits.
//
// Everything at namespace scope is constant-initialised (pointers, atomics,
// PODs, std::mutex), so install_traps() works from any library constructor.
// The signal handler reads only g_answers, g_table and the program's action
// ring; the rest is guarded by g_mutex and used outside signal context.
#include "insn_patch.h"

#include <capstone/capstone.h>
#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <pthread.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <ucontext.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <mutex>

namespace pmonsim::interpose {
namespace {

// ---------------------------------------------------------------------------
// State read by the signal handler.

struct trap_site {
    uint64_t address;
    uint8_t kind;
    uint8_t length;
};

struct site_table {
    size_t count;
    const trap_site* sites;  // sorted by address
    const site_table* replaced;  // the table before this one
};

trap_answers g_answers{};
// Replaced, never freed: a handler on another thread may still be reading the
// old table, and a few arrays per dlopen cost nothing. Each table keeps the one
// it replaced, so all stay reachable (not leaks to a leak checker).
std::atomic<const site_table*> g_table{nullptr};
std::atomic<bool> g_installed{false};

using sigaction_fn = int (*)(int, const struct sigaction*, struct sigaction*);
std::atomic<sigaction_fn> g_real_sigaction{nullptr};

// The program's SIGILL action. Writers take a fresh slot and then publish its
// index, so the handler never sees a half-written action and no lock is
// needed (sigaction() may be called from signal handlers). A slot is reused
// only after 7 later writes, far longer than one forward takes.
constexpr unsigned k_action_slots = 8;
struct sigaction g_program_action[k_action_slots];  // zeroed: SIG_DFL
std::atomic<unsigned> g_action_writes{0};
std::atomic<unsigned> g_action_current{0};

std::mutex g_mutex;

// ---------------------------------------------------------------------------
// sigaction without going through the interposer's own sigaction() wrapper,
// which would hand our handler back to hold_sigill_action().

sigaction_fn real_sigaction() {
    sigaction_fn fn = g_real_sigaction.load(std::memory_order_acquire);
    if (fn)
        return fn;
    fn = reinterpret_cast<sigaction_fn>(dlsym(RTLD_NEXT, "sigaction"));
    if (!fn)
        fn = &::sigaction;
    g_real_sigaction.store(fn, std::memory_order_release);
    return fn;
}

struct sigaction program_action() {
    return g_program_action[g_action_current.load(std::memory_order_acquire)];
}

void set_program_action(const struct sigaction& act) {
    unsigned slot = (g_action_writes.fetch_add(1, std::memory_order_relaxed) + 1) % k_action_slots;
    g_program_action[slot] = act;
    g_action_current.store(slot, std::memory_order_release);
}

// ---------------------------------------------------------------------------
// The SIGILL handler.

const trap_site* find_site(uint64_t rip) {
    const site_table* table = g_table.load(std::memory_order_acquire);
    if (!table)
        return nullptr;
    const trap_site* end = table->sites + table->count;
    const trap_site* it = std::lower_bound(table->sites, end, rip,
        [](const trap_site& s, uint64_t a) { return s.address < a; });
    return it != end && it->address == rip ? it : nullptr;
}

// A 32-bit register write clears the upper half, as the real instructions do.
void set_reg32(greg_t* regs, int reg, uint32_t value) {
    regs[reg] = static_cast<greg_t>(static_cast<uint64_t>(value));
}

void emulate(const trap_site& site, greg_t* regs) {
    if (site.kind == cpuid_site) {
        uint32_t out[4] = {0, 0, 0, 0};
        g_answers.cpuid(static_cast<uint32_t>(regs[REG_RAX]), static_cast<uint32_t>(regs[REG_RCX]), out);
        set_reg32(regs, REG_RAX, out[0]);
        set_reg32(regs, REG_RBX, out[1]);
        set_reg32(regs, REG_RCX, out[2]);
        set_reg32(regs, REG_RDX, out[3]);
    } else {
        uint64_t tsc = g_answers.rdtsc();
        set_reg32(regs, REG_RAX, static_cast<uint32_t>(tsc));
        set_reg32(regs, REG_RDX, static_cast<uint32_t>(tsc >> 32));
        if (site.kind == rdtscp_site)
            set_reg32(regs, REG_RCX, g_answers.tsc_aux ? g_answers.tsc_aux() : 0);
    }
    regs[REG_RIP] += site.length;
}

bool is_default_or_ignore(const struct sigaction& act) {
    return act.sa_handler == SIG_DFL || act.sa_handler == SIG_IGN;
}

// What the kernel would have done for a SIGILL we did not cause.
void forward(int sig, siginfo_t* info, void* context) {
    struct sigaction act = program_action();
    bool sent_by_process = info->si_code <= 0;  // kill(), raise(), sigqueue()
    if (is_default_or_ignore(act)) {
        if (sent_by_process && act.sa_handler == SIG_IGN)
            return;
        // A fault re-executes on return and dies with SIG_DFL; a sent signal
        // is raised again (it stays pending until we return).
        struct sigaction dfl{};
        dfl.sa_handler = SIG_DFL;
        sigemptyset(&dfl.sa_mask);
        real_sigaction()(SIGILL, &dfl, nullptr);
        if (sent_by_process)
            raise(SIGILL);
        return;
    }
    if (act.sa_flags & SA_RESETHAND) {
        struct sigaction dfl{};
        dfl.sa_handler = SIG_DFL;
        set_program_action(dfl);
    }
    // The mask the kernel would have set for the program's handler.
    pthread_sigmask(SIG_BLOCK, &act.sa_mask, nullptr);
    if (act.sa_flags & SA_NODEFER) {
        sigset_t ill;
        sigemptyset(&ill);
        sigaddset(&ill, SIGILL);
        pthread_sigmask(SIG_UNBLOCK, &ill, nullptr);
    }
    if (act.sa_flags & SA_SIGINFO)
        act.sa_sigaction(sig, info, context);
    else
        act.sa_handler(sig);
}

void on_sigill(int sig, siginfo_t* info, void* context) {
    int saved_errno = errno;
    auto* uc = static_cast<ucontext_t*>(context);
    greg_t* regs = uc->uc_mcontext.gregs;
    auto rip = static_cast<uint64_t>(regs[REG_RIP]);
    const trap_site* site = info->si_code > 0 ? find_site(rip) : nullptr;
    // The bytes check guards against a table entry that went stale.
    const auto* code = reinterpret_cast<const volatile uint8_t*>(rip);
    if (site && code[0] == 0x0f && code[1] == 0x0b) {
        emulate(*site, regs);
        errno = saved_errno;
        return;
    }
    forward(sig, info, context);
    errno = saved_errno;
}

// ---------------------------------------------------------------------------
// Loaded objects.

struct loaded_object {
    std::string name;  // dlpi_name; empty for the main program
    uint64_t base = 0;  // load bias (dlpi_addr)
    std::vector<ElfW(Phdr)> phdrs;
    bool is_main = false;
};

int collect_object(dl_phdr_info* info, size_t, void* data) {
    auto* list = static_cast<std::vector<loaded_object>*>(data);
    loaded_object obj;
    obj.name = info->dlpi_name ? info->dlpi_name : "";
    obj.base = info->dlpi_addr;
    obj.phdrs.assign(info->dlpi_phdr, info->dlpi_phdr + info->dlpi_phnum);
    obj.is_main = list->empty();  // glibc lists the main program first
    list->push_back(std::move(obj));
    return 0;
}

// Copied out first: the loader's lock is held during the callback, and
// decoding a large library there would stall every dlopen in the process.
std::vector<loaded_object> loaded_objects() {
    std::vector<loaded_object> list;
    dl_iterate_phdr(collect_object, &list);
    return list;
}

bool object_contains(const loaded_object& obj, uint64_t address) {
    for (const auto& ph : obj.phdrs) {
        uint64_t start = obj.base + ph.p_vaddr;
        if (ph.p_type == PT_LOAD && address >= start && address - start < ph.p_memsz)
            return true;
    }
    return false;
}

bool excluded_name(const std::string& path) {
    static constexpr const char* k_prefixes[] = {
        "ld-linux", "ld.so", "libc.so", "libm.so", "libpthread.so", "libdl.so", "librt.so",
        "libgcc_s.so", "libstdc++.so", "libcapstone.so", "linux-vdso", "linux-gate"};
    size_t slash = path.rfind('/');
    std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
    for (const char* prefix : k_prefixes) {
        if (base.compare(0, std::strlen(prefix), prefix) == 0)
            return true;
    }
    return false;
}

// The shared object this module is linked into (the interposer) is left
// alone: its callbacks may well run the real instructions. It is found by an
// address of ours with internal linkage (the address of an exported function
// could be a PLT stub in the executable). Either dladdr's name or the
// address range marks it.
bool is_own_library(const loaded_object& obj) {
    auto self = reinterpret_cast<uint64_t>(&on_sigill);
    Dl_info info{};
    bool named = dladdr(reinterpret_cast<void*>(self), &info) && info.dli_fname && obj.name == info.dli_fname;
    return named || object_contains(obj, self);
}

bool excluded(const loaded_object& obj) {
    if (obj.is_main)  // even when it links this module: see insn_patch.h
        return false;
    return obj.name.empty() || excluded_name(obj.name) || is_own_library(obj);
}

std::string main_program_path() {
    char buf[4096];
    ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
    return n > 0 ? std::string(buf, static_cast<size_t>(n)) : std::string("/proc/self/exe");
}

// ---------------------------------------------------------------------------
// Reading the object's file.

class file_reader {
public:
    explicit file_reader(const char* path) : fd_(open(path, O_RDONLY | O_CLOEXEC)) {
        struct stat st{};
        if (fd_ >= 0 && fstat(fd_, &st) == 0)
            size_ = static_cast<uint64_t>(st.st_size);
    }
    ~file_reader() {
        if (fd_ >= 0)
            close(fd_);
    }
    file_reader(const file_reader&) = delete;
    file_reader& operator=(const file_reader&) = delete;

    bool ok() const { return fd_ >= 0 && size_ > 0; }

    bool read(uint64_t offset, void* out, uint64_t count) const {
        if (offset > size_ || count > size_ - offset)
            return false;
        auto* dst = static_cast<char*>(out);
        while (count > 0) {
            ssize_t n = pread(fd_, dst, count, static_cast<off_t>(offset));
            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0)
                return false;
            dst += n;
            offset += static_cast<uint64_t>(n);
            count -= static_cast<uint64_t>(n);
        }
        return true;
    }

private:
    int fd_;
    uint64_t size_ = 0;
};

// Executable bytes of an object: where they are in the file and in memory
// (the latter relative to the load bias).
struct code_range {
    uint64_t vaddr;
    uint64_t file_offset;
    uint64_t size;
};

bool read_section_headers(const file_reader& file, std::vector<ElfW(Shdr)>* out) {
    ElfW(Ehdr) eh{};
    if (!file.read(0, &eh, sizeof eh) || std::memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 ||
        eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_machine != EM_X86_64)
        return false;
    if (eh.e_shoff == 0 || eh.e_shentsize != sizeof(ElfW(Shdr)))
        return false;
    uint64_t count = eh.e_shnum;
    if (count == 0) {  // more than 0xff00 sections: the count is in section 0
        ElfW(Shdr) first{};
        if (!file.read(eh.e_shoff, &first, sizeof first))
            return false;
        count = first.sh_size;
    }
    if (count == 0 || count > (1u << 20))
        return false;
    out->resize(count);
    return file.read(eh.e_shoff, out->data(), count * sizeof(ElfW(Shdr)));
}

std::vector<code_range> exec_sections(const std::vector<ElfW(Shdr)>& sections) {
    std::vector<code_range> ranges;
    for (const auto& sh : sections) {
        bool code = (sh.sh_flags & SHF_ALLOC) && (sh.sh_flags & SHF_EXECINSTR);
        if (code && sh.sh_type != SHT_NOBITS && sh.sh_size > 0)
            ranges.push_back({sh.sh_addr, sh.sh_offset, sh.sh_size});
    }
    return ranges;
}

// Without section headers, whole PF_X segments (possibly with some data).
std::vector<code_range> exec_segments(const loaded_object& obj) {
    std::vector<code_range> ranges;
    for (const auto& ph : obj.phdrs) {
        if (ph.p_type == PT_LOAD && (ph.p_flags & PF_X) && ph.p_filesz > 0)
            ranges.push_back({ph.p_vaddr, ph.p_offset, ph.p_filesz});
    }
    return ranges;
}

// Only ranges inside an executable segment are read from memory: a file that
// does not match the mapping must not send us to unmapped addresses.
bool inside_exec_segment(const loaded_object& obj, const code_range& r) {
    for (const auto& ph : obj.phdrs) {
        if (ph.p_type == PT_LOAD && (ph.p_flags & PF_X) && r.vaddr >= ph.p_vaddr &&
            r.vaddr - ph.p_vaddr <= ph.p_filesz && r.size <= ph.p_filesz - (r.vaddr - ph.p_vaddr))
            return true;
    }
    return false;
}

// ---------------------------------------------------------------------------
// Decoding.

struct found_site {
    uint64_t address;
    uint64_t file_offset;
    uint8_t kind;
    uint8_t length;
};

// The exact encodings we patch; prefixed forms (never emitted) are left alone.
int site_kind_of(const cs_insn& insn, bool want_tsc) {
    const uint8_t* b = insn.bytes;
    if (insn.id == X86_INS_CPUID && insn.size == 2 && b[0] == 0x0f && b[1] == 0xa2)
        return cpuid_site;
    if (!want_tsc)
        return -1;
    if (insn.id == X86_INS_RDTSC && insn.size == 2 && b[0] == 0x0f && b[1] == 0x31)
        return rdtsc_site;
    if (insn.id == X86_INS_RDTSCP && insn.size == 3 && b[0] == 0x0f && b[1] == 0x01 && b[2] == 0xf9)
        return rdtscp_site;
    return -1;
}

// Linear sweep; an undecodable byte is skipped so the sweep can resync.
void decode_range(csh cs, const std::vector<uint8_t>& code, uint64_t address, uint64_t file_offset,
                  bool want_tsc, std::vector<found_site>* out) {
    cs_insn* insn = cs_malloc(cs);
    const uint8_t* p = code.data();
    size_t left = code.size();
    uint64_t pc = address;
    while (left > 0) {
        if (!cs_disasm_iter(cs, &p, &left, &pc, insn)) {
            ++p;
            --left;
            ++pc;
            continue;
        }
        int kind = site_kind_of(*insn, want_tsc);
        if (kind >= 0) {
            uint64_t offset = file_offset + (insn->address - address);
            out->push_back({insn->address, offset, static_cast<uint8_t>(kind), static_cast<uint8_t>(insn->size)});
        }
    }
    cs_free(insn, 1);
}

std::vector<found_site> find_sites(csh cs, const loaded_object& obj, const char* file_path, bool want_tsc) {
    std::vector<found_site> sites;
    file_reader file(file_path);
    if (!file.ok())
        return sites;
    std::vector<ElfW(Shdr)> sections;
    std::vector<code_range> ranges =
        read_section_headers(file, &sections) ? exec_sections(sections) : exec_segments(obj);
    for (const code_range& r : ranges) {
        std::vector<uint8_t> bytes(r.size);
        if (!inside_exec_segment(obj, r) || !file.read(r.file_offset, bytes.data(), r.size))
            continue;
        // What runs must be what the file says, else the file is not the one
        // mapped (replaced on disk) or someone else rewrote the code.
        if (std::memcmp(bytes.data(), reinterpret_cast<const void*>(obj.base + r.vaddr), r.size) != 0)
            continue;
        decode_range(cs, bytes, obj.base + r.vaddr, r.file_offset, want_tsc, &sites);
    }
    return sites;
}

// ---------------------------------------------------------------------------
// Writing UD2.

struct mapping {
    uint64_t start, end;
    int prot;
};

std::vector<mapping> read_maps() {
    std::vector<mapping> maps;
    std::string text;
    int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return maps;
    char buf[8192];
    ssize_t n;
    while ((n = read(fd, buf, sizeof buf)) > 0 || (n < 0 && errno == EINTR)) {
        if (n > 0)
            text.append(buf, static_cast<size_t>(n));
    }
    close(fd);
    const char* p = text.c_str();
    while (*p) {
        char* end = nullptr;
        mapping m{};
        m.start = std::strtoull(p, &end, 16);
        m.end = std::strtoull(end + 1, &end, 16);
        const char* perms = end + 1;
        m.prot = (perms[0] == 'r' ? PROT_READ : 0) | (perms[1] == 'w' ? PROT_WRITE : 0) |
                 (perms[2] == 'x' ? PROT_EXEC : 0);
        maps.push_back(m);
        const char* nl = std::strchr(perms, '\n');
        if (!nl)
            break;
        p = nl + 1;
    }
    return maps;
}

// The page's protection now; code we decoded lies in an R-X segment.
int page_prot(const std::vector<mapping>& maps, uint64_t page) {
    for (const mapping& m : maps) {
        if (page >= m.start && page < m.end)
            return m.prot;
    }
    return PROT_READ | PROT_EXEC;
}

uint64_t page_size() {
    static const long size = sysconf(_SC_PAGESIZE);
    return size > 0 ? static_cast<uint64_t>(size) : 4096;
}

// Writable while keeping exec (other threads may run code on the page); a
// kernel that refuses W+X only gets the short window without exec.
bool make_writable(uint64_t page, int prot) {
    void* p = reinterpret_cast<void*>(page);
    return mprotect(p, page_size(), prot | PROT_WRITE) == 0 ||
           mprotect(p, page_size(), (prot & ~PROT_EXEC) | PROT_WRITE) == 0;
}

uint8_t original_second_byte(uint8_t kind) {
    return kind == cpuid_site ? 0xa2 : kind == rdtsc_site ? 0x31 : 0x01;
}

// Only the second byte changes (0F A2, 0F 31, 0F 01 -> 0F 0B), so a thread
// running the code sees either the old or the new instruction, never a mix.
// Returns whether UD2 is now in place (then the site must be answered, even
// if restoring the protection failed and *error says so).
bool write_ud2(const found_site& site, const std::vector<mapping>& maps, std::string* error) {
    uint64_t target = site.address + 1;
    uint64_t page = target & ~(page_size() - 1);
    auto* bytes = reinterpret_cast<volatile uint8_t*>(site.address);
    if (bytes[0] != 0x0f || bytes[1] != original_second_byte(site.kind))
        return false;  // not what we decoded any more: leave it
    int prot = page_prot(maps, page);
    bool was_writable = prot & PROT_WRITE;
    if (!was_writable && !make_writable(page, prot)) {
        *error = std::string("mprotect: ") + std::strerror(errno);
        return false;
    }
    bytes[1] = 0x0b;
    if (!was_writable && mprotect(reinterpret_cast<void*>(page), page_size(), prot) != 0)
        *error = std::string("mprotect (restoring): ") + std::strerror(errno);
    return true;
}

// ---------------------------------------------------------------------------
// Bookkeeping (under g_mutex).

struct object_record {
    std::string key_name;  // dlpi_name
    uint64_t base;
    std::string path;
    std::vector<found_site> sites;  // the patched ones
};

struct patch_state {
    csh cs = 0;
    bool patch_rdtsc = true;
    std::vector<object_record> objects;
};

patch_state* g_state = nullptr;  // allocated by install_traps, never freed

void publish(const std::vector<object_record>& objects, const std::vector<found_site>* pending) {
    std::vector<trap_site> all;
    for (const auto& rec : objects) {
        for (const auto& s : rec.sites)
            all.push_back({s.address, s.kind, s.length});
    }
    if (pending) {
        for (const auto& s : *pending)
            all.push_back({s.address, s.kind, s.length});
    }
    std::sort(all.begin(), all.end(), [](const trap_site& a, const trap_site& b) { return a.address < b.address; });
    auto* sites = new trap_site[all.size() ? all.size() : 1];
    std::copy(all.begin(), all.end(), sites);
    const site_table* replaced = g_table.load(std::memory_order_relaxed);
    g_table.store(new site_table{all.size(), sites, replaced}, std::memory_order_release);
}

bool same_object(const object_record& rec, const loaded_object& obj) {
    return rec.base == obj.base && rec.key_name == obj.name;
}

// A record is live while its object is loaded and its first site still holds
// our UD2 (an object unloaded and loaded again at the same place has fresh code).
bool still_patched(const object_record& rec, const std::vector<loaded_object>& objects) {
    for (const auto& obj : objects) {
        if (!same_object(rec, obj))
            continue;
        if (rec.sites.empty())
            return true;
        return reinterpret_cast<const volatile uint8_t*>(rec.sites.front().address)[1] == 0x0b;
    }
    return false;
}

bool already_recorded(const patch_state& st, const loaded_object& obj) {
    return std::any_of(st.objects.begin(), st.objects.end(),
                       [&](const object_record& rec) { return same_object(rec, obj); });
}

struct pending_object {
    object_record record;
    std::vector<found_site> candidates;
};

std::vector<pending_object> decode_new_objects(patch_state& st) {
    std::vector<loaded_object> objects = loaded_objects();
    st.objects.erase(std::remove_if(st.objects.begin(), st.objects.end(),
                                    [&](const object_record& rec) { return !still_patched(rec, objects); }),
                     st.objects.end());
    std::vector<pending_object> pending;
    for (const auto& obj : objects) {
        if (excluded(obj) || already_recorded(st, obj))
            continue;
        pending_object p;
        p.record.key_name = obj.name;
        p.record.base = obj.base;
        p.record.path = obj.is_main ? main_program_path() : obj.name;
        p.candidates = find_sites(st.cs, obj, obj.is_main ? "/proc/self/exe" : obj.name.c_str(), st.patch_rdtsc);
        pending.push_back(std::move(p));
    }
    return pending;
}

// Publishes the candidates before writing UD2 (a trap must always find its
// site), patches, then publishes exactly what was patched.
bool patch_pending(patch_state& st, std::vector<pending_object>& pending, std::string* error) {
    std::vector<found_site> all_candidates;
    for (const auto& p : pending)
        all_candidates.insert(all_candidates.end(), p.candidates.begin(), p.candidates.end());
    publish(st.objects, &all_candidates);
    std::vector<mapping> maps = read_maps();
    bool ok = true;
    for (auto& p : pending) {
        for (const auto& site : p.candidates) {
            std::string message;
            if (write_ud2(site, maps, &message))
                p.record.sites.push_back(site);
            if (!message.empty() && ok) {
                ok = false;
                if (error)
                    *error = p.record.path + ": " + message;
            }
        }
        st.objects.push_back(std::move(p.record));
    }
    publish(st.objects, nullptr);
    return ok;
}

void fail(std::string* error, const std::string& message) {
    if (error)
        *error = message;
}

bool install_handler(std::string* error) {
    struct sigaction ours{};
    ours.sa_sigaction = on_sigill;
    ours.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&ours.sa_mask);
    struct sigaction previous{};
    if (real_sigaction()(SIGILL, &ours, &previous) != 0) {
        fail(error, std::string("sigaction(SIGILL): ") + std::strerror(errno));
        return false;
    }
    set_program_action(previous);
    return true;
}

}  // namespace

bool install_traps(const trap_answers& a, bool patch_rdtsc, std::string* error) {
    std::lock_guard<std::mutex> lock(g_mutex);
    if (g_state) {
        fail(error, "traps are already installed");
        return false;
    }
    if (!a.cpuid || (patch_rdtsc && !a.rdtsc)) {
        fail(error, "trap_answers: cpuid (and rdtsc when patching it) must be set");
        return false;
    }
    csh cs = 0;
    if (cs_open(CS_ARCH_X86, CS_MODE_64, &cs) != CS_ERR_OK) {
        fail(error, "capstone: cannot open an x86-64 disassembler");
        return false;
    }
    real_sigaction();  // resolved now, not first inside the handler
    g_answers = a;
    g_state = new patch_state;
    g_state->cs = cs;
    g_state->patch_rdtsc = patch_rdtsc;
    std::vector<pending_object> pending = decode_new_objects(*g_state);
    // The table exists before the handler, and the handler before any UD2.
    publish(g_state->objects, nullptr);
    if (!install_handler(error)) {
        cs_close(&g_state->cs);  // nothing patched yet: a later call may retry
        g_state = nullptr;       // (leaked: the table may still point into it)
        return false;
    }
    g_installed.store(true, std::memory_order_release);
    return patch_pending(*g_state, pending, error);
}

bool patch_new_objects(std::string* error) {
    std::lock_guard<std::mutex> lock(g_mutex);
    if (!g_state || !g_installed.load(std::memory_order_acquire))
        return true;
    std::vector<pending_object> pending = decode_new_objects(*g_state);
    return patch_pending(*g_state, pending, error);
}

bool traps_installed() {
    return g_installed.load(std::memory_order_acquire);
}

std::vector<patched_site> patched_sites() {
    std::lock_guard<std::mutex> lock(g_mutex);
    std::vector<patched_site> out;
    if (!g_state)
        return out;
    for (const auto& rec : g_state->objects) {
        for (const auto& s : rec.sites)
            out.push_back({rec.path, s.file_offset, s.address, s.kind});
    }
    return out;
}

patch_counts patched_counts() {
    patch_counts counts;
    for (const auto& s : patched_sites()) {
        size_t& n = s.kind == cpuid_site ? counts.cpuid : s.kind == rdtsc_site ? counts.rdtsc : counts.rdtscp;
        ++n;
    }
    return counts;
}

int hold_sigill_action(const struct sigaction* act, struct sigaction* old) {
    if (!g_installed.load(std::memory_order_acquire))
        return real_sigaction()(SIGILL, act, old);
    struct sigaction previous = program_action();
    if (act)
        set_program_action(*act);
    if (old)
        *old = previous;
    return 0;
}

}  // namespace pmonsim::interpose
