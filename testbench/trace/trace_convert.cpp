// Trace conversion and the text writer (trace_convert.h).
#include "trace/trace_convert.h"
#include "trace/trace_boxes.h"
#include "trace/trace_input.h"

#include <sys/stat.h>

#include <cctype>
#include <charconv>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <stdexcept>

#include "trace/trace_binary.h"
#include "trace/trace_detail.h"
#include "trace/zstd_sink.h"

namespace pmonsim::trace {

namespace {

constexpr std::size_t flush_at = 1 << 16;

void put_uint(std::string& s, uint64_t v) {
    char b[24];
    auto res = std::to_chars(b, b + sizeof b, v);
    s.append(b, res.ptr);
}

void put_hex(std::string& s, uint64_t v) {
    char b[24] = {'0', 'x'};
    auto res = std::to_chars(b + 2, b + sizeof b, v, 16);
    s.append(b, res.ptr);
}

// ps as ns with up to three decimals, exact: "12.5", "3", "0.001".
void put_ns(std::string& s, time_ps t) {
    put_uint(s, t / 1000);
    unsigned frac = static_cast<unsigned>(t % 1000);
    if (!frac) return;
    char d[4] = {'.', char('0' + frac / 100), char('0' + frac / 10 % 10), char('0' + frac % 10)};
    std::size_t n = 4;
    while (d[n - 1] == '0') --n;
    s.append(d, n);
}

const char* vn_text(unsigned vn) {
    static const char* const names[] = {"VN0", "VN1", "VNA"};
    return vn < 3 ? names[vn] : nullptr;
}

const char* rds_text(unsigned rds) {
    switch (rds) {
        case 0: return "I";
        case 1: return "F";
        case 2: return "S";
        case 4: return "E";
        case 8: return "M";
        default: return nullptr;
    }
}

void put_named(std::string& s, const char* name, unsigned v) {
    if (name) s += name;
    else put_uint(s, v);
}

bool same_file(const std::string& a, const std::string& b) {
    struct stat sa, sb;
    return ::stat(a.c_str(), &sa) == 0 && ::stat(b.c_str(), &sb) == 0 &&
           sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

// The format an output's name asks for (convert_trace).
enum class out_format { other_than_input, text, binary };

// Whether an output's name ends in .zst (compressed with zstd), and the name
// without it.
bool zstd_name(const std::string& out, std::string& inner) {
    inner = out;
    if (out.size() < 5 || out.find('/', out.size() - 4) != std::string::npos) return false;
    std::string ext = out.substr(out.size() - 4);
    for (char& c : ext) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (ext != ".zst") return false;
    inner = out.substr(0, out.size() - 4);
    return true;
}

out_format out_format_of(const std::string& out, const std::string& out_name) {
    const auto dot = out.rfind('.');
    if (out == "-" || dot == std::string::npos || out.find('/', dot) != std::string::npos)
        return out_format::other_than_input;
    std::string ext = out.substr(dot + 1);
    for (char& c : ext) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (ext == "csv" || ext == "txt") return out_format::text;
    if (ext == "bin") return out_format::binary;
    if (ext == "gz")
        throw trace_error(out_name, 0, 0,
                          "convert does not write gzip: name the output .zst to compress it with zstd, or "
                          "compress it with gzip afterwards (pmonsim reads .gz traces as they are)");
    return out_format::other_than_input;
}

bool is_regular_file(const std::string& path) {
    struct stat st;
    return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

}  // namespace

// ---------------------------------------------------------------------------
// Text writer

text_trace_writer::text_trace_writer(std::ostream& out, trace_kind kind, time_unit unit,
                                     const trace_context& ctx)
    : out_(out), kind_(kind), unit_(unit), cpu_(ctx.cpu) {
    buf_.reserve(flush_at + 512);
    buf_ = unit == time_unit::ps ? "time" : "cycle";
    const char* packets = ",socket,port,dir,mc,opc,vn,rnid,dnid,rds,flits,ring\n";
    switch (describe(cpu_).packets) {
        case packet_route::qpi_link: break;
        case packet_route::home_logic: packets = ",socket,src,mc,opc,addr\n"; break;
    }
    buf_ += kind == trace_kind::packets ? packets : ",socket,box,event,umask,count,repeat";
    // Where boxes filter requests, the qualified rows' attributes (B14).
    quals_ = kind == trace_kind::events && (describe(cpu_).box(box_kind::ha) || describe(cpu_).box(box_kind::cbo));
    if (quals_) buf_ += ",state,nid,opc,addr,tid";
    if (kind == trace_kind::events) buf_ += '\n';
}

text_trace_writer::~text_trace_writer() {
    try {
        flush();
    } catch (...) {
    }
}

void text_trace_writer::write(const packet_record& r) {
    if (kind_ != trace_kind::packets)
        throw std::logic_error("text_trace_writer: a packet record in an event trace");
    switch (describe(cpu_).packets) {
        case packet_route::qpi_link:
            if (r.run.repeat != 1)  // (a kept burst: a row is one packet)
                throw std::invalid_argument("text_trace_writer: a record of " + std::to_string(r.run.repeat) +
                                            " packets; write them one by one");
            break;
        case packet_route::home_logic: break;
    }
    std::string& s = buf_;
    if (unit_ == time_unit::ps) put_ns(s, r.time);
    else put_uint(s, r.cycle);
    s += ',';
    put_uint(s, r.socket);
    s += ',';
    const qpi_packet& p = r.packet;
    switch (describe(cpu_).packets) {
        case packet_route::qpi_link: break;
        case packet_route::home_logic: {
            static constexpr const char* src_text[home_src_count] = {"ioh", "remote", "local"};
            s += r.port < home_src_count ? src_text[r.port] : "?";
            s += ',';
            put_named(s, detail::mc_text(p.mc), p.mc);
            s += ',';
            put_uint(s, p.opc);
            s += ',';
            if (r.addr != no_addr) {
                char a[24];
                std::snprintf(a, sizeof a, "0x%llx", static_cast<unsigned long long>(r.addr));
                s += a;
            }
            s += '\n';
            ++records_;
            if (s.size() >= flush_at) flush();
            return;
        }
    }
    put_uint(s, r.port);
    s += r.dir == qpi_dir::tx ? ",tx," : ",rx,";
    put_named(s, detail::mc_text(p.mc), p.mc);
    s += ',';
    put_uint(s, p.opc);
    s += ',';
    put_named(s, vn_text(p.vn), p.vn);
    s += ',';
    put_uint(s, p.rnid);
    s += ',';
    put_uint(s, p.dnid);
    s += ',';
    put_named(s, rds_text(p.rds), p.rds);
    s += ',';
    put_uint(s, p.flits ? p.flits : shape_of(p).flits);
    s += ',';
    if (p.ring_ad) s += "AD";
    else if (p.mc == qpi_mc::ndr) s += "AK";
    s += '\n';
    ++records_;
    if (s.size() >= flush_at) flush();
}

void text_trace_writer::write(const event_record& r) {
    if (kind_ != trace_kind::events)
        throw std::logic_error("text_trace_writer: an event record in a packet trace");
    const int code = trace_box_code(r.kind, r.unit);
    if (code < 0) throw std::invalid_argument("text_trace_writer: a box without events");
    const event_catalog& cat = catalog_for(r.kind, cpu_);
    if (r.event >= cat.events().size() || r.input >= cat.input_count() ||
        cat.input(r.input).event != r.event)
        throw std::invalid_argument("text_trace_writer: event " + std::to_string(r.event) +
                                    " / input " + std::to_string(r.input) + " is not in the " +
                                    to_string(r.kind) + " catalog (" + to_string(cpu_) + ")");
    const event_def& def = cat.events()[r.event];
    const int bit = cat.input(r.input).bit;
    std::string& s = buf_;
    if (unit_ == time_unit::ps) put_ns(s, r.time);
    else put_uint(s, r.cycle);
    s += ',';
    put_uint(s, r.socket);
    s += ',';
    s += trace_boxes[code].name;
    s += ',';
    s += def.name;
    s += ',';
    if (bit >= 0) s += def.sub_name(bit);  // (a name, or bitN for an unnamed bit)
    s += ',';
    put_uint(s, r.count);
    s += ',';
    put_uint(s, r.repeat);
    if (quals_) {
        const request_quals& q = r.quals;
        s += ',';
        if (q.given & request_field::state) s += llc_state_letter(static_cast<llc_state>(q.state));
        s += ',';
        if (q.given & request_field::nid) put_uint(s, q.nid);
        s += ',';
        if (q.given & request_field::opc) put_hex(s, q.opc);
        s += ',';
        if (q.given & request_field::addr) put_hex(s, q.addr);
        s += ',';
        if (q.given & request_field::tid) put_uint(s, q.tid);
    } else if (r.quals.given) {
        throw std::invalid_argument("text_trace_writer: request attributes on a CPU without request filters");
    }
    s += '\n';
    ++records_;
    if (s.size() >= flush_at) flush();
}

void text_trace_writer::write(const trace_record& r) {
    std::visit([this](const auto& x) { write(x); }, r);
}

void text_trace_writer::flush() {
    if (!buf_.empty()) {
        out_.write(buf_.data(), static_cast<std::streamsize>(buf_.size()));
        buf_.clear();
    }
    out_.flush();
    if (!out_) throw std::runtime_error("text_trace_writer: the output stream failed");
}

// ---------------------------------------------------------------------------
// Conversion

namespace {

template <class Writer>
void copy_records(trace_reader& reader, Writer& w) {
    if (reader.kind() == trace_kind::packets) {
        packet_record r;
        while (reader.next(r)) w.write(r);
    } else {
        event_record r;
        while (reader.next(r)) {
            if (!r.quals.given) {
                w.write(r);
                continue;
            }
            try {  // (a row the output's format cannot hold: named by its place)
                w.write(r);
            } catch (const std::invalid_argument& e) {
                throw trace_error(reader.filename(), r.line, 0, e.what());
            }
        }
    }
    w.flush();
}

}  // namespace

void convert_trace(const std::string& in, const std::string& out, const trace_context& ctx,
                   packet_layout layout) {
    const bool in_std = in == "-", out_std = out == "-";
    const std::string in_name = in_std ? "<stdin>" : in;
    const std::string out_name = out_std ? "<stdout>" : out;
    std::string inner;
    const bool zstd = !out_std && zstd_name(out, inner);
    const out_format wanted = out_format_of(inner, out_name);

    std::ifstream in_file;
    if (!in_std) {
        if (const std::string why = unreadable_reason(in); !why.empty())
            throw trace_error(in_name, 0, 0, "cannot open the file: " + why);
        in_file.open(in, std::ios::binary);
        if (!in_file) throw trace_error(in_name, 0, 0, "cannot open the file");
        if (!out_std && same_file(in, out))
            throw trace_error(out_name, 0, 0, "is the input file: give another output");
    }
    // The header is checked before the output exists.
    trace_reader reader(in_std ? std::cin : in_file, in_name, ctx);

    std::ofstream out_file;
    if (!out_std) {
        out_file.open(out, std::ios::binary | std::ios::trunc);
        if (!out_file) throw trace_error(out_name, 0, 0, "cannot create the file");
    }
    std::ostream& file_os = out_std ? std::cout : out_file;
    std::unique_ptr<zstd_sink> sink;
    std::unique_ptr<std::ostream> zstd_os;
    if (zstd) {
        try {
            sink = std::make_unique<zstd_sink>(file_os);
        } catch (const std::runtime_error& e) {
            out_file.close();
            std::remove(out.c_str());
            throw trace_error(out_name, 0, 0, e.what());
        }
        zstd_os = std::make_unique<std::ostream>(sink.get());
    }
    std::ostream& os = zstd ? *zstd_os : file_os;
    auto discard = [&] {
        if (out_std) return;
        out_file.close();
        if (is_regular_file(out)) std::remove(out.c_str());
    };
    try {
        try {
            const bool to_text = wanted == out_format::text ||
                                 (wanted == out_format::other_than_input && reader.format() == trace_format::binary);
            if (to_text) {
                text_trace_writer w(os, reader.kind(), reader.unit(), ctx);
                copy_records(reader, w);
            } else {
                binary_trace_writer w(os, reader.kind(), reader.unit(), ctx, layout);
                copy_records(reader, w);
            }
            if (sink) sink->finish();
            if (!out_std) {
                out_file.close();
                if (out_file.fail()) throw std::runtime_error("close");
            }
        } catch (const trace_error&) {
            throw;
        } catch (const std::runtime_error&) {  // the writers' stream failures
            throw trace_error(out_name, 0, 0, "cannot write the file");
        }
    } catch (...) {
        discard();
        throw;
    }
}

}  // namespace pmonsim::trace
