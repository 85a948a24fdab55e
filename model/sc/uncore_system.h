// A machine's uncore PMON: one uncore_socket per socket behind two routing
// TLM-2.0 target sockets, the way system software reaches them:
// - msr_socket: address = cpu << 32 | MSR number; cpu c belongs to socket
//   c / cpus_per_socket (DECISIONS.md "CPUs");
// - pci_socket: ECAM address bus << 20 | dev << 15 | fn << 12 | offset; each
//   socket answers on its own uncore bus, any other bus reads all ones.
#pragma once
#include <memory>
#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>
#include <vector>

#include "core/diagnostics.h"
#include "sc/uncore_socket.h"

namespace pmonsim {

class uncore_system : public sc_core::sc_module {
public:
    // Binding either socket is optional (the direct methods below work alone).
    using target = tlm_utils::simple_target_socket_optional<uncore_system>;
    target msr_socket{"msr_socket"};
    target pci_socket{"pci_socket"};

    uncore_system(sc_core::sc_module_name name, const uncore_config& cfg);

    const uncore_config& config() const { return cfg_; }
    unsigned sockets() const { return static_cast<unsigned>(sockets_.size()); }
    uncore_socket& socket(unsigned s) { return *sockets_.at(s); }
    diagnostic_sink& diagnostics() { return diags_; }

    // Direct accesses, as the TLM sockets do them.
    bool msr_read(unsigned cpu, uint32_t msr, uint64_t& value);
    bool msr_write(unsigned cpu, uint32_t msr, uint64_t value);
    uint64_t pci_read(unsigned bus, unsigned dev, unsigned fn, uint32_t offset, unsigned size);
    void pci_write(unsigned bus, unsigned dev, unsigned fn, uint32_t offset, unsigned size, uint64_t value);
    // The socket behind a bus, or -1.
    int socket_of_bus(unsigned bus) const;

private:
    // Reports an access on a cpu beyond the last socket; true if it is one.
    bool no_such_cpu(unsigned cpu, uint32_t msr, uint64_t value, const char* what);
    void b_msr(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay);
    void b_pci(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay);

    uncore_config cfg_;
    diagnostic_sink diags_;
    std::vector<std::unique_ptr<uncore_socket>> sockets_;
    using initiator = tlm_utils::simple_initiator_socket<uncore_system>;
    std::vector<std::unique_ptr<initiator>> msr_out_, pci_out_;  // one pair per socket
};

}  // namespace pmonsim
