// catalog_for(): the project's event catalogs, one per (CPU, box), built from
// the event lists the CPU's descriptor names (desc/cpu_registry.cpp), once, on
// first use. The QPI filter presets are the same on every CPU with a QPI box.
#include <map>
#include <memory>
#include <mutex>
#include <utility>

#include "catalog/catalog.h"

namespace pmonsim {

namespace catalog_data {
std::vector<filter_preset> qpi_presets();  // catalog_qpi.cpp
}

const event_catalog& catalog_for(box_kind kind, cpu_model cpu) {
    static std::mutex lock;
    static std::map<std::pair<cpu_model, box_kind>, std::unique_ptr<const event_catalog>> made;
    std::lock_guard<std::mutex> guard(lock);
    auto& slot = made[{cpu, kind}];
    if (!slot) {
        const box_desc* b = describe(cpu).box(kind);
        std::vector<event_def> events = b && b->events ? b->events() : std::vector<event_def>{};
        std::vector<filter_preset> presets;
        if (kind == box_kind::qpi) presets = catalog_data::qpi_presets();
        slot = std::make_unique<const event_catalog>(kind, cpu, std::move(events), std::move(presets));
    }
    return *slot;
}

}  // namespace pmonsim
