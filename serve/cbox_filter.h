// The caching agents' filter as Linux's uncore driver presents and programs it
// (uncore_snbep.c: the cbox formats, snbep/ivbep_uncore_cbox_extra_regs,
// snbep/ivbep_cbox_filter_mask, __snbep_cbox_get_constraint), for the served
// uncore_cbox_N PMUs (decisions.md S20).
//
// An event's config1 holds the filter in the filter registers' layout
// (FILTER in 31:0 on SNB-EP; FILTER0 in 31:0 and FILTER1 in 63:32 on IVB-EP).
// The driver keeps only the field groups the event's (event, umask, tid_en)
// use, and lets events share the box's one filter as long as each group in
// use by several of them holds one value.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "desc/cpu.h"
#include "tables/register_table.h"

namespace pmonsim::serve {

class cbox_filter {
public:
    static constexpr unsigned max_groups = 5;

    // For the CPU's caching agents; kind none: no filter (events use none).
    cbox_filter(cbo_filters kind, const register_table& table);

    // Linux's format/ files for the filter: name, "config1:lo-hi".
    std::vector<std::pair<std::string, std::string>> formats() const;
    // The groups (bit g: group g) an event's control value makes it use.
    unsigned groups_of(uint64_t config) const;
    // config1's bits of those groups.
    uint64_t mask_of(unsigned groups) const;
    // The MSR offsets from the box's BOX_CTL of the filter registers, with
    // the config1 half each takes (SNB-EP: one; IVB-EP: FILTER0, FILTER1).
    struct reg {
        uint32_t msr;
        unsigned shift;
    };
    const std::vector<reg>& registers() const { return regs_; }

private:
    struct field {
        std::string linux_name;
        unsigned lo, hi;  // in config1
        unsigned group;
    };
    cbo_filters kind_;
    std::vector<field> fields_;
    std::vector<reg> regs_;
};

// Which of the box's filter groups an event may take given the ones in use:
// per group, its users and value (Linux's shared register).
struct cbox_filter_use {
    unsigned users[cbox_filter::max_groups] = {};
    uint64_t config = 0;

    // Whether an event with `groups` and `config1` fits; if so it is added.
    bool take(const cbox_filter& f, unsigned groups, uint64_t config1);
    void give_back(unsigned groups);
};

}  // namespace pmonsim::serve
