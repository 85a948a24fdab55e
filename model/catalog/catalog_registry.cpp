// catalog_for(): the project's event catalogs, one per (box, personality).
//
// The tables live in catalog_ubox.cpp (327043-001 / 329468-002 §2.2),
// catalog_r2pcie.cpp (§2.8 / §2.9) and catalog_qpi.cpp (§2.6 / §2.7). Each
// catalog is built once, on first use, as a function-local static, so there is
// no static-initialisation-order dependency between translation units.
#include "catalog/catalog.h"

namespace pmonsim {

namespace catalog_data {
// Defined in catalog_ubox.cpp, catalog_r2pcie.cpp and catalog_qpi.cpp.
std::vector<event_def> ubox_events(cpu_model cpu);
std::vector<event_def> r2pcie_events(cpu_model cpu);
std::vector<event_def> qpi_events(cpu_model cpu);
std::vector<filter_preset> qpi_presets();
}  // namespace catalog_data

namespace {

template <cpu_model Cpu>
const event_catalog& ubox_catalog() {
    static const event_catalog c(box_kind::ubox, Cpu, catalog_data::ubox_events(Cpu));
    return c;
}

// The fixed UCLK counter has no event select: its catalog is empty.
template <cpu_model Cpu>
const event_catalog& ubox_fixed_catalog() {
    static const event_catalog c(box_kind::ubox_fixed, Cpu, {});
    return c;
}

template <cpu_model Cpu>
const event_catalog& r2pcie_catalog() {
    static const event_catalog c(box_kind::r2pcie, Cpu, catalog_data::r2pcie_events(Cpu));
    return c;
}

template <cpu_model Cpu>
const event_catalog& qpi_catalog() {
    static const event_catalog c(box_kind::qpi, Cpu, catalog_data::qpi_events(Cpu),
                                 catalog_data::qpi_presets());
    return c;
}

template <cpu_model Cpu>
const event_catalog& catalog_of(box_kind kind) {
    switch (kind) {
        case box_kind::ubox: return ubox_catalog<Cpu>();
        case box_kind::ubox_fixed: return ubox_fixed_catalog<Cpu>();
        case box_kind::r2pcie: return r2pcie_catalog<Cpu>();
        case box_kind::qpi: return qpi_catalog<Cpu>();
    }
    return ubox_fixed_catalog<Cpu>();  // unreachable for valid enum values
}

}  // namespace

const event_catalog& catalog_for(box_kind kind, cpu_model cpu) {
    return cpu == cpu_model::snb_ep ? catalog_of<cpu_model::snb_ep>(kind)
                                    : catalog_of<cpu_model::ivb_ep>(kind);
}

}  // namespace pmonsim
