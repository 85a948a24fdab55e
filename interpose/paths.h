// Which paths the interposer serves, and what an opened file is. Plain
// functions on strings (no system calls), so they are tested alone.
//
// Served paths are the kernel interfaces the modeled machine replaces; each
// is redirected into the directory the server wrote (machine_view.h), so the
// host's own files under them are never read or written. A few directories
// are served alone, not what lies below them (/sys/devices lists the
// machine's PCI roots, while /sys/devices/virtual stays the host's). Anything
// else passes through untouched.
#pragma once
#include <cstddef>
#include <cstdint>

namespace pmonsim::interpose {

// Lexically normalises an absolute path into `out` (collapses "//", "/./",
// and "x/.." ; a trailing "/" is dropped). Returns false when it does not fit
// in `cap` bytes or the path is not absolute.
bool normalize_path(const char* path, char* out, size_t cap);

// Whether the normalised absolute path is served (replaced by the model):
// one of the served prefixes, or at or below one of the `hidden` host
// directories (absolute paths, each ended by '\n'; wire::machine::hidden),
// which the served directory does not hold, so they are absent.
bool is_served(const char* normalized, const char* hidden = "");

// A file whose reads and writes go to the model, by its path relative to the
// served directory (as the kernel resolves it: symlinks followed).
struct live_file {
    enum kind_t : uint8_t { none = 0, msr = 1, pci_config = 2 } kind = none;
    uint32_t id = 0;  // msr: the CPU; pci_config: bus << 8 | dev << 3 | fn
};
// "dev/cpu/N/msr", "sys/devices/pci0000:BB/0000:BB:DD.F/config",
// "proc/bus/pci/BB/DD.F".
live_file classify(const char* relative);

}  // namespace pmonsim::interpose
