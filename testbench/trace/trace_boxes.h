// The boxes an event row can drive, each with a fixed code: the box byte of
// the binary format and the value the text fast path finds a name as. Codes
// are never reused, so a binary trace keeps its meaning. Which of them a
// machine has comes from its CPU's descriptor (and, for QPI ports, from how
// many the machine was given).
#pragma once
#include <array>
#include <string>

#include "trace/trace_clock.h"
#include "trace/trace_reader.h"

namespace pmonsim::trace {

struct trace_box {
    const char* name;
    box_kind kind;
    unsigned unit;
};
inline constexpr trace_box trace_boxes[] = {
    {"ubox", box_kind::ubox, 0}, {"r2pcie", box_kind::r2pcie, 0}, {"qpi0", box_kind::qpi, 0},
    {"qpi1", box_kind::qpi, 1},  {"qpi2", box_kind::qpi, 2},      {"uncore", box_kind::uncore, 0},
    {"imc0", box_kind::imc, 0},  {"imc1", box_kind::imc, 1},      {"imc2", box_kind::imc, 2},
    {"imc3", box_kind::imc, 3},  {"imc4", box_kind::imc, 4},      {"imc5", box_kind::imc, 5},
    {"imc6", box_kind::imc, 6},  {"imc7", box_kind::imc, 7},      {"ha0", box_kind::ha, 0},
    {"ha1", box_kind::ha, 1},    {"r3qpi0", box_kind::r3qpi, 0},  {"r3qpi1", box_kind::r3qpi, 1},
    {"r3qpi2", box_kind::r3qpi, 2},
    {"cbo0", box_kind::cbo, 0}, {"cbo1", box_kind::cbo, 1}, {"cbo2", box_kind::cbo, 2},
    {"cbo3", box_kind::cbo, 3}, {"cbo4", box_kind::cbo, 4}, {"cbo5", box_kind::cbo, 5},
    {"cbo6", box_kind::cbo, 6}, {"cbo7", box_kind::cbo, 7}, {"cbo8", box_kind::cbo, 8},
    {"cbo9", box_kind::cbo, 9}, {"cbo10", box_kind::cbo, 10}, {"cbo11", box_kind::cbo, 11},
    {"cbo12", box_kind::cbo, 12}, {"cbo13", box_kind::cbo, 13}, {"cbo14", box_kind::cbo, 14},
    {"pcu", box_kind::pcu, 0},   {"irp", box_kind::irp, 0},
};
inline constexpr unsigned trace_box_count = sizeof trace_boxes / sizeof trace_boxes[0];

// The code of (kind, unit); -1 for a box no event row drives (the fixed
// counters count their clock by themselves).
int trace_box_code(box_kind kind, unsigned unit);

// By code: whether the machine has the box and rows may name it.
std::array<bool, trace_box_count> boxes_on(const trace_context& ctx);
// "ubox, r2pcie, qpi0, qpi1": the boxes rows may name, for messages.
std::string box_list(const trace_context& ctx);
// The clock each box's rows count in (UCLK, QCLK, DCLK or PCLK), by code, for the
// readers to look up per row.
class row_clocks {
public:
    explicit row_clocks(const trace_context& ctx);
    const trace_clock& of(unsigned code) const { return clocks_[which_[code]]; }
    const char* name_of(unsigned code) const { return names_[which_[code]]; }
    const trace_clock& uclk() const { return clocks_[0]; }
    const trace_clock& qclk() const { return clocks_[1]; }

private:
    trace_clock clocks_[4];
    static constexpr const char* names_[4] = {"UCLK", "QCLK", "DCLK", "PCLK"};
    std::array<uint8_t, trace_box_count> which_{};
};
// The catalogs of the CPU's boxes, by box_kind (null for a box it lacks or
// one without events).
std::array<const event_catalog*, box_kind_count> catalogs_of(cpu_model cpu);
// Why a name that is a box but drives no events is refused; empty if none.
std::string not_driven_reason(const std::string& lower_name, cpu_model cpu);

}  // namespace pmonsim::trace
