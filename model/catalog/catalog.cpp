#include "catalog/catalog.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

namespace pmonsim {

event_def& event_named(std::vector<event_def>& events, const std::string& name) {
    for (auto& e : events)
        if (e.name == name) return e;
    throw std::logic_error("catalog: no event " + name + " to change");
}

event_def plain_event(std::string name, uint8_t code, std::vector<umask_def> umasks, uint8_t counters,
                      uint16_t max_inc, std::string what) {
    return {std::move(name), code, false, std::move(umasks), counters, max_inc, false, std::move(what)};
}

std::vector<umask_def> numbered_bits(const std::string& name, unsigned n, unsigned first) {
    std::vector<umask_def> u;
    for (unsigned b = 0; b < n; ++b) u.push_back({name + std::to_string(first + b), static_cast<uint8_t>(1u << b)});
    return u;
}

std::vector<uint8_t> event_def::encodings() const {
    std::vector<uint8_t> v;
    for (const auto& u : umasks)
        if (std::find(v.begin(), v.end(), u.value) == v.end()) v.push_back(u.value);
    return v;
}

uint8_t event_def::sub_value(int sub) const {
    if (sub < 0) return 0;
    if (!enumerated) return static_cast<uint8_t>(1u << sub);
    const std::vector<uint8_t> v = encodings();
    return static_cast<size_t>(sub) < v.size() ? v[static_cast<size_t>(sub)] : 0;
}

std::string event_def::sub_name(int sub) const {
    const uint8_t value = sub_value(sub);
    for (const auto& u : umasks)
        if (u.value == value) return u.name;
    return "bit" + std::to_string(sub);
}

uint8_t event_def::valid_umask() const {
    uint8_t m = 0;
    for (const auto& u : umasks) m |= u.value;
    return m;
}

static bool iequal(const std::string& a, const std::string& b) {
    return a.size() == b.size() &&
           std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
               return std::tolower(static_cast<unsigned char>(x)) ==
                      std::tolower(static_cast<unsigned char>(y));
           });
}

event_catalog::event_catalog(box_kind kind, cpu_model cpu, std::vector<event_def> events,
                             std::vector<filter_preset> presets)
    : kind_(kind), cpu_(cpu), events_(std::move(events)), presets_(std::move(presets)) {
    for (unsigned e = 0; e < events_.size(); ++e) {
        uint8_t valid = events_[e].valid_umask();
        if (events_[e].band >= 0) {  // one input for all band events: the frequency
            if (valid != 0) throw std::logic_error(events_[e].name + ": a band event has no sub-events");
            if (band_input_ < 0) {
                band_input_ = static_cast<int>(inputs_.size());
                inputs_.push_back({e, -1});
            }
            first_input_.push_back(static_cast<unsigned>(band_input_));
            continue;
        }
        first_input_.push_back(static_cast<unsigned>(inputs_.size()));
        if (events_[e].enumerated) {
            const size_t n = events_[e].encodings().size();
            if (n == 0 || n > 32) throw std::logic_error(events_[e].name + ": an enumerated event has 1-32 encodings");
            for (size_t k = 0; k < n; ++k) inputs_.push_back({e, static_cast<int>(k)});
        } else if (valid == 0) {
            inputs_.push_back({e, -1});
        } else {
            for (int b = 0; b < 8; ++b)
                if (valid & (1u << b)) inputs_.push_back({e, b});
        }
    }
}

std::optional<unsigned> event_catalog::find(uint8_t code, bool ext) const {
    for (unsigned i = 0; i < events_.size(); ++i)
        if (events_[i].code == code && events_[i].ext == ext) return i;
    return std::nullopt;
}

std::optional<unsigned> event_catalog::find(const std::string& name) const {
    for (unsigned i = 0; i < events_.size(); ++i)
        if (iequal(events_[i].name, name)) return i;
    for (unsigned i = 0; i < events_.size(); ++i)
        for (const std::string& n : events_[i].other_names)
            if (iequal(n, name)) return i;
    return std::nullopt;
}

const filter_preset* event_catalog::find_preset(const std::string& name) const {
    for (const auto& p : presets_)
        if (iequal(p.name, name)) return &p;
    return nullptr;
}

