// Counter scheduling of a PMON session: which counter of which box instance
// each event gets, on every socket.
//
// Box instances per socket: ubox (2 general counters), ubox_fixed (the UCLK
// fixed counter, separate from the general ones), r2pcie (4), qpi0..qpi2 (4
// each). An event is placed on every socket, or only on its socket= socket.
//
// Per box instance the events are matched to counters with a maximum bipartite
// matching (augmenting paths), honouring each event's allowed-counter mask
// (e.g. R2PCIe RxR_OCCUPANCY only on counter 0, IIO_CREDITS_* on 0-1), so an
// order in which first-fit fails still schedules; a free counter is preferred
// to moving an event, so assignments stay close to input order. When no
// complete matching exists, the error names the events that cannot all be
// placed and the counters they compete for: those reachable by alternating
// paths from the events left over (a Hall violator: k events allowed on fewer
// than k counters), so an event that could move elsewhere is not named.
//
// The QPI packet filter is one per port: CTO_COUNT events on one port are
// accepted together only if their match and mask are identical, as Linux's
// uncore_get_constraint does with its shared register.
//
// Identical events are not merged: each takes its own counter.
#pragma once
#include <cstddef>
#include <stdexcept>
#include <vector>

#include "driver/event_spec.h"

namespace pmonsim::driver {

class schedule_error : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

struct assignment {
    std::size_t event = 0;   // index into the scheduled events
    unsigned socket = 0;
    box_kind kind = box_kind::r2pcie;
    unsigned unit = 0;       // QPI port
    unsigned counter = 0;    // counter index in the box (the fixed counter: 0)
};

// One assignment per (event, socket it applies to), ordered by socket, then by
// event index. Throws schedule_error ("<box>: <reason>", the box prefixed by
// "socket N " when events differ between sockets) if an event's socket does
// not exist, the events mix personalities, a QPI port's CTO_COUNT filters
// differ, or a box's events do not fit its counters.
std::vector<assignment> schedule(const std::vector<event_spec>& events, unsigned sockets);

}  // namespace pmonsim::driver
