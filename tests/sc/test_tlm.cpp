// The TLM-2.0 face of uncore_system: an initiator with two
// simple_initiator_sockets bound to msr_socket (address = cpu << 32 | MSR) and
// pci_socket (ECAM address bus << 20 | dev << 15 | fn << 12 | offset), doing
// blocking transports with annotated delays (DECISIONS.md "Clocks and time",
// "CPUs", "Personalities"; uncore_system.h).
//
// UCLK is 2 GHz (cycle k starts at k/2 ns), QCLK 1 GHz (cycle k at k ns). An
// access at time T sees the cycles that started strictly before T.
#include <gtest/gtest.h>

#include <cstring>
#include <functional>
#include <string>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>
#include <vector>

#include "sc/sc_harness.h"

namespace pmonsim {
namespace {

using sc_core::SC_NS;
using sc_core::SC_PS;
using sc_core::sc_time;

constexpr unsigned kEn = 1u << 22;

uint64_t ecam(unsigned bus, unsigned dev, unsigned fn, unsigned off) {
    return (uint64_t{bus} << 20) | (uint64_t{dev} << 15) | (uint64_t{fn} << 12) | off;
}

// A loosely-timed initiator: runs `body` in an SC_THREAD and stops the
// simulation when it returns.
class initiator : public sc_core::sc_module {
public:
    tlm_utils::simple_initiator_socket<initiator> msr{"msr"};
    tlm_utils::simple_initiator_socket<initiator> pci{"pci"};
    bool finished = false;

    initiator(sc_core::sc_module_name n, uncore_system& sys, std::function<void(initiator&)> body)
        : sc_module(n), body_(std::move(body)) {
        msr.bind(sys.msr_socket);
        pci.bind(sys.pci_socket);
        SC_HAS_PROCESS(initiator);
        SC_THREAD(run);
    }

    struct result {
        tlm::tlm_response_status status;
        uint64_t value;          // little-endian data after the call
        sc_time done_at;         // time at return + the delay still annotated
    };