std::string event_catalog::input_name(unsigned i) const {
    const input_ref& r = inputs_.at(i);
    const event_def& ev = events_[r.event];
    if (r.bit < 0) return ev.name;
    return ev.name + "." + ev.sub_name(r.bit);
}

std::optional<unsigned> event_catalog::input_of(unsigned event, int bit) const {
    if (event >= events_.size()) return std::nullopt;
    if (events_[event].band >= 0) return bit < 0 ? std::optional<unsigned>(first_input_[event]) : std::nullopt;
    for (unsigned i = first_input_[event]; i < inputs_.size() && inputs_[i].event == event; ++i)
        if (inputs_[i].bit == bit) return i;
    return std::nullopt;
}

uint8_t event_catalog::input_filters(unsigned input) const {
    const input_ref& r = inputs_.at(input);
    const event_def& ev = events_[r.event];
    const uint8_t value = ev.sub_value(r.bit);
    for (const auto& u : ev.umasks)
        if (r.bit >= 0 && u.value == value) return u.filters;
    return 0;
}

std::optional<unsigned> event_catalog::find_input(const std::string& event,
                                                  const std::string& sub) const {
    auto e = find(event);
    if (!e) return std::nullopt;
    const event_def& ev = events_[*e];
    if (sub.empty()) return ev.umasks.empty() ? input_of(*e, -1) : std::nullopt;
    for (const auto& u : ev.umasks) {
        if (iequal(u.name, sub) && ev.enumerated) {
            const std::vector<uint8_t> v = ev.encodings();
            return input_of(*e, static_cast<int>(std::find(v.begin(), v.end(), u.value) - v.begin()));
        }
        if (iequal(u.name, sub)) {
            if (u.value == 0 || (u.value & (u.value - 1)) != 0) return std::nullopt;
            int bit = 0;
            while (!(u.value & (1u << bit))) ++bit;
            return input_of(*e, bit);
        }
    }
    if (sub.size() > 3 && iequal(sub.substr(0, 3), "bit")) {
        int bit = std::atoi(sub.c_str() + 3);
        if (bit >= 0 && bit < 8 && (ev.valid_umask() & (1u << bit))) return input_of(*e, bit);
    }
    return std::nullopt;
}

event_catalog::selection event_catalog::select(uint8_t code, bool ext, uint8_t umask) const {
    selection s;
    auto e = find(code, ext);
    char buf[96];
    if (!e) {
        std::snprintf(buf, sizeof buf, "event 0x%02x%s is not in the %s catalog", code,
                      ext ? "+ext" : "", to_string(kind_));
        s.error = buf;
        return s;
    }
    s.event = *e;
    const event_def& ev = events_[*e];
    uint8_t valid = ev.valid_umask();
    if (ev.enumerated) {
        const std::vector<uint8_t> v = ev.encodings();
        const auto k = std::find(v.begin(), v.end(), umask);
        if (k == v.end()) {
            std::snprintf(buf, sizeof buf, "umask 0x%02x is not one of the encodings of %s", umask, ev.name.c_str());
            s.error = buf;
            return s;
        }
        s.inputs.push_back(*input_of(*e, static_cast<int>(k - v.begin())));
        return s;
    }
    if (valid == 0) {
        if (umask != 0) {
            std::snprintf(buf, sizeof buf, "%s has no sub-events but umask is 0x%02x",
                          ev.name.c_str(), umask);
            s.error = buf;
            return s;
        }
        s.inputs.push_back(first_input_[*e]);
        return s;
    }
    if (umask == 0 && ev.umask0_all) umask = valid;
    if (umask == 0) {
        s.error = ev.name + " with umask 0 selects no sub-event";
        return s;
    }
    if (umask & ~valid) {
        std::snprintf(buf, sizeof buf, "%s does not define umask bits 0x%02x", ev.name.c_str(),
                      umask & ~valid);
        s.error = buf;
        return s;
    }
    for (int b = 0; b < 8; ++b)
        if (umask & (1u << b)) s.inputs.push_back(*input_of(*e, b));
    return s;
}

}  // namespace pmonsim
