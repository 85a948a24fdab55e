#include "demo_scenario.h"

#include <cstdint>

#include "sc/time_util.h"

namespace pmonsim {

namespace {

constexpr unsigned kQpiDev[3] = {8, 9, 24};

// A tiny deterministic generator: the demo's output must not depend on the
// standard library's distributions.
struct lcg {
    uint64_t s;
    uint32_t next(uint32_t n) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        return static_cast<uint32_t>((s >> 33) % n);
    }
};

void program(uncore_system& sys, unsigned socket) {
    const bool ivb = sys.config().cpu == cpu_model::ivb_ep;
    const unsigned bus = sys.config().bus_of(socket);
    const unsigned cpu = socket * sys.config().cpus_per_socket;
    const uint32_t box_freeze = ivb ? 0x30100 : 0x10100;    // frz (+frz_en / write-1 bits)
    for (unsigned p = 0; p < sys.config().qpi_ports; ++p) {
        const unsigned d = kQpiDev[p];
        sys.pci_write(bus, d, 2, 0xF4, 4, box_freeze | 0x3);  // freeze, reset controls and counters
        sys.pci_write(bus, d, 6, 0x228, 4, 0x1C00);           // filter: DRS.AnyDataC
        sys.pci_write(bus, d, 6, 0x22C, 4, 0);
        sys.pci_write(bus, d, 6, 0x238, 4, 0x1F80);
        sys.pci_write(bus, d, 6, 0x23C, 4, 0);
        sys.pci_write(bus, d, 2, 0xD8, 4, 0x00600802);        // RxL_FLITS_G1.DRS_DATA
        sys.pci_write(bus, d, 2, 0xDC, 4, 0x00600403);        // RxL_FLITS_G2.NCB_DATA
        sys.pci_write(bus, d, 2, 0xE0, 4, 0x00400600);        // TxL_FLITS_G0.DATA|NON_DATA
        sys.pci_write(bus, d, 2, 0xE4, 4, 0x00600038);        // CTO_COUNT
    }
    sys.pci_write(bus, 19, 1, 0xF4, 4, box_freeze | 0x3);
    sys.pci_write(bus, 19, 1, 0xD8, 4, 0x00400001);           // CLOCKTICKS
    sys.pci_write(bus, 19, 1, 0xDC, 4, ivb ? 0x00403307 : 0x00400307);  // RING_AD_USED.CW
    sys.pci_write(bus, 19, 1, 0xE0, 4, 0x01440307);           // same, edge detect, thresh 1
    sys.pci_write(bus, 19, 1, 0xE4, 4, 0x00400000);           // enabled, event 0x00: diagnosed
    sys.msr_write(cpu, 0xC08, 1u << 22);                      // UCLK fixed counter
    sys.msr_write(cpu, 0xC10, 0x00400242);                    // EVENT_MSG.MSI_RCVD
    sys.msr_write(cpu, 0xC11, 0x00400044);                    // LOCK_CYCLES
    for (unsigned p = 0; p < sys.config().qpi_ports; ++p)
        sys.pci_write(bus, kQpiDev[p], 2, 0xF4, 4, box_freeze & ~0x100u);  // unfreeze
    sys.pci_write(bus, 19, 1, 0xF4, 4, box_freeze & ~0x100u);
}

void traffic(uncore_system& sys, unsigned socket, cycle_t q_from, cycle_t q_to, lcg& rng) {
    uncore_socket& s = sys.socket(socket);
    for (unsigned p = 0; p < sys.config().qpi_ports; ++p) {
        box_module* q = s.box("qpi" + std::to_string(p));
        for (cycle_t c = q_from; c < q_to; c += 3 + rng.next(6)) {
            qpi_packet pk;
            static const uint8_t classes[] = {14, 14, 14, 12, 3, 0, 1, 2, 4};
            pk.mc = classes[rng.next(sizeof classes)];
            pk.opc = static_cast<uint8_t>(rng.next(pk.mc == 14 ? 6 : 16));
            pk.rds = pk.mc == 14 ? static_cast<uint8_t>(1u << rng.next(4)) : 0;
            q->post_packet(rng.next(2) ? qpi_dir::rx : qpi_dir::tx, c, pk);
        }
    }
    // UBox and R2PCIe events over the same window, in UCLK cycles.
    const clock_domain qclk(sys.config().qclk_hz()), uclk(sys.config().uclk_hz());
    const cycle_t u_from = uclk.cycles_before(qclk.cycle_start(q_from));
    const cycle_t u_to = uclk.cycles_before(qclk.cycle_start(q_to));
    box_module* r2 = s.box("r2pcie");
    const event_catalog& rcat = *r2->core().spec().catalog;
    const unsigned cw_even = *rcat.find_input("RING_AD_USED", sys.config().cpu == cpu_model::ivb_ep
                                                                   ? "CW_VR0_EVEN" : "CW_EVEN");
    for (cycle_t c = u_from; c + 8 < u_to; c += 8 + rng.next(16)) r2->post_run(c, 1 + rng.next(8), cw_even, 1);
    box_module* u = s.box("ubox");
    const event_catalog& ucat = *u->core().spec().catalog;
    const unsigned msi = *ucat.find_input("EVENT_MSG", "MSI_RCVD");
    const unsigned lock = *ucat.find_input("LOCK_CYCLES", "");
    for (cycle_t c = u_from; c + 100 < u_to; c += 100 + rng.next(200)) {
        u->post_run(c, 1, msi, 1);
        u->post_run(c + 50, 20, lock, 1);
    }
}

}  // namespace

void run_demo_scenario(uncore_system& sys, double us) {
    const bool ivb = sys.config().cpu == cpu_model::ivb_ep;
    if (ivb) sys.msr_write(0, 0xC00, 1u << 31);               // frz_all while programming
    for (unsigned s = 0; s < sys.sockets(); ++s) program(sys, s);
    if (ivb)
        for (unsigned s = 0; s < sys.sockets(); ++s)
            sys.msr_write(s * sys.config().cpus_per_socket, 0xC00, 1u << 29);  // unfrz_all
    lcg rng{42};
    const clock_domain qclk(sys.config().qclk_hz());
    const double step_ns = 100;
    for (double t = 0; t < us * 1000; t += step_ns) {
        const cycle_t from = qclk.cycles_before(now_ps()) + 1;
        const cycle_t to = qclk.cycles_before(now_ps() + static_cast<time_ps>(step_ns * 1000));
        for (unsigned s = 0; s < sys.sockets(); ++s) traffic(sys, s, from, to, rng);
        sc_core::wait(sc_core::sc_time(step_ns, sc_core::SC_NS));
    }
    // Freeze everything, then read as a tool would.
    for (unsigned s = 0; s < sys.sockets(); ++s) {
        const unsigned bus = sys.config().bus_of(s);
        if (ivb) {
            sys.msr_write(s * sys.config().cpus_per_socket, 0xC00, 1u << 31);
        } else {
            for (unsigned p = 0; p < sys.config().qpi_ports; ++p)
                sys.pci_write(bus, kQpiDev[p], 2, 0xF4, 4, 0x10100);
            sys.pci_write(bus, 19, 1, 0xF4, 4, 0x10100);
        }
    }
    sc_core::wait(sc_core::sc_time(1, sc_core::SC_NS));  // let the freeze signals settle
}

}  // namespace pmonsim