    // One b_transport of `len` (at most 16) bytes; data starts as `value` (write) or as a
    // 0xA5 pattern (read) so an untouched buffer can be recognised.
    result transport(tlm_utils::simple_initiator_socket<initiator>& s, tlm::tlm_command cmd,
                     uint64_t addr, unsigned len, uint64_t value, sc_time delay,
                     const unsigned char* byte_enable = nullptr) {
        unsigned char data[16];  // room for the oversized accesses the tests try
        std::memset(data, 0xA5, sizeof data);
        if (cmd == tlm::TLM_WRITE_COMMAND)
            for (unsigned i = 0; i < len && i < 8; ++i) data[i] = static_cast<unsigned char>(value >> (8 * i));
        tlm::tlm_generic_payload gp;
        gp.set_command(cmd);
        gp.set_address(addr);
        gp.set_data_ptr(data);
        gp.set_data_length(len);
        gp.set_streaming_width(len);
        gp.set_byte_enable_ptr(const_cast<unsigned char*>(byte_enable));
        gp.set_byte_enable_length(byte_enable ? len : 0);
        gp.set_dmi_allowed(false);
        gp.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
        s->b_transport(gp, delay);
        result r{gp.get_response_status(), 0, sc_core::sc_time_stamp() + delay};
        for (unsigned i = 0; i < len && i < 8; ++i) r.value |= uint64_t{data[i]} << (8 * i);
        if (delay != sc_core::SC_ZERO_TIME) wait(delay);  // catch up with the annotation
        return r;
    }
    result msr_read(unsigned cpu, uint32_t a, sc_time d = sc_core::SC_ZERO_TIME, unsigned len = 8) {
        return transport(msr, tlm::TLM_READ_COMMAND, (uint64_t{cpu} << 32) | a, len, 0, d);
    }
    result msr_write(unsigned cpu, uint32_t a, uint64_t v, sc_time d = sc_core::SC_ZERO_TIME,
                     unsigned len = 8) {
        return transport(msr, tlm::TLM_WRITE_COMMAND, (uint64_t{cpu} << 32) | a, len, v, d);
    }
    result pci_read(uint64_t a, unsigned len, sc_time d = sc_core::SC_ZERO_TIME) {
        return transport(pci, tlm::TLM_READ_COMMAND, a, len, 0, d);
    }
    result pci_write(uint64_t a, unsigned len, uint64_t v, sc_time d = sc_core::SC_ZERO_TIME) {
        return transport(pci, tlm::TLM_WRITE_COMMAND, a, len, v, d);
    }

private:
    void run() {
        body_(*this);
        finished = true;
        sc_core::sc_stop();
    }
    std::function<void(initiator&)> body_;
};

void run_initiator(uncore_system& sys, std::function<void(initiator&)> body) {
    initiator ini("initiator", sys, std::move(body));
    sc_core::sc_start();
    ASSERT_TRUE(ini.finished) << "the initiator did not run to its end";
}

// --- MSR socket -------------------------------------------------------------------

TEST(Tlm, MsrAccessActsAtTimePlusDelay) {
    uncore_config cfg;  // ivb-ep, UCLK 2 GHz, 16 cpus per socket
    uncore_system sys("sys", cfg);
    run_initiator(sys, [&](initiator& ini) {
        // Enable the UCLK fixed counter with 10 ns of annotated delay: the
        // write acts at 10 ns, so the counter counts from UCLK cycle 20.
        auto w = ini.msr_write(0, 0xC08, kEn, sc_time(10, SC_NS));
        EXPECT_EQ(w.status, tlm::TLM_OK_RESPONSE);
        EXPECT_EQ(w.done_at, sc_time(10, SC_NS));
        EXPECT_EQ(sc_core::sc_time_stamp(), sc_time(10, SC_NS));
        // Read with 25 ns of delay from 10 ns: acts at 35 ns = cycles 0..69
        // started, 70 - 20 = 50 counted.
        auto r = ini.msr_read(0, 0xC09, sc_time(25, SC_NS));
        EXPECT_EQ(r.status, tlm::TLM_OK_RESPONSE);
        EXPECT_EQ(r.done_at, sc_time(35, SC_NS));
        EXPECT_EQ(r.value, 50u);
        // No delay at 35 ns: the same 50.
        EXPECT_EQ(ini.msr_read(0, 0xC09).value, 50u);
        // 1500 ps of delay: acts at 36.5 ns, cycles < 73 -> 53. Through cpu 7,
        // which is socket 0 too.
        r = ini.msr_read(7, 0xC09, sc_time(1500, SC_PS));
        EXPECT_EQ(r.done_at, sc_time(36500, SC_PS));
        EXPECT_EQ(r.value, 53u);
        // 0.25 ns into a UCLK cycle: cycle 73 started at 36.5 ns and counts,
        // 74 starts at 37 ns: 36.75 ns sees cycles < 74 -> 54.
        r = ini.msr_read(0, 0xC09, sc_time(250, SC_PS));
        EXPECT_EQ(r.value, 54u);
        // Disable with delay: counting stops at the write's time (40 ns,
        // cycle 80), however late the next read is.
        ini.msr_write(0, 0xC08, 0, sc_time(3250, SC_PS));
        EXPECT_EQ(sc_core::sc_time_stamp(), sc_time(40, SC_NS));
        r = ini.msr_read(0, 0xC09, sc_time(1, sc_core::SC_US));
        EXPECT_EQ(r.value, 60u);
        EXPECT_EQ(r.done_at, sc_time(1040, SC_NS));
    });
    EXPECT_TRUE(sys.diagnostics().records().empty());
}

TEST(Tlm, UnimplementedMsrIsAddressErrorAndChangesNothing) {
    uncore_config cfg;
    uncore_system sys("sys", cfg);
    run_initiator(sys, [&](initiator& ini) {
        // Some state to watch: GLOBAL_CTL.pmi_core_sel and a counter control.
        ini.msr_write(0, 0xC00, 0x5);
        ini.msr_write(0, 0xC10, 0x00400000);  // enabled, ev_sel 0: counts nothing
        std::vector<uint64_t> before;
        for (const auto& r : sys.socket(0).msr_table().regs) before.push_back(ini.msr_read(0, r.offset).value);

        // 0xC12 lies between the UBox CTL1 and BOX_STATUS: not implemented.
        auto w = ini.msr_write(0, 0xC12, ~0ull, sc_time(5, SC_NS));
        EXPECT_EQ(w.status, tlm::TLM_ADDRESS_ERROR_RESPONSE);
        EXPECT_EQ(w.done_at, sc_time(5, SC_NS));
        auto r = ini.msr_read(0, 0xC12);
        EXPECT_EQ(r.status, tlm::TLM_ADDRESS_ERROR_RESPONSE);
        EXPECT_EQ(r.value, 0xA5A5A5A5A5A5A5A5ull);  // the buffer is untouched
        // A cpu beyond the last socket (1 socket x 16 cpus): address error.
        EXPECT_EQ(ini.msr_read(16, 0xC00).status, tlm::TLM_ADDRESS_ERROR_RESPONSE);
        EXPECT_EQ(ini.msr_write(16, 0xC00, 1u << 31).status, tlm::TLM_ADDRESS_ERROR_RESPONSE);
        EXPECT_FALSE(sys.socket(0).global().frozen());

        std::vector<uint64_t> after;
        for (const auto& reg : sys.socket(0).msr_table().regs) after.push_back(ini.msr_read(0, reg.offset).value);
        EXPECT_EQ(after, before);
        EXPECT_EQ(sys.socket(0).global().ctl(), 0x5u);
    });
    // The model's #GP names the MSR; an access on a cpu that does not exist
    // names the cpu.
    const auto& d = sys.diagnostics().records();
    ASSERT_EQ(d.size(), 4u);
    EXPECT_EQ(d[2].box, "cpu");
    EXPECT_EQ(d[2].reason, "rdmsr on cpu 16, which does not exist (16 cpus)");
    EXPECT_EQ(d[3].reason, "wrmsr on cpu 16, which does not exist (16 cpus)");
    EXPECT_EQ(d[3].value, 1u << 31);
    EXPECT_EQ(d[0].box, "ubox");
    EXPECT_EQ(d[0].reg, "MSR 0xc12");
    EXPECT_EQ(d[0].value, ~0ull);
    EXPECT_EQ(d[0].time_ps, 5000u);
    EXPECT_EQ(d[0].reason, "wrmsr to an MSR ivb-ep does not implement (#GP); nothing changed");
    EXPECT_EQ(d[1].reg, "MSR 0xc12");
    EXPECT_EQ(d[1].reason, "rdmsr of an MSR ivb-ep does not implement (#GP)");
}

TEST(Tlm, SnbGlobalRegistersAreAddressErrors) {
    uncore_config cfg;
    cfg.cpu = cpu_model::snb_ep;
    uncore_system sys("sys", cfg);
    run_initiator(sys, [&](initiator& ini) {
        EXPECT_EQ(ini.msr_write(0, 0xC00, 1u << 29).status, tlm::TLM_ADDRESS_ERROR_RESPONSE);
        EXPECT_EQ(ini.msr_read(0, 0xC01).status, tlm::TLM_ADDRESS_ERROR_RESPONSE);
        EXPECT_EQ(ini.msr_read(0, 0xC15).status, tlm::TLM_ADDRESS_ERROR_RESPONSE);
        EXPECT_EQ(ini.msr_read(0, 0xC08).status, tlm::TLM_OK_RESPONSE);
    });
    ASSERT_EQ(sys.diagnostics().records().size(), 3u);
    EXPECT_EQ(sys.diagnostics().records()[0].reason,
              "wrmsr to an MSR snb-ep does not implement (#GP); nothing changed");
}

TEST(Tlm, MsrAccessOtherThanEightBytesIsBurstError) {
    uncore_config cfg;
    uncore_system sys("sys", cfg);
    run_initiator(sys, [&](initiator& ini) {
        // A 4-byte write of EN to the fixed counter control does nothing.
        auto w = ini.msr_write(0, 0xC08, kEn, sc_core::SC_ZERO_TIME, 4);
        EXPECT_EQ(w.status, tlm::TLM_BURST_ERROR_RESPONSE);
        auto r = ini.msr_read(0, 0xC08, sc_core::SC_ZERO_TIME, 4);
        EXPECT_EQ(r.status, tlm::TLM_BURST_ERROR_RESPONSE);
        EXPECT_EQ(r.value, 0xA5A5A5A5u);  // untouched
        // Byte enables are not supported either.
        const unsigned char be[8] = {0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF};
        auto b = ini.transport(ini.msr, tlm::TLM_WRITE_COMMAND, 0xC08, 8, kEn,
                               sc_core::SC_ZERO_TIME, be);
        EXPECT_EQ(b.status, tlm::TLM_BURST_ERROR_RESPONSE);
        EXPECT_EQ(ini.msr_write(0, 0xC08, kEn, sc_core::SC_ZERO_TIME, 16).status,
                  tlm::TLM_BURST_ERROR_RESPONSE);
        test::wait_ns(100);
        r = ini.msr_read(0, 0xC08);
        EXPECT_EQ(r.status, tlm::TLM_OK_RESPONSE);
        EXPECT_EQ(r.value, 0u);
        EXPECT_EQ(ini.msr_read(0, 0xC09).value, 0u);  // never counted
    });
}

// --- PCI socket -------------------------------------------------------------------

TEST(Tlm, PciAccessesOfEverySizeThroughEcam) {
    uncore_config cfg;
    cfg.sockets = 2;  // buses 0x7F (socket 0) and 0xFF (socket 1)
    uncore_system sys("sys", cfg);
    run_initiator(sys, [&](initiator& ini) {
        const uint64_t q0 = ecam(0xFF, 8, 2, 0);     // socket 1, QPI port 0 PMON
        const uint64_t f0 = ecam(0xFF, 8, 6, 0);     // its filter function
        // Discovery: vendor/device ID by 4, 2 and 1 bytes, and the ID through 8.
        EXPECT_EQ(ini.pci_read(q0, 4).value, 0x0E328086u);
        EXPECT_EQ(ini.pci_read(q0 + 2, 2).value, 0x0E32u);
        EXPECT_EQ(ini.pci_read(q0 + 0, 1).value, 0x86u);
        EXPECT_EQ(ini.pci_read(q0 + 3, 1).value, 0x0Eu);
        EXPECT_EQ(ini.pci_read(ecam(0x7F, 19, 1, 0), 4).value, 0x0E348086u);  // socket 0 R2PCIe
        EXPECT_EQ(ini.pci_read(ecam(0xFF, 8, 0, 0xD4), 4).value, 5u);          // 8.0 GT/s

        // A counter (two dwords, 48 bits) through 8-, 4-, 2- and 1-byte accesses.
        auto w = ini.pci_write(q0 + 0xA0, 8, 0x0000123456789ABCull);
        EXPECT_EQ(w.status, tlm::TLM_OK_RESPONSE);
        EXPECT_EQ(ini.pci_read(q0 + 0xA0, 8).value, 0x0000123456789ABCull);
        EXPECT_EQ(ini.pci_read(q0 + 0xA0, 4).value, 0x56789ABCu);
        EXPECT_EQ(ini.pci_read(q0 + 0xA4, 4).value, 0x00001234u);
        EXPECT_EQ(ini.pci_read(q0 + 0xA2, 2).value, 0x5678u);
        EXPECT_EQ(ini.pci_read(q0 + 0xA5, 1).value, 0x12u);
        ini.pci_write(q0 + 0xA4, 2, 0xFFFF);  // only bits 47:32 change
        EXPECT_EQ(ini.pci_read(q0 + 0xA0, 8).value, 0x0000FFFF56789ABCull);
        ini.pci_write(q0 + 0xA1, 1, 0x00);    // only bits 15:8 change
        EXPECT_EQ(ini.pci_read(q0 + 0xA0, 8).value, 0x0000FFFF567800BCull);
        ini.pci_write(q0 + 0xA0, 8, ~0ull);   // bits above 47 read 0
        EXPECT_EQ(ini.pci_read(q0 + 0xA0, 8).value, 0x0000FFFFFFFFFFFFull);

        // A counter control by bytes: en is bit 22 = byte 2, bit 6.
        ini.pci_write(q0 + 0xD8, 1, 0x14);    // CLOCKTICKS
        ini.pci_write(q0 + 0xDA, 1, 0x40);    // en
        EXPECT_EQ(ini.pci_read(q0 + 0xD8, 4).value, 0x00400014u);
        EXPECT_EQ(ini.pci_read(q0 + 0xD8, 2).value, 0x0014u);
        ini.pci_write(q0 + 0xD8, 4, 0);

        // The filter: MATCH0/MATCH1 are adjacent dwords, one 8-byte access covers both.
        ini.pci_write(f0 + 0x228, 4, 0x1C00);
        ini.pci_write(f0 + 0x22C, 4, 0x80000);
        EXPECT_EQ(ini.pci_read(f0 + 0x228, 8).value, 0x0008000000001C00ull);
        ini.pci_write(f0 + 0x238, 8, 0x000F000000001FE0ull);
        EXPECT_EQ(ini.pci_read(f0 + 0x23C, 4).value, 0x000F0000u);
        EXPECT_EQ(ini.pci_read(f0 + 0x238, 2).value, 0x1FE0u);
        EXPECT_EQ(sys.socket(1).box("qpi0")->core().filter_match(), 0x0008000000001C00ull);
        EXPECT_EQ(sys.socket(1).box("qpi0")->core().filter_mask(), 0x000F000000001FE0ull);
        // Socket 0's port 0 was not touched.
        EXPECT_EQ(sys.socket(0).box("qpi0")->core().filter_match(), 0u);
        EXPECT_EQ(ini.pci_read(ecam(0x7F, 8, 2, 0xA0), 8).value, 0u);

        // Sizes other than 1/2/4/8 and accesses past the 4 KiB function: burst error.
        EXPECT_EQ(ini.pci_read(q0 + 0xA0, 3).status, tlm::TLM_BURST_ERROR_RESPONSE);
        EXPECT_EQ(ini.pci_write(q0 + 0xA0, 16, 0).status, tlm::TLM_BURST_ERROR_RESPONSE);
        EXPECT_EQ(ini.pci_read(q0 + 0xFFE, 4).status, tlm::TLM_BURST_ERROR_RESPONSE);
        EXPECT_EQ(ini.pci_read(q0 + 0xFFC, 4).status, tlm::TLM_OK_RESPONSE);  // unmodelled: 0
    });
}

TEST(Tlm, PciAccessActsAtTimePlusDelay) {
    uncore_config cfg;  // QCLK 1 GHz
    uncore_system sys("sys", cfg);
    run_initiator(sys, [&](initiator& ini) {
        const uint64_t q0 = ecam(0xFF, 8, 2, 0);
        // CLOCKTICKS enabled at 5 ns: counts from QCLK cycle 5.
        auto w = ini.pci_write(q0 + 0xD8, 4, 0x00400014, sc_time(5, SC_NS));
        EXPECT_EQ(w.done_at, sc_time(5, SC_NS));
        // Read at 5 + 100 ns: cycles 5..104 -> 100.
        auto r = ini.pci_read(q0 + 0xA0, 8, sc_time(100, SC_NS));
        EXPECT_EQ(r.status, tlm::TLM_OK_RESPONSE);
        EXPECT_EQ(r.done_at, sc_time(105, SC_NS));
        EXPECT_EQ(r.value, 100u);
        // 0.5 ns into cycle 105: it has started, so it counts -> 101.
        r = ini.pci_read(q0 + 0xA0, 4, sc_time(500, SC_PS));
        EXPECT_EQ(r.value, 101u);
        // Freeze by BOX_CTL with a delay of 9.5 ns (at 115 ns): 110 counted.
        ini.pci_write(q0 + 0xF4, 4, 0x30100, sc_time(9500, SC_PS));
        EXPECT_EQ(ini.pci_read(q0 + 0xA0, 8, sc_time(1, sc_core::SC_US)).value, 110u);
    });
    // The 4-byte read at 105.5 ns was of a running counter: it may tear, and
    // the model says so. Nothing else was questionable.
    const auto& d = sys.diagnostics().records();
    ASSERT_EQ(d.size(), 1u);
    EXPECT_EQ(d[0].reg, "Q_P0_PCI_PMON_CTR0");
    EXPECT_EQ(d[0].time_ps, 105500u);
    EXPECT_EQ(d[0].reason,
              "partial read of a running counter: the two halves can tear (freeze the box first)");
}

TEST(Tlm, BusWithoutSocketReadsAllOnes) {
    uncore_config cfg;  // 1 socket on bus 0xFF
    uncore_system sys("sys", cfg);
    run_initiator(sys, [&](initiator& ini) {
        for (unsigned bus : {0x00u, 0x7Fu, 0xFEu}) {
            const uint64_t a = ecam(bus, 8, 2, 0);
            auto r1 = ini.pci_read(a, 1);
            EXPECT_EQ(r1.status, tlm::TLM_OK_RESPONSE);
            EXPECT_EQ(r1.value, 0xFFu);
            EXPECT_EQ(ini.pci_read(a + 2, 2).value, 0xFFFFu);
            EXPECT_EQ(ini.pci_read(a + 0xD8, 4).value, 0xFFFFFFFFu);
            EXPECT_EQ(ini.pci_read(a + 0xA0, 8).value, ~0ull);
            // Writes are ignored (the same offsets on the real bus stay 0).
            EXPECT_EQ(ini.pci_write(a + 0xD8, 4, 0x00400014).status, tlm::TLM_OK_RESPONSE);
        }
        // The annotated delay is honoured there too.
        auto r = ini.pci_read(ecam(0x00, 0, 0, 0), 4, sc_time(7, SC_NS));
        EXPECT_EQ(r.value, 0xFFFFFFFFu);
        EXPECT_EQ(r.done_at, sc_time(7, SC_NS));
        // On the socket's bus, a function that does not exist reads all ones too.
        EXPECT_EQ(ini.pci_read(ecam(0xFF, 20, 0, 0), 4).value, 0xFFFFFFFFu);
        EXPECT_EQ(ini.pci_read(ecam(0xFF, 8, 3, 0), 2).value, 0xFFFFu);
        EXPECT_EQ(ini.pci_read(ecam(0xFF, 8, 2, 0xD8), 4).value, 0u);
        test::wait_ns(50);
        EXPECT_EQ(ini.pci_read(ecam(0xFF, 8, 2, 0xA0), 8).value, 0u);
    });
    EXPECT_TRUE(sys.diagnostics().records().empty());
}

}  // namespace
}  // namespace pmonsim
