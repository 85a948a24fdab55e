#include "serve/machine_view.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <set>
#include <stdexcept>

#include "serve/core_pmu.h"
#include "serve/host_pmus.h"
#include "serve/perf_pmu.h"

namespace pmonsim::serve {

namespace {

unsigned ceil_log2(unsigned n) {
    unsigned b = 0;
    while ((1u << b) < n) ++b;
    return b;
}

std::string hex(uint64_t v, int digits) {
    char b[32];
    std::snprintf(b, sizeof b, "%0*llx", digits, static_cast<unsigned long long>(v));
    return b;
}

// Files of the tree: every write checked, parents made as needed.
class tree_writer {
public:
    explicit tree_writer(std::string root) : root_(std::move(root)) {}
    void file(const std::string& rel, const std::string& content, mode_t mode = 0644) {
        const std::string p = path(rel);
        make_parents(rel);
        const int fd = ::open(p.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, mode);
        if (fd < 0) fail(p);
        size_t done = 0;
        while (done < content.size()) {
            const ssize_t n = ::write(fd, content.data() + done, content.size() - done);
            if (n < 0) {
                const int e = errno;
                ::close(fd);
                errno = e;
                fail(p);
            }
            done += static_cast<size_t>(n);
        }
        if (::close(fd) != 0) fail(p);
    }
    void link(const std::string& rel, const std::string& target) {
        make_parents(rel);
        if (::symlink(target.c_str(), path(rel).c_str()) != 0) fail(path(rel));
    }
    void dir(const std::string& rel) {
        make_parents(rel + "/x");
    }

private:
    std::string path(const std::string& rel) const { return root_ + "/" + rel; }
    void make_parents(const std::string& rel) {
        for (size_t i = rel.find('/'); i != std::string::npos; i = rel.find('/', i + 1)) {
            const std::string d = rel.substr(0, i);
            if (!made_.insert(d).second) continue;  // (thousands of files share few directories)
            const std::string p = path(d);
            if (::mkdir(p.c_str(), 0755) != 0 && errno != EEXIST) fail(p);
        }
    }
    [[noreturn]] static void fail(const std::string& p) {
        throw std::runtime_error("cannot write the served machine's file " + p + ": " + std::strerror(errno));
    }
    std::string root_;
    std::set<std::string> made_;
};

// The host kernel's software PMUs (host_pmus.h), each linked by its real
// path, or as its type alone where the host has none.
void link_host_pmus(tree_writer& w) {
    for (const auto& [name, type] : kernel_pmus) {
        const std::string rel = std::string("sys/bus/event_source/devices/") + name;
        char real[PATH_MAX];
        if (::realpath(("/" + rel).c_str(), real)) w.link(rel, real);
        else w.file(rel + "/type", std::to_string(type) + "\n", 0444);
    }
}

}  // namespace

std::string cpu_list(const std::vector<unsigned>& cpus) {
    std::string out;
    for (size_t i = 0; i < cpus.size();) {
        size_t j = i;
        while (j + 1 < cpus.size() && cpus[j + 1] == cpus[j] + 1) ++j;
        if (!out.empty()) out += ',';
        out += std::to_string(cpus[i]);
        if (j > i) out += '-' + std::to_string(cpus[j]);
        i = j + 1;
    }
    return out;
}

std::string cpu_mask(const std::vector<unsigned>& cpus, unsigned cpu_count) {
    std::vector<uint32_t> words((cpu_count + 31) / 32, 0);
    for (unsigned c : cpus) words.at(c / 32) |= 1u << (c % 32);
    std::string out;
    for (size_t i = words.size(); i-- > 0;) {
        out += hex(words[i], 8);
        if (i) out += ',';
    }
    return out;
}

// The core PMU, "cpu" (type 4): its small platform model is serve/core_pmu.h.
static void write_core_pmu(tree_writer& w) {
    for (const auto& [rel, content] : core_pmu_files()) w.file("sys/devices/cpu/" + rel, content, 0444);
    w.link("sys/bus/event_source/devices/cpu", "../../../devices/cpu");
}

machine_view::machine_view(uncore_system& sys, uint64_t tsc_hz)
    : sys_(sys),
      id_(pmonsim::describe(sys.config().cpu).identity),
      tsc_hz_(tsc_hz),
      hidden_(hidden_host_pmus("/sys/bus/event_source/devices")) {
    // (Here, so that the server stops before it serves anything.)
    if (hidden_.size() >= sizeof wire::machine::hidden)
        throw std::runtime_error("the host has more perf PMUs than the served machine can hide (" +
                                 std::to_string(hidden_.size()) + " bytes of paths, at most " +
                                 std::to_string(sizeof wire::machine::hidden - 1) + ")");
    const uncore_config& cfg = sys.config();
    const unsigned per = cfg.cpus_per_socket;
    threads_ = per % 2 == 0 ? 2 : 1;
    cores_ = per / threads_;
    smt_shift_ = threads_ == 2 ? 1 : 0;
    package_shift_ = smt_shift_ + ceil_log2(cores_);
    for (unsigned c = 0; c < cfg.sockets * per; ++c) {
        const unsigned s = c / per, i = c % per, core = i % cores_, t = i / cores_;
        cpus_.push_back({s, core, t, s << package_shift_ | core << smt_shift_ | t});
    }
    for (unsigned s = 0; s < sys.sockets(); ++s) {
        const unsigned bus = cfg.bus_of(s);
        for (const auto& f : sys.socket(s).pci_functions()) {
            const register_def* id = f.table.find(0u);
            // Class: the box's PMON class for a function with counters,
            // "other system peripheral" (08h/80h) for the rest.
            bool counters = false;
            for (const auto& r : f.table.regs) counters |= r.role == reg_role::ctr;
            const uint32_t cls =
                counters ? pmonsim::describe(cfg.cpu).need(f.box->core().spec().kind).pci_class : 0x088000u;
            functions_.push_back({s, bus, f.dev, f.fn, static_cast<uint16_t>(id->reset),
                                  static_cast<uint16_t>(id->reset >> 16), cls, &f.table, f.table.title, {}});
        }
        for (const auto& p : platform_functions(cfg.cpu, cfg.uclk_ratio()))
            functions_.push_back({s, bus, p.dev, p.fn, 0x8086, p.device_id, p.class_code, nullptr, p.what, p.dwords});
    }
    std::sort(functions_.begin(), functions_.end(),
              [](const auto& a, const auto& b) { return a.bdf() < b.bdf(); });
}

bool presented_function::read_only(uint32_t offset) const {
    for (const platform_dword& d : dwords)
        if (d.read_only && offset >= d.offset && offset < d.offset + 4) return true;
    return false;
}

const presented_function* machine_view::function(uint32_t bdf) const {
    auto it = std::lower_bound(functions_.begin(), functions_.end(), bdf,
                               [](const presented_function& f, uint32_t v) { return f.bdf() < v; });
    return it != functions_.end() && it->bdf() == bdf ? &*it : nullptr;
}

wire::machine machine_view::describe(const std::string& root) const {
    wire::machine m{};
    m.version = wire::kVersion;
    m.family = id_.family;
    m.model = id_.model;
    m.stepping = id_.stepping;
    m.sockets = sys_.config().sockets;
    m.cpus_per_socket = sys_.config().cpus_per_socket;
    m.threads_per_core = threads_;
    m.smt_shift = smt_shift_;
    m.package_shift = package_shift_;
    m.tsc_hz = tsc_hz_;
    m.leaf1_ecx = id_.leaf1_ecx;
    m.leaf1_edx = id_.leaf1_edx;
    m.leaf7_ebx = id_.leaf7_ebx;
    m.l3_kb = id_.l3_kb;
    std::snprintf(m.brand, sizeof m.brand, "%s", id_.brand);
    if (root.size() >= sizeof m.root) throw std::runtime_error("the served machine's directory path is too long");
    std::snprintf(m.root, sizeof m.root, "%s", root.c_str());
    std::snprintf(m.hidden, sizeof m.hidden, "%s", hidden_.c_str());
    return m;
}

void machine_view::header(const presented_function& f, uint8_t out[64]) const {
    std::memset(out, 0, 64);
    auto put16 = [&](unsigned at, uint16_t v) { out[at] = v & 0xFF; out[at + 1] = v >> 8; };
    put16(0x00, f.vendor);
    put16(0x02, f.device);
    out[0x08] = static_cast<uint8_t>(id_.stepping);  // revision ID
    out[0x09] = f.class_code & 0xFF;
    out[0x0A] = (f.class_code >> 8) & 0xFF;
    out[0x0B] = (f.class_code >> 16) & 0xFF;
    bool multi = false;  // header type bit 7: the device has other functions
    for (const auto& g : functions_) multi |= g.bus == f.bus && g.dev == f.dev && g.fn != f.fn;
    out[0x0E] = multi ? 0x80 : 0x00;
    put16(0x2C, f.vendor);
    put16(0x2E, f.device);
}

void machine_view::config_space(const presented_function& f, uint8_t out[4096]) const {
    std::memset(out, 0, 4096);
    header(f, out);
    for (const platform_dword& d : f.dwords)
        for (unsigned i = 0; i < 4 && d.offset + i < 4096; ++i) out[d.offset + i] = static_cast<uint8_t>(d.value >> (8 * i));
}

void machine_view::write_tree(const std::string& root) const {
    tree_writer w(root);
    const unsigned n = static_cast<unsigned>(cpus_.size());
    const unsigned per = sys_.config().cpus_per_socket;
    auto cpus_where = [&](auto pred) {
        std::vector<unsigned> v;
        for (unsigned c = 0; c < n; ++c)
            if (pred(cpus_[c])) v.push_back(c);
        return v;
    };
    std::vector<unsigned> all = cpus_where([](const presented_cpu&) { return true; });
    const std::string all_list = cpu_list(all) + "\n";

    // /proc/cpuinfo
    std::string info;
    char line[256];
    for (unsigned c = 0; c < n; ++c) {
        const presented_cpu& p = cpus_[c];
        std::snprintf(line, sizeof line,
                      "processor\t: %u\nvendor_id\t: GenuineIntel\ncpu family\t: %u\nmodel\t\t: %u\n"
                      "model name\t: %s\nstepping\t: %u\nmicrocode\t: 0x0\ncpu MHz\t\t: %u.000\n",
                      c, id_.family, id_.model, id_.brand, id_.stepping, id_.base_mhz);
        info += line;
        std::snprintf(line, sizeof line,
                      "cache size\t: %u KB\nphysical id\t: %u\nsiblings\t: %u\ncore id\t\t: %u\n"
                      "cpu cores\t: %u\napicid\t\t: %u\ninitial apicid\t: %u\n",
                      id_.l3_kb, p.socket, per, p.core, cores_, p.apic_id, p.apic_id);
        info += line;
        info += "fpu\t\t: yes\nfpu_exception\t: yes\ncpuid level\t: 13\nwp\t\t: yes\nflags\t\t: ";
        info += id_.cpuinfo_flags;
        std::snprintf(line, sizeof line,
                      "\nbugs\t\t:\nbogomips\t: %u.00\nclflush size\t: 64\ncache_alignment\t: 64\n"
                      "address sizes\t: 46 bits physical, 48 bits virtual\npower management:\n\n",
                      2 * id_.base_mhz);
        info += line;
    }
    w.file("proc/cpuinfo", info, 0444);

    // /sys/devices/system/cpu
    const std::string sys_cpu = "sys/devices/system/cpu/";
    for (const char* f : {"present", "possible", "online"}) w.file(sys_cpu + f, all_list, 0444);
    w.file(sys_cpu + "offline", "\n", 0444);
    w.file(sys_cpu + "kernel_max", std::to_string(std::max(n, 64u) - 1) + "\n", 0444);
    struct cache_level {
        const char* name;
        unsigned level, kb, ways;
        const char* type;
        bool per_socket;
    };
    const cache_level caches[] = {{"index0", 1, 32, 8, "Data", false},
                                  {"index1", 1, 32, 8, "Instruction", false},
                                  {"index2", 2, 256, 8, "Unified", false},
                                  {"index3", 3, id_.l3_kb, 20, "Unified", true}};
    for (unsigned c = 0; c < n; ++c) {
        const presented_cpu& p = cpus_[c];
        const std::string d = sys_cpu + "cpu" + std::to_string(c) + "/";
        const auto core = cpus_where([&](const presented_cpu& q) { return q.socket == p.socket && q.core == p.core; });
        const auto pkg = cpus_where([&](const presented_cpu& q) { return q.socket == p.socket; });
        w.file(d + "online", "1\n");
        const std::string t = d + "topology/";
        w.file(t + "physical_package_id", std::to_string(p.socket) + "\n", 0444);
        w.file(t + "die_id", "0\n", 0444);
        w.file(t + "core_id", std::to_string(p.core) + "\n", 0444);
        w.file(t + "cluster_id", std::to_string(p.socket * cores_ + p.core) + "\n", 0444);
        for (const char* k : {"thread_siblings", "core_cpus", "cluster_cpus"}) {
            w.file(t + k, cpu_mask(core, n) + "\n", 0444);
            w.file(t + k + "_list", cpu_list(core) + "\n", 0444);
        }
        for (const char* k : {"core_siblings", "package_cpus", "die_cpus"}) {
            w.file(t + k, cpu_mask(pkg, n) + "\n", 0444);
            w.file(t + k + "_list", cpu_list(pkg) + "\n", 0444);
        }
        for (const auto& k : caches) {
            const std::string x = d + "cache/" + k.name + "/";
            const auto& share = k.per_socket ? pkg : core;
            w.file(x + "level", std::to_string(k.level) + "\n", 0444);
            w.file(x + "type", std::string(k.type) + "\n", 0444);
            w.file(x + "size", std::to_string(k.kb) + "K\n", 0444);
            w.file(x + "coherency_line_size", "64\n", 0444);
            w.file(x + "ways_of_associativity", std::to_string(k.ways) + "\n", 0444);
            w.file(x + "number_of_sets", std::to_string(k.kb * 1024 / 64 / k.ways) + "\n", 0444);
            w.file(x + "physical_line_partition", "1\n", 0444);
            w.file(x + "shared_cpu_map", cpu_mask(share, n) + "\n", 0444);
            w.file(x + "shared_cpu_list", cpu_list(share) + "\n", 0444);
            w.file(x + "id", std::to_string(k.per_socket ? p.socket : p.core) + "\n", 0444);
        }
        const std::string f = d + "cpufreq/", khz = std::to_string(id_.base_mhz * 1000) + "\n";
        for (const char* k : {"cpuinfo_max_freq", "base_frequency", "scaling_cur_freq", "scaling_max_freq",
                              "cpuinfo_cur_freq"})
            w.file(f + k, khz, 0444);
        w.file(f + "cpuinfo_min_freq", "1200000\n", 0444);
        w.file(f + "scaling_min_freq", "1200000\n", 0444);
        w.file(f + "scaling_governor", "performance\n", 0444);
        w.file("dev/cpu/" + std::to_string(c) + "/msr", "", 0600);
    }

    // /sys/devices/system/node: one NUMA node per socket.
    const unsigned sockets = sys_.config().sockets;
    std::vector<unsigned> node_ids;
    for (unsigned s = 0; s < sockets; ++s) node_ids.push_back(s);
    for (const char* k : {"online", "possible", "has_cpu", "has_memory", "has_normal_memory"})
        w.file(std::string("sys/devices/system/node/") + k, cpu_list(node_ids) + "\n", 0444);
    for (unsigned s = 0; s < sockets; ++s) {
        const std::string d = "sys/devices/system/node/node" + std::to_string(s) + "/";
        const auto pkg = cpus_where([&](const presented_cpu& q) { return q.socket == s; });
        w.file(d + "cpumap", cpu_mask(pkg, n) + "\n", 0444);
        w.file(d + "cpulist", cpu_list(pkg) + "\n", 0444);
        std::string dist;
        for (unsigned o = 0; o < sockets; ++o) dist += (o ? " " : "") + std::to_string(o == s ? 10 : 21);
        w.file(d + "distance", dist + "\n", 0444);
        const std::string node = "Node " + std::to_string(s) + " ";
        w.file(d + "meminfo",
               node + "MemTotal:       33554432 kB\n" + node + "MemFree:        31457280 kB\n" + node +
                   "MemUsed:         2097152 kB\n" + node + "HugePages_Total:     0\n" + node +
                   "HugePages_Free:      0\n" + node + "HugePages_Surp:      0\n",
               0444);
    }

    // PCI: sysfs, /proc/bus/pci, and the MCFG table that covers every bus.
    std::string proc_devices;
    for (const presented_function& f : functions_) {
        const std::string slot = "0000:" + hex(f.bus, 2) + ":" + hex(f.dev, 2) + "." + std::to_string(f.fn);
        const std::string d = "sys/devices/pci0000:" + hex(f.bus, 2) + "/" + slot + "/";
        const auto pkg = cpus_where([&](const presented_cpu& q) { return q.socket == f.socket; });
        w.file(d + "vendor", "0x" + hex(f.vendor, 4) + "\n", 0444);
        w.file(d + "device", "0x" + hex(f.device, 4) + "\n", 0444);
        w.file(d + "subsystem_vendor", "0x" + hex(f.vendor, 4) + "\n", 0444);
        w.file(d + "subsystem_device", "0x" + hex(f.device, 4) + "\n", 0444);
        w.file(d + "class", "0x" + hex(f.class_code, 6) + "\n", 0444);
        w.file(d + "revision", "0x" + hex(id_.stepping, 2) + "\n", 0444);
        w.file(d + "local_cpus", cpu_mask(pkg, n) + "\n", 0444);
        w.file(d + "local_cpulist", cpu_list(pkg) + "\n", 0444);
        w.file(d + "numa_node", std::to_string(f.socket) + "\n", 0444);
        w.file(d + "irq", "0\n", 0444);
        w.file(d + "enable", "1\n", 0644);
        std::string resource;
        for (int i = 0; i < 13; ++i) resource += "0x0000000000000000 0x0000000000000000 0x0000000000000000\n";
        w.file(d + "resource", resource, 0444);
        // The placeholder of the configuration file holds the header (and a
        // platform function's registers), so that even a reader the
        // interposer does not see (stdio, mmap) finds the IDs.
        std::string config(4096, '\0');
        config_space(f, reinterpret_cast<uint8_t*>(config.data()));
        w.file(d + "config", config, 0644);
        w.link("sys/bus/pci/devices/" + slot, "../../../devices/pci0000:" + hex(f.bus, 2) + "/" + slot);
        w.file("proc/bus/pci/" + hex(f.bus, 2) + "/" + hex(f.dev, 2) + "." + std::to_string(f.fn), config, 0644);
        proc_devices += hex(f.bus, 2) + hex(f.dev << 3 | f.fn, 2) + "\t" + hex(f.vendor, 4) + hex(f.device, 4) + "\t0";
        for (int i = 0; i < 14; ++i) proc_devices += "\t" + std::string(15, ' ') + "0";
        proc_devices += "\t\n";
    }
    w.file("proc/bus/pci/devices", proc_devices, 0444);
    w.dir("sys/bus/pci/devices");
    std::string mcfg(44, '\0');
    auto put = [&](std::string& s, size_t at, uint64_t v, int bytes) {
        for (int i = 0; i < bytes; ++i) s[at + i] = static_cast<char>(v >> (8 * i));
    };
    mcfg.resize(60, '\0');
    std::memcpy(&mcfg[0], "MCFG", 4);
    put(mcfg, 4, mcfg.size(), 4);
    mcfg[8] = 1;  // revision
    std::memcpy(&mcfg[10], "PMNSIM", 6);
    std::memcpy(&mcfg[16], "PMONSIM ", 8);
    put(mcfg, 24, 1, 4);
    std::memcpy(&mcfg[28], "PMON", 4);
    put(mcfg, 32, 1, 4);
    put(mcfg, 44, 0x80000000ull, 8);  // ECAM base; segment 0, buses 0..255
    mcfg[54] = 0;
    mcfg[55] = static_cast<char>(0xFF);
    uint8_t sum = 0;
    for (char ch : mcfg) sum = static_cast<uint8_t>(sum + static_cast<uint8_t>(ch));
    mcfg[9] = static_cast<char>(-sum);  // checksum: the table sums to 0
    w.file("sys/firmware/acpi/tables/MCFG", mcfg, 0400);

    // The kernel's perf PMUs: the host kernel's software ones (its hardware
    // PMUs are hidden: hidden_host_pmus), the machine's core PMU and the
    // uncore driver's boxes (serve/perf_pmu.h), each counted on the first CPU
    // of every socket.
    link_host_pmus(w);
    std::vector<unsigned> firsts;
    for (unsigned s = 0; s < sockets; ++s) firsts.push_back(s * per);
    for (const presented_pmu& p : presented_pmus(sys_)) {
        for (const auto& [rel, content] : pmu_files(p, cpu_list(firsts)))
            w.file("sys/devices/" + p.name + "/" + rel, content, 0444);
        w.link("sys/bus/event_source/devices/" + p.name, "../../../devices/" + p.name);
    }
    write_core_pmu(w);

    // Kernel settings the tools read or write: written here, never the host's.
    w.file("proc/sys/kernel/nmi_watchdog", "1\n");
    w.file("proc/sys/kernel/perf_event_paranoid", "2\n");
    w.file("sys/module/msr/parameters/allow_writes", "on\n");
}

}  // namespace pmonsim::serve
