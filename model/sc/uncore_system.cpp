#include "sc/uncore_system.h"

#include <cstdio>

#include "sc/time_util.h"

namespace pmonsim {

uncore_system::uncore_system(sc_core::sc_module_name name, const uncore_config& cfg)
    : sc_module(name), cfg_(cfg) {
    cfg_.validate();
    if (sc_core::sc_get_time_resolution() > sc_core::sc_time(1, sc_core::SC_PS))
        throw std::invalid_argument("pmonsim needs a SystemC time resolution of 1 ps or finer");
    for (unsigned s = 0; s < cfg_.sockets; ++s) {
        const std::string n = std::to_string(s);
        sockets_.push_back(std::make_unique<uncore_socket>(("socket" + n).c_str(), cfg_, s, &diags_));
        msr_out_.push_back(std::make_unique<initiator>(("msr_out" + n).c_str()));
        pci_out_.push_back(std::make_unique<initiator>(("pci_out" + n).c_str()));
        msr_out_.back()->bind(sockets_.back()->msr_socket);
        pci_out_.back()->bind(sockets_.back()->pci_socket);
    }
    msr_socket.register_b_transport(this, &uncore_system::b_msr);
    pci_socket.register_b_transport(this, &uncore_system::b_pci);
}

int uncore_system::socket_of_bus(unsigned bus) const {
    for (unsigned s = 0; s < sockets_.size(); ++s)
        if (cfg_.bus_of(s) == bus) return static_cast<int>(s);
    return -1;
}

bool uncore_system::no_such_cpu(unsigned cpu, uint32_t msr, uint64_t value, const char* what) {
    const unsigned s = cpu / cfg_.cpus_per_socket;
    if (s < sockets_.size()) return false;
    char reg[32];
    std::snprintf(reg, sizeof reg, "MSR 0x%x", msr);
    const time_ps t = now_ps();
    diags_.report({clock_domain(cfg_.uclk_hz()).cycles_before(t), t, s, "cpu", reg, value,
                   std::string(what) + " on cpu " + std::to_string(cpu) + ", which does not exist (" +
                       std::to_string(cfg_.sockets * cfg_.cpus_per_socket) + " cpus)"});
    return true;
}

bool uncore_system::msr_read(unsigned cpu, uint32_t msr, uint64_t& value) {
    if (no_such_cpu(cpu, msr, 0, "rdmsr")) return false;
    const unsigned s = cpu / cfg_.cpus_per_socket;
    return sockets_[s]->msr_read(msr, value);
}

bool uncore_system::msr_write(unsigned cpu, uint32_t msr, uint64_t value) {
    if (no_such_cpu(cpu, msr, value, "wrmsr")) return false;
    const unsigned s = cpu / cfg_.cpus_per_socket;
    return sockets_[s]->msr_write(msr, value);
}

uint64_t uncore_system::pci_read(unsigned bus, unsigned dev, unsigned fn, uint32_t offset, unsigned size) {
    const int s = socket_of_bus(bus);
    if (s < 0) return size >= 8 ? ~0ull : (1ull << (8 * size)) - 1;
    return sockets_[s]->pci_read(dev, fn, offset, size);
}

void uncore_system::pci_write(unsigned bus, unsigned dev, unsigned fn, uint32_t offset, unsigned size,
                              uint64_t value) {
    const int s = socket_of_bus(bus);
    if (s >= 0) sockets_[s]->pci_write(dev, fn, offset, size, value);
}

void uncore_system::b_msr(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay) {
    const unsigned cpu = static_cast<unsigned>(gp.get_address() >> 32);
    const unsigned s = cpu / cfg_.cpus_per_socket;
    if (s >= sockets_.size()) {
        spend_delay(delay);
        uint64_t value = 0;
        if (gp.is_write())
            for (unsigned i = 0; i < gp.get_data_length() && i < 8; ++i)
                value |= uint64_t{gp.get_data_ptr()[i]} << (8 * i);
        no_such_cpu(cpu, static_cast<uint32_t>(gp.get_address()), value, gp.is_read() ? "rdmsr" : "wrmsr");
        gp.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
        return;
    }
    const uint64_t a = gp.get_address();
    gp.set_address(a & 0xFFFFFFFFu);
    (*msr_out_[s])->b_transport(gp, delay);
    gp.set_address(a);
}

void uncore_system::b_pci(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay) {
    const unsigned bus = static_cast<unsigned>((gp.get_address() >> 20) & 0xFF);
    const int s = socket_of_bus(bus);
    if (s < 0) {
        spend_delay(delay);
        const unsigned n = gp.get_data_length();
        if (gp.is_read())
            for (unsigned i = 0; i < n; ++i) gp.get_data_ptr()[i] = 0xFF;
        gp.set_response_status(tlm::TLM_OK_RESPONSE);
        return;
    }
    (*pci_out_[s])->b_transport(gp, delay);
}

}  // namespace pmonsim
