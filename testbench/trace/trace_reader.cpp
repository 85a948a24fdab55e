// trace_reader (trace_reader.h): tells the formats apart by content and hands
// the records to the text or binary decoder (trace_text.h, trace_binary.h);
// validate_trace of a stream; trace_error. The merger is in trace_merger.cpp,
// validate_trace of a file in trace_validate.cpp.
#include "trace/trace_reader.h"

#include <algorithm>
#include <array>
#include <exception>
#include <fstream>

#include "desc/printable.h"
#include "trace/trace_binary.h"
#include "trace/trace_boxes.h"
#include "trace/trace_input.h"
#include "trace/trace_text.h"

namespace pmonsim::trace {

// ---------------------------------------------------------------------------
// Errors and names

namespace {

std::string compose(const std::string& file, unsigned line, unsigned column,
                    const std::string& reason) {
    std::string s = file;
    if (line) {
        s += ':' + std::to_string(line);
        if (column) s += ':' + std::to_string(column);
    }
    return s + ": " + reason;
}

}  // namespace

trace_error::trace_error(std::string file, unsigned line, unsigned column, std::string reason)
    : std::runtime_error(printable(compose(file, line, column, reason))),
      file_(std::move(file)),
      line_(line),
      column_(column),
      reason_(std::move(reason)) {}

const char* to_string(trace_kind k) {
    return k == trace_kind::packets ? "packet trace" : "event trace";
}

const char* to_string(trace_format f) {
    return f == trace_format::text ? "text" : "binary";
}

// ---------------------------------------------------------------------------
// Reader

struct trace_reader::impl {
    std::string file;
    trace_context ctx;

    // The bytes: `in` through a buffer, maybe a decompressor, then one decoder.
    std::unique_ptr<source_buf> raw, unzipped;
    source_buf* src = nullptr;
    std::unique_ptr<text_trace_decoder> text;
    std::unique_ptr<binary_trace_decoder> bin;
    trace_format format = trace_format::text;
    bool compressed = false;
    trace_kind kind = trace_kind::packets;
    time_unit unit = time_unit::ps;

    impl(std::istream& in, std::string f, const trace_context& c) : file(std::move(f)), ctx(c) {
        // The context's checks, in the order callers see them: clocks first.
        (void)clock_domain{c.uclk_hz};
        (void)clock_domain{c.qclk_hz};
        if (ctx.sockets == 0) throw std::invalid_argument("trace context: no sockets");
        if (ctx.qpi_ports > 3)
            throw std::invalid_argument("trace context: at most 3 QPI ports per socket");
        catalogs_of(ctx.cpu);
        open_input(in);
        if (bin) {
            kind = bin->kind();
            unit = bin->unit();
        } else {
            text = std::make_unique<text_trace_decoder>(*src, file, ctx);
            kind = text->kind();
            unit = text->unit();
        }
    }

    static const char* compression_name(content_kind c) { return c == content_kind::gzip ? "gzip" : "zstd"; }

    // Tells the formats apart by the first bytes (trace_input.h).
    void open_input(std::istream& in) {
        raw = std::make_unique<plain_source>(in.rdbuf());
        src = raw.get();
        content_kind c = detect_content(src->peek(detect_bytes));
        if (c == content_kind::gzip || c == content_kind::zstd) {
            if (c == content_kind::gzip) unzipped = std::make_unique<gzip_source>(*raw, file);
            else unzipped = std::make_unique<zstd_source>(*raw, file);
            src = unzipped.get();
            compressed = true;
            const content_kind outer = c;
            c = detect_content(src->peek(detect_bytes));
            if (c == content_kind::gzip || c == content_kind::zstd)
                throw trace_error(file, 0, 0, std::string("the data is ") + compression_name(outer) +
                                  "-compressed twice (" + compression_name(c) +
                                  " inside): only text and binary traces, each possibly gzip- or "
                                  "zstd-compressed once, are read");
        }
        const char* other = nullptr;
        switch (c) {
            case content_kind::text: return;
            case content_kind::binary:
                format = trace_format::binary;
                bin = std::make_unique<binary_trace_decoder>(*src, file, ctx);
                return;
            case content_kind::gzip:
            case content_kind::zstd: other = "compressed twice"; break;  // (refused above)
            case content_kind::xz: other = "xz-compressed"; break;
            case content_kind::bzip2: other = "bzip2-compressed"; break;
        }
        throw trace_error(file, 0, 0,
                          std::string("the data is ") + other +
                              ": only text and binary traces, each possibly gzip- or zstd-compressed "
                              "once, are read");
    }

    // The error that ended the last read() early, thrown by the next call.
    std::exception_ptr deferred;

    void throw_deferred() {
        if (!deferred) return;
        std::exception_ptr e = std::move(deferred);
        deferred = nullptr;
        std::rethrow_exception(e);
    }

    const record_filter* filter = nullptr;  // keep_only(); null: every record

