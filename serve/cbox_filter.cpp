#include "serve/cbox_filter.h"

#include <stdexcept>

namespace pmonsim::serve {

namespace {

// Linux's extra_regs rows: events (config & mask == event) and the filter
// groups they use. tid_en (CTL bit 19) uses the thread ID on every event.
struct extra_reg {
    uint32_t event, mask;
    unsigned groups;
};
constexpr uint32_t tid_en = 1u << 19;

const std::vector<extra_reg>& snb_ep_rows() {
    static const std::vector<extra_reg> r = {
        {tid_en, tid_en, 0x1}, {0x0334, 0xffff, 0x4}, {0x4334, 0xffff, 0x6}, {0x0534, 0xffff, 0x4},
        {0x4534, 0xffff, 0x6}, {0x0934, 0xffff, 0x4}, {0x4934, 0xffff, 0x6}, {0x4134, 0xffff, 0x6},
        {0x0135, 0xffff, 0x8}, {0x0335, 0xffff, 0x8}, {0x4135, 0xffff, 0xa}, {0x4335, 0xffff, 0xa},
        {0x4435, 0xffff, 0x2}, {0x4835, 0xffff, 0x2}, {0x4a35, 0xffff, 0x2}, {0x5035, 0xffff, 0x2},
        {0x0136, 0xffff, 0x8}, {0x0336, 0xffff, 0x8}, {0x4136, 0xffff, 0xa}, {0x4336, 0xffff, 0xa},
        {0x4436, 0xffff, 0x2}, {0x4836, 0xffff, 0x2}, {0x4a36, 0xffff, 0x2}, {0x4037, 0x40ff, 0x2},
    };
    return r;
}

const std::vector<extra_reg>& ivb_ep_rows() {
    static const std::vector<extra_reg> r = {
        {tid_en, tid_en, 0x1},  {0x1031, 0x10ff, 0x2},  {0x1134, 0xffff, 0x4},  {0x4134, 0xffff, 0xc},
        {0x5134, 0xffff, 0xc},  {0x0334, 0xffff, 0x4},  {0x4334, 0xffff, 0xc},  {0x0534, 0xffff, 0x4},
        {0x4534, 0xffff, 0xc},  {0x0934, 0xffff, 0x4},  {0x4934, 0xffff, 0xc},  {0x0135, 0xffff, 0x10},
        {0x0335, 0xffff, 0x10}, {0x2135, 0xffff, 0x10}, {0x2335, 0xffff, 0x10}, {0x4135, 0xffff, 0x18},
        {0x4335, 0xffff, 0x18}, {0x4435, 0xffff, 0x8},  {0x4835, 0xffff, 0x8},  {0x4a35, 0xffff, 0x8},
        {0x5035, 0xffff, 0x8},  {0x8135, 0xffff, 0x10}, {0x8335, 0xffff, 0x10}, {0x0136, 0xffff, 0x10},
        {0x0336, 0xffff, 0x10}, {0x2136, 0xffff, 0x10}, {0x2336, 0xffff, 0x10}, {0x4136, 0xffff, 0x18},
        {0x4336, 0xffff, 0x18}, {0x4436, 0xffff, 0x8},  {0x4836, 0xffff, 0x8},  {0x4a36, 0xffff, 0x8},
        {0x5036, 0xffff, 0x8},  {0x8136, 0xffff, 0x10}, {0x8336, 0xffff, 0x10}, {0x4037, 0x40ff, 0x8},
    };
    return r;
}

const std::vector<extra_reg>& rows_of(cbo_filters kind) {
    static const std::vector<extra_reg> none;
    switch (kind) {
        case cbo_filters::none: return none;
        case cbo_filters::one_filter: return snb_ep_rows();
        case cbo_filters::two_filters: return ivb_ep_rows();
    }
    return none;
}

// A filter field's Linux format name and group, by the table's field name.
struct linux_field {
    const char* table_name;
    const char* linux_name;
    unsigned group;
};

std::vector<linux_field> linux_fields(cbo_filters kind) {
    switch (kind) {
        case cbo_filters::none: return {};
        case cbo_filters::one_filter:
            return {{"tid", "filter_tid", 0}, {"nid", "filter_nid", 1}, {"state", "filter_state", 2},
                    {"opc", "filter_opc", 3}};
        case cbo_filters::two_filters:
            return {{"tid", "filter_tid", 0},    {"link", "filter_link", 1}, {"state", "filter_state2", 2},
                    {"nid", "filter_nid2", 3},   {"opc", "filter_opc2", 4},  {"nc", "filter_nc", 4},
                    {"c6", "filter_c6", 4},      {"isoc", "filter_isoc", 4}};
    }
    return {};
}

}  // namespace

cbox_filter::cbox_filter(cbo_filters kind, const register_table& table) : kind_(kind) {
    // The filter registers are the box's stored ones, FILTER(0) then FILTER1,
    // each taking the next 32 bits of config1.
    uint32_t box_ctl = 0;
    for (const register_def& r : table.regs)
        if (r.role == reg_role::box_ctl) box_ctl = r.offset;
    for (const linux_field& lf : linux_fields(kind)) {
        bool found = false;
        for (const register_def& r : table.regs) {
            if (r.role != reg_role::stored) continue;
            for (const field_def& f : r.fields)
                if (f.name == lf.table_name) {
                    fields_.push_back({lf.linux_name, f.lo + 32u * r.index, f.hi + 32u * r.index, lf.group});
                    found = true;
                }
        }
        if (!found) throw std::logic_error(std::string("the caching agent's filter has no field ") + lf.table_name);
    }
    for (const register_def& r : table.regs)
        if (r.role == reg_role::stored) regs_.push_back({r.offset - box_ctl, 32u * r.index});
}

std::vector<std::pair<std::string, std::string>> cbox_filter::formats() const {
    std::vector<std::pair<std::string, std::string>> out;
    for (const field& f : fields_)
        out.push_back({f.linux_name, "config1:" + (f.lo == f.hi ? std::to_string(f.lo)
                                                              : std::to_string(f.lo) + "-" + std::to_string(f.hi))});
    return out;
}

unsigned cbox_filter::groups_of(uint64_t config) const {
    unsigned g = 0;
    for (const extra_reg& r : rows_of(kind_))
        if ((config & r.mask) == r.event) g |= r.groups;
    return g;
}

uint64_t cbox_filter::mask_of(unsigned groups) const {
    uint64_t m = 0;
    for (const field& f : fields_)
        if (groups & (1u << f.group)) m |= bit_mask(f.hi, f.lo);
    return m;
}

bool cbox_filter_use::take(const cbox_filter& f, unsigned groups, uint64_t config1) {
    for (unsigned g = 0; g < cbox_filter::max_groups; ++g) {
        const uint64_t m = f.mask_of(1u << g);
        if ((groups & (1u << g)) && users[g] && ((config ^ config1) & m)) return false;
    }
    for (unsigned g = 0; g < cbox_filter::max_groups; ++g) {
        if (!(groups & (1u << g))) continue;
        const uint64_t m = f.mask_of(1u << g);
        ++users[g];
        config = (config & ~m) | (config1 & m);
    }
    return true;
}

void cbox_filter_use::give_back(unsigned groups) {
    for (unsigned g = 0; g < cbox_filter::max_groups; ++g)
        if ((groups & (1u << g)) && users[g]) --users[g];
}

}  // namespace pmonsim::serve
