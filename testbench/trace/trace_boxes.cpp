#include "trace/trace_boxes.h"

#include <algorithm>

namespace pmonsim::trace {

int trace_box_code(box_kind kind, unsigned unit) {
    for (unsigned c = 0; c < trace_box_count; ++c)
        if (trace_boxes[c].kind == kind && trace_boxes[c].unit == unit) return static_cast<int>(c);
    return -1;
}

std::array<bool, trace_box_count> boxes_on(const trace_context& ctx) {
    std::array<bool, trace_box_count> on{};
    const cpu_desc& cpu = describe(ctx.cpu);
    for (unsigned c = 0; c < trace_box_count; ++c) {
        const trace_box& b = trace_boxes[c];
        const box_desc* d = cpu.box(b.kind);
        if (!d || !d->events) continue;
        unsigned units = d->units;
        switch (d->present) {
            case unit_count::all: break;
            case unit_count::per_qpi_port: units = std::min(ctx.qpi_ports, d->units); break;
            case unit_count::per_memory_controller:
                units = std::min(ctx.memory_controllers * d->units_per_group, d->units);
                break;
            case unit_count::per_core: units = std::min(ctx.cores, d->units); break;
        }
        on[c] = b.unit < units;
    }
    return on;
}

std::string box_list(const trace_context& ctx) {
    const auto on = boxes_on(ctx);
    std::string s;
    for (unsigned c = 0; c < trace_box_count; ++c)
        if (on[c]) s += (s.empty() ? "" : ", ") + std::string(trace_boxes[c].name);
    return s;
}

row_clocks::row_clocks(const trace_context& ctx)
    : clocks_{trace_clock(ctx.uclk_hz), trace_clock(ctx.qclk_hz), trace_clock(ctx.dclk_hz), trace_clock(ctx.pclk_hz)} {
    for (unsigned c = 0; c < trace_box_count; ++c)
        if (const box_desc* d = describe(ctx.cpu).box(trace_boxes[c].kind)) switch (d->clock) {
                case box_clock::uclk: which_[c] = 0; break;
                case box_clock::qclk: which_[c] = 1; break;
                case box_clock::dclk: which_[c] = 2; break;
                case box_clock::pclk: which_[c] = 3; break;
            }
}

std::array<const event_catalog*, box_kind_count> catalogs_of(cpu_model cpu) {
    std::array<const event_catalog*, box_kind_count> c{};
    for (const box_desc& d : describe(cpu).boxes)
        if (d.events) c[static_cast<unsigned>(d.kind)] = &catalog_for(d.kind, cpu);
    return c;
}

std::string not_driven_reason(const std::string& name, cpu_model cpu) {
    for (const box_desc& d : describe(cpu).boxes)
        if (!d.events && name == to_string(d.kind))
            switch (d.clock) {
                case box_clock::uclk: return "has no events to drive (the fixed counter counts UCLK cycles by itself)";
                case box_clock::qclk: return "has no events to drive (the fixed counter counts QCLK cycles by itself)";
                case box_clock::dclk: return "has no events to drive (the fixed counter counts DCLK cycles by itself)";
                case box_clock::pclk: return "has no events to drive (the fixed counter counts PCLK cycles by itself)";
            }
    return {};
}

}  // namespace pmonsim::trace
