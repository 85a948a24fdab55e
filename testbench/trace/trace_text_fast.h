// The text decoder's fast path: one pass over a row in its usual spelling
// (values without blanks around them, decimal numbers, names of the formats,
// every value in range, the time not going back, an event text the decoder
// has resolved before). The commas are found a block at a time, numbers and
// names are read a word at a time (trace_swar.h; lines come with readable
// padding, trace_lines.h), and the columns are taken by position in a fixed
// order, so a row costs few branches that depend on its data.
//
// A row it declines changes nothing: the general parser (trace_text.cpp)
// reads it again and gives the same record, or says what is wrong with it.
// So the fast path only needs to be right about the rows it accepts.
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "trace/trace_clock.h"
#include "trace/trace_event_cache.h"
#include "trace/trace_reader.h"
#include "trace/trace_swar.h"
#include "trace/trace_text_columns.h"

namespace pmonsim::trace::text {

class fast_rows {
public:
    // pos: each column's field index, or -1; `fields`: how many a row has.
    // The context, clocks and cache are referenced, not copied: the decoder
    // owns them. (The column positions and the bounds a row is checked
    // against are copied: each row reads them several times.)
    fast_rows(const std::array<int, n_cols>& pos, std::size_t fields, const trace_context& ctx,
              const row_clocks& clocks, const event_text_cache& cache)
        : pos_(pos), ctx_(ctx), clocks_(clocks), cache_(cache), fields_(fields),
          sockets_(ctx.sockets), qpi_ports_(ctx.qpi_ports), max_time_(ctx.max_time),
          box_on_(boxes_on(ctx)), link_packets_(takes_link_packets(ctx) && fields <= max_fields),
          events_(fields <= max_fields), quals_columns_(any_quals_column(pos)) {}

    // The record of the row `line` but its line number, when the row is not
    // before `after` (ignored when `ordered` is false): true; otherwise false,
    // with `r` partly written.
    bool packet(std::string_view line, bool ordered, time_ps after, packet_record& r);
    bool event(std::string_view line, bool ordered, time_ps after, event_record& r);

private:
    struct span {
        const char* begin;
        unsigned size;
    };
    static constexpr unsigned none_named = ~0u;

    bool scan_fields(std::string_view line);
    static bool decimal(const span& f, uint64_t& v);
    const span& field(int c) const { return scan_[static_cast<std::size_t>(pos_[c])]; }
    bool number_or_empty(int c, uint64_t& v) const;
    uint64_t key(int c) const;
    bool text(int c, std::string_view& v) const;
    template <unsigned Bits>
    unsigned name_or_number(int c, const swar::name_table<Bits>& names, unsigned max, unsigned dflt) const;
    bool time(const trace_clock& clk, bool ordered, time_ps after, time_ps& t, cycle_t& cyc) const;

    // Rows of more fields take the general parser.
    static constexpr std::size_t max_fields = 32;

    const std::array<int, n_cols> pos_;
    const trace_context& ctx_;
    const row_clocks& clocks_;
    const event_text_cache& cache_;
    std::array<span, max_fields> scan_;  // the current row's fields
    const std::size_t fields_;
    const uint64_t sockets_, qpi_ports_;
    const time_ps max_time_;
    std::array<bool, trace_box_count> box_on_;    // by trace box code
    // Packet rows are QPI link packets (the only ones the fast path reads;
    // requests at the home logic take the general parser).
    bool link_packets_;
    bool events_;  // (false: rows of too many fields)
    // The header has a request-attribute column (a qualified row takes the
    // general parser): known once per file, not looked up per row.
    bool quals_columns_;
    static bool any_quals_column(const std::array<int, n_cols>& pos) {
        for (const quals_column& q : quals_columns)
            if (pos[static_cast<std::size_t>(q.col)] >= 0) return true;
        return false;
    }

    static bool takes_link_packets(const trace_context& ctx) {
        switch (describe(ctx.cpu).packets) {
            case packet_route::qpi_link: return true;
            case packet_route::home_logic: return false;
        }
        return false;
    }
};

}  // namespace pmonsim::trace::text
