// IIO ring port (IRP) event catalog, IVB-EP (329468-002 §2.6; SNB-EP has no
// IRP PMON function that Linux or likwid program).
//
// Codes and umasks follow Intel's perfmon JSON (unit "IRP"). The JSON allows
// every event on counters "0,1": the counters of one of the two IRP units,
// whose pairs are the box's counters 0-1 and 2-3; here every event counts on
// all four, as Linux schedules them (decisions.md B13).
//
// Increments: the write cache's occupancies up to 128 per cycle (329468-002's
// entries); the ingress occupancies likewise (their maximum is not in the
// retrieved pages); TxR_REQUEST_OCCUPANCY at most 1 (the manual's entry); the
// rest one per UCLK and sub-event.
#include <string>

#include "catalog/catalog.h"

namespace pmonsim::catalog_data {

namespace {

constexpr uint8_t ctr_all = 0xF;
constexpr uint16_t occupancy_max = 128;

event_def ev(const char* name, uint8_t code, std::vector<umask_def> u, const char* what, uint16_t max_inc = 1) {
    return plain_event(name, code, std::move(u), ctr_all, max_inc, what);
}

std::vector<umask_def> sources() { return {{"ANY", 0x01}, {"SOURCE", 0x02}}; }

}  // namespace

std::vector<event_def> ivb_ep_irp_events() {
    std::vector<event_def> e = {
        ev("CLOCKTICKS", 0x00, {}, "UCLK cycles of the IRP"),
        ev("RxR_BL_DRS_INSERTS", 0x01, {}, "DRS allocations in the BL ingress (read returns, outbound writes)"),
        ev("RxR_BL_NCB_INSERTS", 0x02, {}, "NCB allocations in the BL ingress"),
        ev("RxR_BL_NCS_INSERTS", 0x03, {}, "NCS allocations in the BL ingress"),
        ev("RxR_BL_DRS_CYCLES_FULL", 0x04, {}, "cycles the BL ingress is full of DRS"),
        ev("RxR_BL_NCB_CYCLES_FULL", 0x05, {}, "cycles the BL ingress is full of NCB"),
        ev("RxR_BL_NCS_CYCLES_FULL", 0x06, {}, "cycles the BL ingress is full of NCS"),
        ev("RxR_BL_DRS_OCCUPANCY", 0x07, {}, "running sum of the BL ingress's DRS entries", occupancy_max),
        ev("RxR_BL_NCB_OCCUPANCY", 0x08, {}, "running sum of the BL ingress's NCB entries", occupancy_max),
        ev("RxR_BL_NCS_OCCUPANCY", 0x09, {}, "running sum of the BL ingress's NCS entries", occupancy_max),
        ev("RxR_AK_INSERTS", 0x0A, {}, "allocations in the AK ingress (responses)"),
        ev("RxR_AK_CYCLES_FULL", 0x0B, {}, "cycles the AK ingress is full"),
        ev("RxR_AK_OCCUPANCY", 0x0C, {}, "running sum of the AK ingress's entries", occupancy_max),
        ev("TxR_REQUEST_OCCUPANCY", 0x0D, {}, "outbound requests outstanding towards the switch"),
        ev("TxR_DATA_INSERTS_NCB", 0x0E, {}, "outbound NCB requests issued to the switch"),
        ev("TxR_DATA_INSERTS_NCS", 0x0F, {}, "outbound NCS requests issued to the switch"),
        ev("CACHE_READ_OCCUPANCY", 0x10, sources(), "reads outstanding in the write cache, all or the filter's port",
           occupancy_max),
        ev("CACHE_WRITE_OCCUPANCY", 0x11, sources(), "writes and write prefetches outstanding", occupancy_max),
        ev("CACHE_TOTAL_OCCUPANCY", 0x12, sources(), "reads and writes outstanding", occupancy_max),
        ev("CACHE_OWN_OCCUPANCY", 0x13, sources(), "writes outstanding while acquiring ownership", occupancy_max),
        ev("CACHE_ACK_PENDING_OCCUPANCY", 0x14, sources(), "writes that own the line but have not returned data",
           occupancy_max),
        ev("TRANSACTIONS", 0x15,
           {{"READS", 0x01}, {"WRITES", 0x02}, {"RD_PREFETCHES", 0x04}, {"PD_PREFETCHES", 0x04}, {"ORDERINGQ", 0x08}},
           "inbound transactions from the IRP to the uncore, by type"),
        ev("TICKLES", 0x16, {{"LOST_OWNERSHIP", 0x01}, {"TOP_OF_QUEUE", 0x02}}, "tickles received, by cause"),
        ev("ADDRESS_MATCH", 0x17, {{"STALL_COUNT", 0x01}, {"MERGE_COUNT", 0x02}},
           "inbound writes that hit an address in the write cache"),
        ev("TxR_AD_STALL_CREDIT_CYCLES", 0x18, {}, "cycles without an AD egress credit towards the R2PCIe"),
        ev("TxR_BL_STALL_CREDIT_CYCLES", 0x19, {}, "cycles without a BL egress credit towards the R2PCIe"),
        ev("WRITE_ORDERING_STALL_CYCLES", 0x1A, {}, "cycles with write acknowledgements pending and the pipe idle"),
    };
    return e;
}

}  // namespace pmonsim::catalog_data