    template <class Record>
    std::size_t read(Record* out, std::size_t n) {
        throw_deferred();
        for (;;) {
            const std::size_t k = bin ? bin->read(out, n, deferred) : text->read(out, n, deferred);
            if (k == 0) throw_deferred();
            // (A binary trace's decoder keeps only the filter's records itself.)
            if (!filter || k == 0 || bin) return k;
            std::size_t kept = 0;
            for (std::size_t i = 0; i < k; ++i) {
                if (kept != i) out[kept] = out[i];
                kept += filter->keeps(out[kept]);
            }
            if (kept) return kept;
            throw_deferred();  // (every record was another box's: read on)
        }
    }
    template <class Record>
    bool next(Record& r) {
        throw_deferred();
        do
            if (!(bin ? bin->next(r) : text->next(r))) return false;
        while (filter && !filter->keeps(r));
        return true;
    }

    [[noreturn]] void wrong_kind(trace_kind asked) const {
        throw std::logic_error(file + (asked == trace_kind::packets
                                           ? " is an event trace, not a packet trace"
                                           : " is a packet trace, not an event trace"));
    }
};

trace_reader::trace_reader(std::istream& in, std::string filename, const trace_context& ctx)
    : p_(std::make_unique<impl>(in, std::move(filename), ctx)) {}

trace_reader::~trace_reader() = default;

trace_kind trace_reader::kind() const { return p_->kind; }
trace_format trace_reader::format() const { return p_->format; }
bool trace_reader::compressed() const { return p_->compressed; }
time_unit trace_reader::unit() const { return p_->unit; }
const std::string& trace_reader::filename() const { return p_->file; }
uint64_t trace_reader::records() const {
    return p_->bin ? p_->bin->records() : p_->text->records();
}

bool trace_reader::next(packet_record& r) {
    impl& m = *p_;
    if (m.kind != trace_kind::packets) m.wrong_kind(trace_kind::packets);
    return m.next(r);
}

bool trace_reader::next(event_record& r) {
    impl& m = *p_;
    if (m.kind != trace_kind::events) m.wrong_kind(trace_kind::events);
    return m.next(r);
}

bool trace_reader::next(trace_record& r) {
    if (p_->kind == trace_kind::packets) {
        packet_record* p = std::get_if<packet_record>(&r);
        if (!p) p = &r.emplace<packet_record>();
        return next(*p);
    }
    event_record* e = std::get_if<event_record>(&r);
    if (!e) e = &r.emplace<event_record>();
    return next(*e);
}

std::size_t trace_reader::read(packet_record* out, std::size_t n) {
    if (p_->kind != trace_kind::packets) p_->wrong_kind(trace_kind::packets);
    return p_->read(out, n);
}

std::size_t trace_reader::read(event_record* out, std::size_t n) {
    if (p_->kind != trace_kind::events) p_->wrong_kind(trace_kind::events);
    return p_->read(out, n);
}

void trace_reader::keep_bursts() {
    if (p_->bin) p_->bin->keep_bursts();
}

void trace_reader::keep_only(const record_filter& f) {
    p_->filter = &f;
    if (p_->bin) p_->bin->keep_only(&f);
}

std::size_t trace_reader::skim_packets(std::size_t n, time_ps& first, time_ps& last) {
    if (p_->kind != trace_kind::packets) p_->wrong_kind(trace_kind::packets);
    if (p_->filter) throw std::logic_error("trace_reader: skim_packets() counts every record: not with keep_only()");
    if (!p_->bin) {
        std::array<packet_record, 256> rows;
        const std::size_t k = p_->read(rows.data(), std::min(n, rows.size()));
        if (k) {
            first = rows[0].time;
            last = rows[k - 1].time;
        }
        return k;
    }
    p_->throw_deferred();
    const std::size_t k = p_->bin->check_packets(n, first, last, p_->deferred);
    if (k == 0) p_->throw_deferred();
    return k;
}

// ---------------------------------------------------------------------------
// Validation

namespace {

// Records are read in batches of this many (a few KiB, reused).
constexpr std::size_t batch = 256;

void summarize_events(trace_reader& reader, trace_summary& s) {
    std::array<event_record, batch> rows;  // on the stack: validation allocates nothing per row
    while (const std::size_t n = reader.read(rows.data(), batch)) {
        if (s.records == 0) s.first = rows[0].time;
        s.records += n;
        s.last = rows[n - 1].time;
    }
}

void summarize_packets(trace_reader& reader, trace_summary& s) {
    time_ps first = 0, last = 0;
    while (const std::size_t n = reader.skim_packets(4096, first, last)) {
        if (s.records == 0) s.first = first;
        s.records += n;
        s.last = last;
    }
}

}  // namespace

trace_summary validate_trace(std::istream& in, const std::string& filename,
                             const trace_context& ctx) {
    trace_reader reader(in, filename, ctx);
    trace_summary s{reader.kind()};
    if (reader.kind() == trace_kind::packets) summarize_packets(reader, s);
    else summarize_events(reader, s);
    return s;
}


}  // namespace pmonsim::trace
