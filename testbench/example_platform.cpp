// How to drop one socket's uncore PMON into your own SystemC virtual platform.
//
// The platform here has a "core" that programs the PMON through TLM-2.0
// (MSRs and PCI configuration space, exactly the registers a driver touches),
// a traffic source that feeds QPI packets into port 0, and an interrupt line
// bound to the socket's pmi port. The core samples with the IVB-EP overflow
// mechanism (329468-002 §2.1.2): preload 2^48 - N, ov_en, PMI, re-arm.
#include <cstdio>
#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>

#include "sc/time_util.h"
#include "sc/uncore_socket.h"

using namespace pmonsim;
using sc_core::sc_time;
using sc_core::SC_NS;

// PCI configuration address inside one socket: bus bits are ignored there.
constexpr uint64_t cfg_addr(unsigned dev, unsigned fn, unsigned off) {
    return (uint64_t{dev} << 15) | (uint64_t{fn} << 12) | off;
}

class core : public sc_core::sc_module {
public:
    tlm_utils::simple_initiator_socket<core> msr{"msr"};
    tlm_utils::simple_initiator_socket<core> pci{"pci"};
    sc_core::sc_in<uint32_t> pmi{"pmi"};

    SC_HAS_PROCESS(core);
    explicit core(sc_core::sc_module_name n) : sc_module(n) { SC_THREAD(run); }
    unsigned samples = 0;

private:
    uint64_t access(tlm_utils::simple_initiator_socket<core>& s, bool write, uint64_t addr,
                    unsigned len, uint64_t value = 0) {
        unsigned char data[8] = {};
        for (unsigned i = 0; i < len; ++i) data[i] = static_cast<unsigned char>(value >> (8 * i));
        tlm::tlm_generic_payload gp;
        gp.set_command(write ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND);
        gp.set_address(addr);
        gp.set_data_ptr(data);
        gp.set_data_length(len);
        gp.set_streaming_width(len);
        sc_time delay(1, SC_NS);  // a register access costs the core 1 ns
        s->b_transport(gp, delay);
        if (gp.is_response_error()) SC_REPORT_ERROR("core", "PMON access failed");
        uint64_t v = 0;
        for (unsigned i = 0; i < len; ++i) v |= uint64_t{data[i]} << (8 * i);
        return v;
    }
    void wrmsr(uint32_t m, uint64_t v) { access(msr, true, m, 8, v); }
    void cfg_write(unsigned dev, unsigned fn, unsigned off, uint32_t v) { access(pci, true, cfg_addr(dev, fn, off), 4, v); }
    uint32_t cfg_read(unsigned dev, unsigned fn, unsigned off) {
        return static_cast<uint32_t>(access(pci, false, cfg_addr(dev, fn, off), 4));
    }
    void arm(uint64_t interval) {
        const uint64_t preload = (1ull << 48) - interval;
        cfg_write(8, 2, 0xA0, static_cast<uint32_t>(preload));
        cfg_write(8, 2, 0xA4, static_cast<uint32_t>(preload >> 32));
    }
    void run() {
        std::printf("QPI port 0 device ID: 0x%04x\n", cfg_read(8, 2, 0) >> 16);
        wrmsr(0xC00, 1ull << 31);                 // freeze everything while programming
        cfg_write(8, 2, 0xF4, 0x30103);           // box: frz, reset controls and counters
        cfg_write(8, 2, 0xD8, 0x00700802);        // RxL_FLITS_G1.DRS_DATA, en, ov_en
        arm(1000);                                // a sample every 1000 DRS data flits
        cfg_write(8, 2, 0xF4, 0x30000);
        wrmsr(0xC00, (1ull << 29) | 0x1);         // unfreeze; PMI to core 0
        for (samples = 0; samples < 5; ++samples) {
            sc_core::wait(pmi.value_changed_event());  // the mask of cores; 0 when it ends
            if (!(pmi.read() & 1)) { --samples; continue; }
            std::printf("PMI at %8.1f ns: sample %u\n", sc_core::sc_time_stamp().to_seconds() * 1e9, samples);
            cfg_write(8, 2, 0xF4, 0x30002);       // reset counters
            cfg_write(8, 2, 0xF8, 0x1);           // clear BOX_STATUS.ov[0]
            wrmsr(0xC01, 1ull << 22);             // clear GLOBAL_STATUS.ov_q0
            arm(1000);
            wrmsr(0xC00, (1ull << 29) | 0x1);     // unfreeze
        }
        sc_core::sc_stop();
    }
};

// Feeds a steady stream of 64-byte DRS data responses into QPI port 0.
class traffic : public sc_core::sc_module {
public:
    SC_HAS_PROCESS(traffic);
    traffic(sc_core::sc_module_name n, uncore_socket& s) : sc_module(n), sock_(s) { SC_THREAD(run); }

private:
    void run() {
        box_module* port = sock_.box("qpi0");
        qpi_packet drs;
        drs.mc = qpi_mc::drs;
        drs.rds = 0x8;  // DataC_M
        for (;;) {
            // Post 100 ns worth of packets ahead, one every 6 QCLK cycles.
            const cycle_t from = port->now_cycle();
            for (cycle_t c = from; c < from + 100; c += 6) port->post_packet(qpi_dir::rx, c, drs);
            wait(100, SC_NS);
        }
    }
    uncore_socket& sock_;
};

int sc_main(int, char**) {
    uncore_config cfg;  // ivb-ep, 2 GHz UCLK, 8 GT/s
    diagnostic_sink diags;
    uncore_socket uncore("uncore", cfg, 0, &diags);
    core cpu("cpu");
    traffic gen("traffic", uncore);
    sc_core::sc_signal<uint32_t> pmi("pmi_line");
    cpu.msr.bind(uncore.msr_socket);
    cpu.pci.bind(uncore.pci_socket);
    uncore.pmi.bind(pmi);
    cpu.pmi.bind(pmi);
    sc_core::sc_start(sc_time(1, sc_core::SC_MS));
    std::printf("%u samples, %zu diagnostics\n", cpu.samples, diags.records().size());
    for (const auto& d : diags.records()) std::printf("  %s\n", format_diagnostic(d).c_str());
    return cpu.samples == 5 ? 0 : 1;
}
