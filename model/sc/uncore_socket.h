// One socket's uncore PMON (the boxes of the CPU's descriptor: UBox, R2PCIe
// and QPI ports on the E5 parts; the uncore PMU of Nehalem/Westmere) and its
// global control, as a SystemC module with
// two TLM-2.0 target sockets: MSRs (address = MSR number, 8-byte accesses) and
// PCI configuration space (ECAM address: bus << 20 | dev << 15 | fn << 12 |
// offset; 1/2/4/8-byte accesses). Device/function layout per DECISIONS.md
// "Personalities": R2PCIe D19:F1, QPI port p PMON Dd:F2, filter Dd:F6, misc
// Dd:F0 with d = 8, 9, 24.
#pragma once
#include <map>
#include <memory>
#include <string>
#include <systemc>
#include <tlm>
#include <tlm_utils/simple_target_socket.h>
#include <vector>

#include "core/diagnostics.h"
#include "sc/box_module.h"
#include "sc/global_pmon.h"
#include "sc/uncore_config.h"

namespace pmonsim {

class uncore_socket : public sc_core::sc_module {
public:
    using target = tlm_utils::simple_target_socket_optional<uncore_socket>;  // binding optional
    target msr_socket{"msr_socket"};
    target pci_socket{"pci_socket"};
    // Cores receiving a PMI (bit n = core n of this socket), for one UCLK cycle.
    // Binding it is optional.
    sc_core::sc_port<sc_core::sc_signal_inout_if<uint32_t>, 1, sc_core::SC_ZERO_OR_MORE_BOUND> pmi{"pmi"};

    uncore_socket(sc_core::sc_module_name name, const uncore_config& cfg, unsigned socket,
                  diagnostic_sink* diags);

    // Direct accesses (what the TLM sockets call). MSR: false = #GP.
    bool msr_read(uint32_t msr, uint64_t& value);
    bool msr_write(uint32_t msr, uint64_t value);
    uint64_t pci_read(unsigned dev, unsigned fn, uint32_t offset, unsigned size);
    void pci_write(unsigned dev, unsigned fn, uint32_t offset, unsigned size, uint64_t value);
    bool pci_function_exists(unsigned dev, unsigned fn) const;

    // Boxes in descriptor order: "ubox", "ubox_fixed", "r2pcie", "qpi0".."qpi2";
    // "uncore", "uncore_fixed".
    std::vector<box_module*> boxes();
    box_module* box(const std::string& name);
    global_pmon& global() { return *global_; }
    unsigned index() const { return socket_; }
    const uncore_config& config() const { return cfg_; }

    struct pci_function {
        unsigned dev, fn;
        register_table table;
        box_module* box;  // null for the misc function
        std::string box_name;
        unsigned unit;    // of the box's kind
    };
    const std::vector<pci_function>& pci_functions() const { return functions_; }
    const register_table& msr_table() const { return msr_table_; }

    // The TLM b_transport implementations behind the two sockets.
    void b_msr(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay);
    void b_pci(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay);

private:
    void access_diag(const clock_domain& clock, const std::string& box, const std::string& reg,
                     uint64_t value, const std::string& why);
    const clock_domain& clock_of(const pci_function& f) const;
    box_module* msr_owner(uint32_t msr) const;  // null: a global register

    uncore_config cfg_;
    unsigned socket_;
    diagnostic_sink* diags_;
    std::vector<std::unique_ptr<box_module>> boxes_;
    std::unique_ptr<global_pmon> global_;
    register_table msr_table_;
    std::map<uint32_t, box_module*> msr_owner_;
    std::vector<pci_function> functions_;

    // Register accesses arrive from the initiators' threads while the boxes'
    // and the UBox's own processes also drive these: hence many writers.
    template <typename T>
    using signal = sc_core::sc_signal<T, sc_core::SC_MANY_WRITERS>;
    signal<bool> global_freeze_sig_;
    signal<unsigned> epoch_sig_;
    signal<uint32_t> pmi_sig_;
    std::vector<std::unique_ptr<signal<bool>>> armed_sig_;
    std::vector<std::unique_ptr<signal<unsigned>>> ov_sig_;
    void forward_pmi();
};

}  // namespace pmonsim
