#include "driver/scheduler.h"

#include <array>
#include <algorithm>
#include <functional>
#include <map>
#include <string>
#include <utility>

#include "desc/cpu.h"

namespace pmonsim::driver {

namespace {

// Counters per box instance, from the CPU's descriptor.
unsigned counters_of(box_kind kind, cpu_model cpu) {
    const box_desc* b = describe(cpu).box(kind);
    return b ? b->counters : 0;
}

// "A", "A and B", "A, B and C".
std::string names_of(const std::vector<event_spec>& events, const std::vector<std::size_t>& idx) {
    std::string s;
    for (std::size_t i = 0; i < idx.size(); ++i) {
        if (i) s += i + 1 == idx.size() ? " and " : ", ";
        s += events[idx[i]].local_name();
    }
    return s;
}

// "counter 0", "counters 0-1", "counters 0, 2".
std::string counters_text(const std::vector<unsigned>& c) {
    if (c.size() == 1) return "counter " + std::to_string(c[0]);
    bool contiguous = true;
    for (std::size_t i = 1; i < c.size(); ++i) contiguous = contiguous && c[i] == c[i - 1] + 1;
    if (contiguous) return "counters " + std::to_string(c.front()) + "-" + std::to_string(c.back());
    std::string s = "counters ";
    for (std::size_t i = 0; i < c.size(); ++i) s += (i ? ", " : "") + std::to_string(c[i]);
    return s;
}

// Assigns the events of one box instance (indices into `events`) to its
// `n` counters; returns counter -> event index, or throws.
std::vector<std::ptrdiff_t> match_box(const std::vector<event_spec>& events,
                                      const std::vector<std::size_t>& group, unsigned n,
                                      const std::string& label) {
    std::vector<std::ptrdiff_t> owner(n, -1);  // position in `group`
    std::vector<bool> visited;
    std::vector<std::size_t> seen;
    const uint8_t box_mask = static_cast<uint8_t>((1u << n) - 1);

    // Kuhn's augmenting path from group position e. A free counter is taken
    // before anything is moved, so events keep the counters they got first
    // wherever they can.
    std::function<bool(std::size_t)> augment = [&](std::size_t e) -> bool {
        seen.push_back(e);
        const uint8_t allowed = events[group[e]].counters & box_mask;
        for (unsigned c = 0; c < n; ++c)
            if ((allowed & (1u << c)) && !visited[c] && owner[c] < 0) {
                visited[c] = true;
                owner[c] = static_cast<std::ptrdiff_t>(e);
                return true;
            }
        for (unsigned c = 0; c < n; ++c) {
            if (!(allowed & (1u << c)) || visited[c]) continue;
            visited[c] = true;
            if (augment(static_cast<std::size_t>(owner[c]))) {
                owner[c] = static_cast<std::ptrdiff_t>(e);
                return true;
            }
        }
        return false;
    };

    // An event without an augmenting path at its turn never gets one later,
    // so this leaves a maximum matching.
    std::vector<std::size_t> unmatched;
    for (std::size_t e = 0; e < group.size(); ++e) {
        visited.assign(n, false);
        seen.clear();
        if (!augment(e)) unmatched.push_back(e);
    }
    if (unmatched.empty()) return owner;

    // The events reachable from the unmatched ones by alternating paths, and
    // the counters they may use (all visited, all held by events of the set):
    // a Hall violator, |events| = |counters| + |unmatched| (Koenig).
    visited.assign(n, false);
    seen.clear();
    for (std::size_t u : unmatched) augment(u);  // fails: the matching is maximum
    std::vector<std::size_t> who;
    for (std::size_t p : seen) who.push_back(group[p]);
    std::sort(who.begin(), who.end());
    who.erase(std::unique(who.begin(), who.end()), who.end());
    std::vector<unsigned> used;
    for (unsigned c = 0; c < n; ++c)
        if (visited[c]) used.push_back(c);
    std::string reason;
    if (used.empty())
        reason = names_of(events, who) + " may use none of the box's " + std::to_string(n) +
                 " counters";
    else if (used.size() == 1)
        reason = names_of(events, who) + (who.size() == 2 ? " both" : " all") + " need " +
                 counters_text(used);
    else
        reason = names_of(events, who) + " need " + counters_text(used) + " (" +
                 std::to_string(who.size()) + " events for " + std::to_string(used.size()) +
                 " counters)";
    throw schedule_error(label + ": " + reason);
}

}  // namespace

std::vector<assignment> schedule(const std::vector<event_spec>& events, unsigned sockets) {
    if (sockets == 0) throw schedule_error("no sockets to schedule on");
    std::vector<assignment> out;
    if (events.empty()) return out;

    bool any_socket = false;
    for (const event_spec& e : events) {
        if (e.cpu != events[0].cpu)
            throw schedule_error("events for different CPU personalities: " + events[0].name + " (" +
                                 to_string(events[0].cpu) + ") and " + e.name + " (" +
                                 to_string(e.cpu) + ")");
        if (e.socket && *e.socket >= sockets)
            throw schedule_error(e.name + ": socket " + std::to_string(*e.socket) +
                                 " does not exist (" + std::to_string(sockets) + " socket" +
                                 (sockets == 1 ? "" : "s") + ")");
        any_socket = any_socket || e.socket.has_value();
    }
    const cpu_model cpu = events[0].cpu;
    const bool label_socket = sockets > 1 && any_socket;

    for (unsigned s = 0; s < sockets; ++s) {
        // Box instances in (kind, unit) order, events in input order.
        std::map<std::pair<unsigned, unsigned>, std::vector<std::size_t>> boxes;
        for (std::size_t i = 0; i < events.size(); ++i)
            if (!events[i].socket || *events[i].socket == s)
                boxes[{static_cast<unsigned>(events[i].kind), events[i].unit}].push_back(i);

        for (const auto& [key, group] : boxes) {
            const event_spec& first = events[group.front()];
            const std::string label =
                (label_socket ? "socket " + std::to_string(s) + " " : std::string()) + first.box_name();

            // One packet filter per QPI port.
            const event_spec* filter = nullptr;
            for (std::size_t i : group) {
                const event_spec& e = events[i];
                if (!e.has_filter) continue;
                if (!filter) filter = &e;
                else if (e.match != filter->match || e.mask != filter->mask)
                    throw schedule_error(label + ": CTO_COUNT filters differ: " + filter->local_name() +
                                         " and " + e.local_name() +
                                         " (a QPI port has one match/mask filter)");
            }

            // One band filter byte per band in the PCU.
            std::array<const event_spec*, 4> band{};
            for (std::size_t i : group) {
                const event_spec& e = events[i];
                if (e.band < 0) continue;
                const event_spec*& b = band[static_cast<std::size_t>(e.band)];
                if (!b) b = &e;
                else if (b->band_value != e.band_value)
                    throw schedule_error(label + ": band filters differ: " + b->local_name() + " and " +
                                         e.local_name() + " (the band filter has one byte per band)");
            }

            // One request filter per caching or home agent: events agree
            // on the bits they both claim (decisions.md B14).
            for (std::size_t a = 0; a < group.size(); ++a)
                for (std::size_t b = a + 1; b < group.size(); ++b) {
                    const event_spec &x = events[group[a]], &y = events[group[b]];
                    for (std::size_t k = 0; k < x.req_mask.size(); ++k)
                        if ((x.req_value[k] ^ y.req_value[k]) & x.req_mask[k] & y.req_mask[k])
                            throw schedule_error(label + ": request filters differ: " + x.local_name() + " and " +
                                                 y.local_name() + " (the box has one filter)");
                }

            const unsigned n = counters_of(first.kind, cpu);
            if (group.size() > n)
                throw schedule_error(label + ": " + std::to_string(group.size()) + " events but " +
                                     std::to_string(n) + " counter" + (n == 1 ? "" : "s") + ": " +
                                     names_of(events, group));

            const auto owner = match_box(events, group, n, label);
            for (unsigned c = 0; c < n; ++c)
                if (owner[c] >= 0)
                    out.push_back({group[static_cast<std::size_t>(owner[c])], s, first.kind,
                                   first.unit, c});
        }
    }
    std::sort(out.begin(), out.end(), [](const assignment& a, const assignment& b) {
        return a.socket != b.socket ? a.socket < b.socket : a.event < b.event;
    });
    return out;
}

}  // namespace pmonsim::driver
