// The driver layer's target on a real Linux machine (see hw_target.h).
//
// Behaviour of the kernel interfaces relied on (Linux arch/x86/kernel/msr.c,
// drivers/pci/pci-sysfs.c):
//   - /dev/cpu/N/msr: open() needs CAP_SYS_RAWIO (EPERM without it) besides
//     the file permissions (EACCES), and fails with ENXIO for an offline CPU;
//     pread/pwrite of 8 bytes at offset = MSR address run rdmsr/wrmsr on CPU
//     N, and fail with EIO when the instruction faults (#GP: MSR not
//     implemented, or a reserved bit written). Under kernel lockdown, or with
//     msr.allow_writes=off, pwrite fails with EPERM.
//   - /sys/bus/pci/devices/D:B:D.F/config: mode 0644 (writes need root); a
//     reader without CAP_SYS_ADMIN sees only the first 64 bytes (a short
//     read beyond them); reads and writes beyond the configuration space's
//     size (256 or 4096) are short.
#include "driver/hw_target.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>
#include <tuple>

namespace pmonsim::driver {

namespace {

namespace fs = std::filesystem;

std::string format(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
std::string format(const char* fmt, ...) {
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    std::vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    return buf;
}

std::string trim(const std::string& s) {
    size_t b = 0, e = s.size();
    while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
    while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
    return s.substr(b, e - b);
}

bool all_digits(const std::string& s) {
    return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// An unsigned number in `base` filling the whole (trimmed) text.
std::optional<unsigned long> parse_number(const std::string& text, int base) {
    const std::string t = trim(text);
    if (t.empty() || t[0] == '-' || t[0] == '+') return std::nullopt;
    char* end = nullptr;
    errno = 0;
    const unsigned long v = std::strtoul(t.c_str(), &end, base);
    if (errno != 0 || end != t.c_str() + t.size()) return std::nullopt;
    return v;
}

// The text files of the tree are small (/proc/cpuinfo of a large machine is
// a few hundred KB): anything longer is not what it should be.
constexpr size_t kMaxTextFile = 4 << 20;

// A text file of the tree, read bounded; nullopt if it cannot be opened, is
// not a regular file (a FIFO, a device such as /dev/zero: it would block or
// never end), is a symlink at its last component, or is longer than
// kMaxTextFile. errno says why when it could not be opened.
std::optional<std::string> read_text(const std::string& file) {
    const int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
    if (fd < 0) return std::nullopt;
    struct stat st;
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        ::close(fd);
        errno = EINVAL;
        return std::nullopt;
    }
    std::string s;
    char buf[65536];
    for (;;) {
        const ssize_t n = ::read(fd, buf, sizeof buf);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        s.append(buf, static_cast<size_t>(n));
        if (s.size() > kMaxTextFile) {
            ::close(fd);
            errno = EFBIG;
            return std::nullopt;
        }
    }
    ::close(fd);
    return s;
}

// "0-3,5,7-8" as in /sys/devices/system/cpu/online: the CPUs, each once, in
// order (a range repeated many times costs nothing more).
std::vector<unsigned> parse_cpu_list(const std::string& text) {
    constexpr unsigned long kMaxCpu = 65535;
    std::vector<bool> in_list(kMaxCpu + 1, false);
    std::stringstream in(trim(text));
    std::string item;
    while (std::getline(in, item, ',')) {
        const size_t dash = item.find('-');
        const auto lo = parse_number(item.substr(0, dash), 10);
        const auto hi = dash == std::string::npos ? lo : parse_number(item.substr(dash + 1), 10);
        if (!lo || !hi || *hi < *lo || *hi > kMaxCpu) continue;
        for (unsigned long c = *lo; c <= *hi; ++c) in_list[c] = true;
    }
    std::vector<unsigned> out;
    for (unsigned c = 0; c <= kMaxCpu; ++c)
        if (in_list[c]) out.push_back(c);
    return out;
}

uint64_t key_of(const pci_address& a) {
    return (uint64_t{a.domain} << 24) | (uint64_t{a.bus} << 16) | (uint64_t{a.dev} << 8) | a.fn;
}

uint64_t from_le(const uint8_t* b, unsigned n) {
    uint64_t v = 0;
    for (unsigned i = n; i-- > 0;) v = (v << 8) | b[i];
    return v;
}

void to_le(uint64_t v, uint8_t* b, unsigned n) {
    for (unsigned i = 0; i < n; ++i) b[i] = static_cast<uint8_t>(v >> (8 * i));
}

struct cpuinfo_id {
    int read_errno = 0;  // non-zero: the file could not be read
    std::string vendor;
    std::optional<unsigned long> family, model;
};

// The first processor's vendor_id, "cpu family" and "model" (not "model name").
cpuinfo_id read_cpuinfo(const std::string& file) {
    cpuinfo_id id;
    errno = 0;
    const std::optional<std::string> text = read_text(file);
    if (!text) {
        id.read_errno = errno ? errno : ENOENT;
        return id;
    }
    std::istringstream in(*text);
    std::string line;
    while (std::getline(in, line)) {
        const size_t colon = line.find(':');
        if (colon == std::string::npos) {
            if (trim(line).empty() && id.family && id.model) break;  // end of the first processor
            continue;
        }
        const std::string key = trim(line.substr(0, colon)), value = trim(line.substr(colon + 1));
        if (key == "vendor_id" && id.vendor.empty()) id.vendor = value;
        else if (key == "cpu family" && !id.family) id.family = parse_number(value, 10);
        else if (key == "model" && !id.model) id.model = parse_number(value, 10);
    }
    return id;
}

std::optional<cpu_model> model_of(const cpuinfo_id& id) {
    if (id.read_errno || !id.family || !id.model || *id.family != 6) return std::nullopt;
    if (!id.vendor.empty() && id.vendor != "GenuineIntel") return std::nullopt;
    if (const cpu_desc* d = find_cpu(*id.family, *id.model)) return d->key;
    return std::nullopt;
}

std::string root_path(const std::string& root, const std::string& rel) {
    std::string r = root;
    while (!r.empty() && r.back() == '/') r.pop_back();
    return r + rel;
}

}  // namespace

std::optional<cpu_model> detect_cpu_model(const std::string& root) {
    return model_of(read_cpuinfo(root_path(root, "/proc/cpuinfo")));
}

cpu_model require_supported_cpu(const std::string& root) {
    const std::string file = root_path(root, "/proc/cpuinfo");
    const cpuinfo_id id = read_cpuinfo(file);
    if (const auto m = model_of(id)) return *m;
    std::string supported = "pmonsim supports GenuineIntel";
    for (const cpu_desc& d : cpu_registry())
        supported += format("%s family %u model 0x%X (%u: %s, %s)", &d == &cpu_registry().front() ? "" : ",",
                            d.identity.family, d.identity.model, d.identity.model, d.title, d.name);
    if (id.read_errno)
        throw hw_error("cannot read " + file + " to identify the CPU: " + std::strerror(id.read_errno));
    if (!id.family || !id.model)
        throw hw_error(file + " has no 'cpu family' and 'model' lines: cannot identify the CPU; " + supported);
    throw hw_error(format("unsupported CPU: %s family %lu model 0x%lX (%lu); ",
                          id.vendor.empty() ? "unknown vendor" : id.vendor.c_str(), *id.family,
                          *id.model, *id.model) +
                   supported);
}

std::string pci_slot_name(const pci_address& a) {
    return format("%04x:%02x:%02x.%x", a.domain, a.bus, a.dev, a.fn);
}

// ---- construction --------------------------------------------------------

hw_target::hw_target(std::string root) : start_(std::chrono::steady_clock::now()) {
    root_ = std::move(root);
    while (!root_.empty() && root_.back() == '/') root_.pop_back();

    std::vector<unsigned> cpus;
    std::error_code ec;
    for (fs::directory_iterator it(path("/dev/cpu"), ec), end; !ec && it != end; it.increment(ec)) {
        const std::string name = it->path().filename().string();
        if (all_digits(name) && name.size() <= 5) cpus.push_back(static_cast<unsigned>(std::stoul(name)));
    }
    if (cpus.empty())
        if (const auto online = read_text(path("/sys/devices/system/cpu/online")))
            cpus = parse_cpu_list(*online);
    if (cpus.empty())
        throw hw_error("cannot find the CPUs: " + path("/dev/cpu") + " has no CPU entries and " +
                       path("/sys/devices/system/cpu/online") + " cannot be read");

    const unsigned count = *std::max_element(cpus.begin(), cpus.end()) + 1;
    present_.assign(count, false);
    for (unsigned c : cpus) present_[c] = true;
    package_.assign(count, no_package);
    for (unsigned c = 0; c < count; ++c)
        if (const auto t = read_text(path(format("/sys/devices/system/cpu/cpu%u/topology/physical_package_id", c))))
            if (const auto p = parse_number(*t, 10)) package_[c] = static_cast<unsigned>(*p);
    msr_fds_.assign(count, -1);
}

hw_target::~hw_target() {
    for (int fd : msr_fds_)
        if (fd >= 0) ::close(fd);
    for (const auto& [key, fd] : config_fds_) ::close(fd);
}

std::string hw_target::path(const std::string& rel) const { return root_ + rel; }

std::string hw_target::msr_path(unsigned cpu) const { return path(format("/dev/cpu/%u/msr", cpu)); }

std::string hw_target::config_path(const pci_address& a) const {
    return path("/sys/bus/pci/devices/" + pci_slot_name(a) + "/config");
}

bool hw_target::fail(std::string why) {
    last_error_ = std::move(why);
    return false;
}

// What sys_open() refused, said plainly.
static void refuse_odd_file(const std::string& file, int e) {
    if (e == ELOOP)
        throw hw_error(file + " is a symbolic link: pmonsim does not follow links to the files it writes");
    if (e == EINVAL)
        throw hw_error(file + " is neither a device nor a regular file (a FIFO, a directory?): refusing it");
}

// Every device file is opened without following a symlink at its last
// component, and must be a character device (/dev/cpu/N/msr) or a regular
// file (sysfs config; a test tree's msr): never a FIFO, a directory or a
// link to something else.
int hw_target::sys_open(const std::string& p, int flags) {
    const int fd = ::open(p.c_str(), flags | O_NOFOLLOW | O_NONBLOCK);
    if (fd < 0) return fd;
    struct stat st;
    if (::fstat(fd, &st) != 0 || !(S_ISCHR(st.st_mode) || S_ISREG(st.st_mode))) {
        ::close(fd);
        errno = EINVAL;
        return -1;
    }
    return fd;
}

ssize_t hw_target::sys_pread(int fd, void* buf, size_t n, off_t offset) { return ::pread(fd, buf, n, offset); }

ssize_t hw_target::sys_pwrite(int fd, const void* buf, size_t n, off_t offset) {
    return ::pwrite(fd, buf, n, offset);
}

// ---- CPUs and MSRs -------------------------------------------------------

unsigned hw_target::cpu_count() const { return static_cast<unsigned>(present_.size()); }

bool hw_target::cpu_present(unsigned cpu) const { return cpu < present_.size() && present_[cpu]; }

unsigned hw_target::package_of(unsigned cpu) const { return cpu < package_.size() ? package_[cpu] : no_package; }

namespace {

std::string msr_permission_advice(const std::string& pattern) {
    return "run as root, or give the user CAP_SYS_RAWIO and read/write access to " + pattern;
}

}  // namespace

int hw_target::msr_fd(unsigned cpu) {
    if (cpu >= cpu_count()) {
        fail(format("CPU %u does not exist (CPUs 0..%u)", cpu, cpu_count() - 1));
        return -1;
    }
    if (msr_fds_[cpu] >= 0) return msr_fds_[cpu];
    const std::string file = msr_path(cpu);
    if (!present_[cpu]) {
        fail(format("CPU %u is offline (%s)", cpu, file.c_str()));
        return -1;
    }
    const int fd = sys_open(file, O_RDWR | O_CLOEXEC);
    if (fd >= 0) return msr_fds_[cpu] = fd;
    const int e = errno;
    if (e == ENOENT) {
        std::error_code ec;
        const std::string first = msr_path(0);
        if (!fs::exists(first, ec))
            throw hw_error(first + " does not exist: the msr kernel module is not loaded; run 'modprobe msr'");
        fail(format("CPU %u: %s does not exist (is the CPU offline?)", cpu, file.c_str()));
        return -1;
    }
    if (e == ENXIO) {
        fail(format("CPU %u is offline (%s: %s)", cpu, file.c_str(), std::strerror(e)));
        return -1;
    }
    if (e == EACCES || e == EPERM)
        throw hw_error("cannot open " + file + ": " + std::strerror(e) + "; " +
                       msr_permission_advice(path("/dev/cpu/*/msr")));
    refuse_odd_file(file, e);
    throw hw_error("cannot open " + file + ": " + std::strerror(e));
}

void hw_target::check_msr_access() {
    for (unsigned c = 0; c < cpu_count(); ++c)
        if (present_[c] && msr_fd(c) < 0) throw hw_error(last_error_);
}

bool hw_target::msr_read(unsigned cpu, uint32_t msr, uint64_t& value) {
    const int fd = msr_fd(cpu);
    if (fd < 0) return false;
    uint8_t b[8];
    const ssize_t r = sys_pread(fd, b, sizeof b, static_cast<off_t>(msr));
    if (r == static_cast<ssize_t>(sizeof b)) {
        value = from_le(b, 8);
        return true;
    }
    const int e = r < 0 ? errno : EIO;  // the msr driver never reads short: as EIO
    const std::string what = format("CPU %u cannot read MSR 0x%08x (%s: %s)", cpu, msr,
                                    msr_path(cpu).c_str(), std::strerror(e));
    if (e == EPERM || e == EACCES)
        throw hw_error(what + "; " + msr_permission_advice(path("/dev/cpu/*/msr")));
    if (e == EIO) return fail(what + ": the MSR is not implemented on this CPU");
    return fail(what);
}

bool hw_target::msr_write(unsigned cpu, uint32_t msr, uint64_t value) {
    const int fd = msr_fd(cpu);
    if (fd < 0) return false;
    uint8_t b[8];
    to_le(value, b, 8);
    const ssize_t r = sys_pwrite(fd, b, sizeof b, static_cast<off_t>(msr));
    if (r == static_cast<ssize_t>(sizeof b)) return true;
    const int e = r < 0 ? errno : EIO;
    const std::string what = format("CPU %u cannot set MSR 0x%08x to 0x%016llx (%s: %s)", cpu, msr,
                                    static_cast<unsigned long long>(value), msr_path(cpu).c_str(),
                                    std::strerror(e));
    if (e == EPERM || e == EACCES)
        throw hw_error(what + "; " + msr_permission_advice(path("/dev/cpu/*/msr")) +
                       " (as root, the kernel refuses MSR writes under lockdown, e.g. with Secure Boot, "
                       "or with msr.allow_writes=off)");
    if (e == EIO)
        return fail(what + ": the MSR is not implemented on this CPU, or it refuses the value (reserved bits)");
    return fail(what);
}

// ---- PCI configuration space ---------------------------------------------

namespace {

const char* const pci_permission_advice =
    "run as root (writing PCI configuration space, and reading it beyond the first 64 bytes, "
    "needs CAP_SYS_ADMIN)";

}  // namespace

int hw_target::config_fd(const pci_address& a) {
    const auto it = config_fds_.find(key_of(a));
    if (it != config_fds_.end()) return it->second;
    const std::string file = config_path(a);
    const int fd = sys_open(file, O_RDWR | O_CLOEXEC);
    if (fd >= 0) return config_fds_[key_of(a)] = fd;
    const int e = errno;
    if (e == ENOENT || e == ENOTDIR) {
        fail("no PCI function " + pci_slot_name(a) + " (" + file + " does not exist)");
        return -1;
    }
    if (e == EACCES || e == EPERM)
        throw hw_error("cannot open " + file + ": " + std::strerror(e) + "; " + pci_permission_advice);
    refuse_odd_file(file, e);
    throw hw_error("cannot open " + file + ": " + std::strerror(e));
}

namespace {

bool valid_config_access(uint32_t offset, unsigned size) {
    return (size == 1 || size == 2 || size == 4 || size == 8) && offset < 0x1000 && offset + size <= 0x1000;
}

}  // namespace

bool hw_target::pci_read(const pci_address& a, uint32_t offset, unsigned size, uint64_t& value) {
    if (!valid_config_access(offset, size))
        return fail(format("PCI %s: no configuration access of %u bytes at offset 0x%x",
                           pci_slot_name(a).c_str(), size, offset));
    const int fd = config_fd(a);
    if (fd < 0) return false;
    uint8_t b[8];
    const ssize_t r = sys_pread(fd, b, size, static_cast<off_t>(offset));
    if (r == static_cast<ssize_t>(size)) {
        value = from_le(b, size);
        return true;
    }
    const std::string what = format("PCI %s: cannot read %u bytes at offset 0x%x (%s: ", pci_slot_name(a).c_str(),
                                    size, offset, config_path(a).c_str());
    if (r >= 0)
        return fail(what + format("read %zd of %u bytes: beyond the end of the configuration space, or "
                                  "beyond its first 64 bytes without CAP_SYS_ADMIN)",
                                  r, size));
    const int e = errno;
    if (e == EPERM || e == EACCES) throw hw_error(what + std::strerror(e) + "); " + pci_permission_advice);
    return fail(what + std::strerror(e) + ")");
}

bool hw_target::pci_write(const pci_address& a, uint32_t offset, unsigned size, uint64_t value) {
    if (!valid_config_access(offset, size))
        return fail(format("PCI %s: no configuration access of %u bytes at offset 0x%x",
                           pci_slot_name(a).c_str(), size, offset));
    const int fd = config_fd(a);
    if (fd < 0) return false;
    uint8_t b[8];
    to_le(value, b, size);
    const ssize_t r = sys_pwrite(fd, b, size, static_cast<off_t>(offset));
    if (r == static_cast<ssize_t>(size)) return true;
    const std::string what = format("PCI %s: cannot write %u bytes at offset 0x%x (%s: ", pci_slot_name(a).c_str(),
                                    size, offset, config_path(a).c_str());
    if (r >= 0)
        return fail(what + format("wrote %zd of %u bytes: beyond the end of the configuration space)", r, size));
    const int e = errno;
    if (e == EPERM || e == EACCES) throw hw_error(what + std::strerror(e) + "); " + pci_permission_advice);
    return fail(what + std::strerror(e) + ")");
}

std::vector<pci_device_info> hw_target::pci_devices() {
    std::vector<pci_device_info> out;
    std::error_code ec;
    const std::string dir = path("/sys/bus/pci/devices");
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
        const std::string name = it->path().filename().string();
        unsigned domain, bus, dev, fn;
        int used = -1;
        if (std::sscanf(name.c_str(), "%x:%x:%x.%x%n", &domain, &bus, &dev, &fn, &used) != 4 ||
            used != static_cast<int>(name.size()) || domain > 0xFFFF || bus > 0xFF || dev > 0x1F || fn > 7)
            continue;
        pci_device_info d;
        d.addr = {static_cast<uint16_t>(domain), static_cast<uint8_t>(bus), static_cast<uint8_t>(dev),
                  static_cast<uint8_t>(fn)};
        std::optional<unsigned long> vendor, device;
        if (const auto t = read_text(dir + "/" + name + "/vendor")) vendor = parse_number(*t, 16);
        if (const auto t = read_text(dir + "/" + name + "/device")) device = parse_number(*t, 16);
        if (!vendor || !device || *vendor > 0xFFFF || *device > 0xFFFF) {
            vendor = device = 0xFFFF;
            const int fd = sys_open(dir + "/" + name + "/config", O_RDONLY | O_CLOEXEC);
            if (fd >= 0) {
                uint8_t b[4];
                if (sys_pread(fd, b, 4, 0) == 4) {
                    vendor = from_le(b, 2);
                    device = from_le(b + 2, 2);
                }
                ::close(fd);
            }
        }
        d.vendor = static_cast<uint16_t>(*vendor);
        d.device = static_cast<uint16_t>(*device);
        out.push_back(d);
    }
    std::sort(out.begin(), out.end(), [](const pci_device_info& x, const pci_device_info& y) {
        return std::tie(x.addr.domain, x.addr.bus, x.addr.dev, x.addr.fn) <
               std::tie(y.addr.domain, y.addr.bus, y.addr.dev, y.addr.fn);
    });
    return out;
}

// ---- time ----------------------------------------------------------------

void hw_target::advance(uint64_t ps) {
    std::this_thread::sleep_for(std::chrono::nanoseconds((ps + 999) / 1000));
}

uint64_t hw_target::now() const {
    const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start_);
    return static_cast<uint64_t>(ns.count()) * 1000;
}

}  // namespace pmonsim::driver
