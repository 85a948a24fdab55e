// The binary trace format: writer and decoder (trace_binary.h,
// docs/trace-binary-format.md).
#include "trace/trace_binary.h"

#include "desc/box_spec.h"
#include "trace/trace_binary_compact.h"
#include "trace/trace_boxes.h"

#include <array>
#include <atomic>
#include <cstdio>
#include <cstring>
#include <limits>
#include <stdexcept>

#include "trace/trace_clock.h"
#include "trace/trace_detail.h"
#include "trace/trace_input.h"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace pmonsim::trace {

namespace bf = binary_format;

namespace {

// Little-endian loads and stores, whatever the host.
inline uint16_t ld16(const unsigned char* p) { return static_cast<uint16_t>(p[0] | (p[1] << 8)); }
template <class T>
inline T ld(const unsigned char* p) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    T v;
    std::memcpy(&v, p, sizeof v);
    return v;
#else
    T v = 0;
    for (int i = int(sizeof v) - 1; i >= 0; --i) v = static_cast<T>((v << 8) | p[i]);
    return v;
#endif
}
inline uint64_t ld64(const unsigned char* p) { return ld<uint64_t>(p); }
inline uint32_t ld32(const unsigned char* p) { return ld<uint32_t>(p); }
inline void st16(unsigned char* p, uint16_t v) {
    p[0] = static_cast<unsigned char>(v);
    p[1] = static_cast<unsigned char>(v >> 8);
}
inline void st64(unsigned char* p, uint64_t v) {
    for (int i = 0; i < 8; ++i) p[i] = static_cast<unsigned char>(v >> (8 * i));
}

// Record layouts (byte offsets).
namespace pk {
constexpr std::size_t time = 0, flits = 8, socket = 10, port = 11, dir = 12, mc = 13, opc = 14,
                      vn = 15, rnid = 16, dnid = 17, rds = 18, ring = 19, reserved = 20;
}
namespace rq {  // kind 3: a request reaching the home logic
constexpr std::size_t time = 0, addr = 8, socket = 16, src = 17, mc = 18, opc = 19, reserved = 20;
}
namespace ev {
constexpr std::size_t time = 0, repeat = 8, count = 16, socket = 18, box = 19, code = 20,
                      ext = 21, sub = 22, reserved = 23;
constexpr std::size_t quals_follow = 23;  // version 4: 1 = a qualifier record follows
}
namespace qr {  // version 4: a qualified event row's request attributes
constexpr std::size_t given = 0, state = 1, tid = 2, nid = 3, opc = 4, reserved_a = 6, addr = 8, reserved_b = 16;
}

constexpr std::size_t block_bytes = binary_trace_decoder::block_records * bf::record_size;

namespace cw = compact;

// Version 3's usual records eight at a time (AVX2, where the CPU has it;
// binary_trace_decoder::walk_eight_at_a_time): what the one-at-a-time walk
// (impl::walk_usual) does for groups of eight usual records, with no branch
// on a record. A parallel replay's threads each walk every record of a
// trace, most of them another thread's (decision M32). (Atomic: the
// replay's threads read it; tests set it between runs.)
std::atomic<bool> g_walk_eight{[] {
#if defined(__x86_64__)
    __builtin_cpu_init();  // (this may run before the library's own constructor does it)
    return __builtin_cpu_supports("avx2") != 0;
#else
    return false;
#endif
}()};

#if defined(__x86_64__)
// Per 8-bit mask: the places of its set bits, in order, a byte each.
constexpr std::array<uint64_t, 256> kept_places = [] {
    std::array<uint64_t, 256> t{};
    for (unsigned mask = 0; mask < 256; ++mask) {
        unsigned k = 0;
        for (unsigned b = 0; b < 8; ++b)
            if (mask >> b & 1u) t[mask] |= uint64_t{b} << (8 * k++);
    }
    return t;
}();

static_assert(cw::w_mc.lo == 0 && cw::w_mc.width == 4 && cw::w_ring.lo == 24 && cw::w_ring.width == 1 &&
                  cw::w_port.lo == 26 && cw::w_port.width == 2,
              "walk_eight: the word's fields where it reads them");

// Up to `groups` groups of eight records from p, after time field t, while
// every record of a group is usual (no flags, a one-byte delta below 0x80,
// a port below `ports`, the AD ring only on NDR; the time's checks are the
// caller's); the kept ones (their port's bit in keep_bits) into at (first +
// their place) and times, from at[m] and times[m]; eight entries are
// written each time, so both have room for eight past the last. A group
// is read from its first byte to its 51st (the caller leaves the longest
// record's bytes after its last record start). Returns the records walked,
// a multiple of eight.
__attribute__((target("avx2"))) std::size_t walk_eight(const unsigned char* p, std::size_t groups, uint64_t& t,
                                                       unsigned keep_bits, unsigned ports, uint32_t first,
                                                       uint32_t* at, uint64_t* times, std::size_t& m) {
    // (-1: a zero byte.)
    const __m256i words_a = _mm256_setr_epi8(0, 1, 2, 3, 5, 6, 7, 8, 10, 11, 12, 13, -1, -1, -1, -1,  //
                                             0, 1, 2, 3, 5, 6, 7, 8, 10, 11, 12, 13, -1, -1, -1, -1);
    const __m256i words_b = _mm256_setr_epi8(-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, 0, 1, 2, 3,  //
                                             -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, 0, 1, 2, 3);
    const __m256i deltas_a = _mm256_setr_epi8(4, -1, -1, -1, 9, -1, -1, -1, 14, -1, -1, -1, -1, -1, -1, -1,  //
                                              4, -1, -1, -1, 9, -1, -1, -1, 14, -1, -1, -1, -1, -1, -1, -1);
    const __m256i deltas_b = _mm256_setr_epi8(-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, 4, -1, -1, -1,  //
                                              -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, 4, -1, -1, -1);
    const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    const __m256i one = _mm256_set1_epi32(1), three = _mm256_set1_epi32(3);
    const __m256i mc_mask = _mm256_set1_epi32(15), ndr = _mm256_set1_epi32(qpi_mc::ndr);
    const __m256i flags = _mm256_set1_epi32(static_cast<int>(cw::flag_bits)), long_delta = _mm256_set1_epi32(0x80);
    const __m256i last_port = _mm256_set1_epi32(static_cast<int>(ports) - 1);
    const __m256i keep = _mm256_set1_epi32(static_cast<int>(keep_bits));
    const __m256i low_half_top = _mm256_setr_epi32(0, 0, 0, 0, 3, 3, 3, 3);
    std::size_t g = 0;
    for (; g < groups; ++g, p += 40) {
        // Records 0-2 and 4-6 from bytes 0-15 and 20-35, 3 and 7 from bytes
        // 15-30 and 35-50, their words and deltas moved into place in each
        // 128-bit half (no gathers: they cost more than the rest).
        const __m256i a = _mm256_loadu2_m128i(reinterpret_cast<const __m128i*>(p + 20), reinterpret_cast<const __m128i*>(p));
        const __m256i b = _mm256_loadu2_m128i(reinterpret_cast<const __m128i*>(p + 35), reinterpret_cast<const __m128i*>(p + 15));
        const __m256i w = _mm256_or_si256(_mm256_shuffle_epi8(a, words_a), _mm256_shuffle_epi8(b, words_b));
        const __m256i d = _mm256_or_si256(_mm256_shuffle_epi8(a, deltas_a), _mm256_shuffle_epi8(b, deltas_b));
        const __m256i port = _mm256_and_si256(_mm256_srli_epi32(w, 26), three);
        const __m256i ring = _mm256_and_si256(_mm256_srli_epi32(w, 24), one);
        const __m256i not_ndr = _mm256_xor_si256(_mm256_cmpeq_epi32(_mm256_and_si256(w, mc_mask), ndr),
                                                 _mm256_set1_epi32(-1));
        __m256i bad = _mm256_or_si256(_mm256_and_si256(w, flags), _mm256_and_si256(d, long_delta));
        bad = _mm256_or_si256(bad, _mm256_cmpgt_epi32(port, last_port));
        bad = _mm256_or_si256(bad, _mm256_and_si256(_mm256_cmpeq_epi32(ring, one), not_ndr));
        if (!_mm256_testz_si256(bad, bad)) break;
        // Each record's time: t plus the deltas up to it (a prefix sum).
        __m256i x = _mm256_add_epi32(d, _mm256_slli_si256(d, 4));
        x = _mm256_add_epi32(x, _mm256_slli_si256(x, 8));
        x = _mm256_add_epi32(x, _mm256_blend_epi32(_mm256_setzero_si256(), _mm256_permutevar8x32_epi32(x, low_half_top), 0xF0));
        // The kept ones first, in order.
        const __m256i kept = _mm256_cmpeq_epi32(_mm256_and_si256(_mm256_srlv_epi32(keep, port), one), one);
        const unsigned mask = static_cast<unsigned>(_mm256_movemask_ps(_mm256_castsi256_ps(kept)));
        const __m256i order = _mm256_cvtepu8_epi32(_mm_cvtsi64_si128(static_cast<long long>(kept_places[mask])));
        const __m256i place = _mm256_add_epi32(lane, _mm256_set1_epi32(static_cast<int>(first + 8 * g)));
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(at + m), _mm256_permutevar8x32_epi32(place, order));
        const __m256i sums = _mm256_permutevar8x32_epi32(x, order);
        const __m256i base = _mm256_set1_epi64x(static_cast<long long>(t));
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(times + m),
                            _mm256_add_epi64(base, _mm256_cvtepu32_epi64(_mm256_castsi256_si128(sums))));
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(times + m + 4),
                            _mm256_add_epi64(base, _mm256_cvtepu32_epi64(_mm256_extracti128_si256(sums, 1))));
        m += static_cast<std::size_t>(__builtin_popcount(mask));
        t += static_cast<uint32_t>(_mm256_extract_epi32(x, 7));
    }
    return 8 * g;
}
#endif

// A class's size in flits (a record that does not give one).
inline uint16_t class_flits(unsigned mc, unsigned opc) {
    qpi_packet q;
    q.mc = static_cast<uint8_t>(mc);
    q.opc = static_cast<uint8_t>(opc);
    return static_cast<uint16_t>(shape_of(q).flits);
}

// A packet record as the binary records hold it (flits resolved: 0 is the
// class's size), and back. Fields wider than the word's are cut: the
// compact writer refuses them first.
cw::packet_key key_of(const packet_record& r) {
    const qpi_packet& q = r.packet;
    cw::packet_key k;
    k.word = cw::w_mc.put(q.mc) | cw::w_opc.put(q.opc) | cw::w_vn.put(q.vn) | cw::w_rnid.put(q.rnid) |
             cw::w_dnid.put(q.dnid) | cw::w_rds.put(q.rds) | cw::w_ring.put(q.ring_ad) |
             cw::w_dir.put(r.dir == qpi_dir::tx) | cw::w_port.put(r.port);
    k.socket = r.socket;
    k.flits = q.flits ? q.flits : class_flits(q.mc, q.opc);
    return k;
}
inline void put_record(const cw::packet_key& k, packet_record& r) {
    const uint32_t w = k.word;
    r.run = burst_run{};
    r.socket = k.socket;
    r.port = cw::w_port.get(w);
    r.dir = cw::w_dir.get(w) ? qpi_dir::tx : qpi_dir::rx;
    qpi_packet& p = r.packet;
    p.mc = cw::w_mc.get(w);
    p.opc = cw::w_opc.get(w);
    p.vn = cw::w_vn.get(w);
    p.rnid = cw::w_rnid.get(w);
    p.dnid = cw::w_dnid.get(w);
    p.rds = cw::w_rds.get(w);
    p.ring_ad = cw::w_ring.get(w) == 1;
    p.flits = k.flits;
}
// The fields of a version 1 packet record (bytes 8-19; the time is the
// caller's), from a packet record as it is (no field cut).
void put_fixed(unsigned char* p, const packet_record& r) {
    const qpi_packet& q = r.packet;
    st16(p + pk::flits, q.flits ? q.flits : class_flits(q.mc, q.opc));
    p[pk::socket] = r.socket;
    p[pk::port] = r.port;
    p[pk::dir] = r.dir == qpi_dir::tx ? 1 : 0;
    p[pk::mc] = q.mc;
    p[pk::opc] = q.opc;
    p[pk::vn] = q.vn;
    p[pk::rnid] = q.rnid;
    p[pk::dnid] = q.dnid;
    p[pk::rds] = q.rds;
    p[pk::ring] = q.ring_ad ? 1 : 0;
}

}  // namespace

// ---------------------------------------------------------------------------
// Writer

struct binary_trace_writer::compact_state {
    compact::burst_finder finder;
    std::string bytes;  // encoded records not yet handed to the stream
    uint64_t prev_time = 0;
    uint8_t prev_socket = 0;
    bool any = false;
    uint64_t last_time = 0;
};

binary_trace_writer::binary_trace_writer(std::ostream& out, trace_kind kind, time_unit unit,
                                         const trace_context& ctx, packet_layout layout)
    : out_(out),
      kind_(kind),
      unit_(unit),
      cpu_(ctx.cpu),
      buf_(std::make_unique<unsigned char[]>(block_bytes)) {
    unsigned char* h = buf_.get();
    std::memset(h, 0, bf::header_size);
    std::memcpy(h, bf::magic, bf::magic_size);
    h[7] = bf::version;
    h[8] = kind == trace_kind::packets ? bf::kind_packets : bf::kind_events;
    st16(h + 12, bf::record_size);
    // (Request attributes where boxes filter requests, unless fixed records are asked for.)
    quals_ = kind == trace_kind::events && layout == packet_layout::compact &&
             (describe(cpu_).box(box_kind::ha) || describe(cpu_).box(box_kind::cbo));
    if (quals_) h[7] = bf::version_quals;
    if (kind == trace_kind::packets) switch (describe(cpu_).packets) {
            case packet_route::qpi_link:
                switch (layout) {
                    case packet_layout::fixed: break;
                    case packet_layout::compact:
                        h[7] = bf::version_compact;
                        st16(h + 12, bf::record_size_compact);
                        compact_ = std::make_unique<compact_state>();
                        break;
                }
                break;
            case packet_route::home_logic:
                h[7] = bf::version_requests;
                h[8] = bf::kind_requests;
                break;
        }
    h[9] = unit == time_unit::ps ? bf::unit_ps : bf::unit_cycles;
    st16(h + 10, bf::header_size);
    used_ = bf::header_size;
}

binary_trace_writer::~binary_trace_writer() {
    try {
        flush();
    } catch (...) {
    }
}

unsigned char* binary_trace_writer::slot() {
    if (used_ + bf::record_size > block_bytes) flush();
    unsigned char* p = buf_.get() + used_;
    std::memset(p, 0, bf::record_size);
    return p;
}

void binary_trace_writer::write_compact(const packet_record& r) {
    compact_state& c = *compact_;
    const qpi_packet& q = r.packet;
    const auto fits = [](const char* name, unsigned v, unsigned max) {
        if (v > max)
            throw std::invalid_argument(std::string("binary_trace_writer: ") + name + " " + std::to_string(v) +
                                        " does not fit a compact packet record (at most " + std::to_string(max) + ")");
    };
    fits("port", r.port, 3);
    fits("mc", q.mc, 15);
    fits("opc", q.opc, 15);
    fits("vn", q.vn, 3);
    fits("rnid", q.rnid, 31);
    fits("dnid", q.dnid, 31);
    fits("rds", q.rds, 15);
    compact::record rec;
    rec.time = unit_ == time_unit::ps ? r.time : r.cycle;
    if (c.any && rec.time < c.last_time)
        throw std::invalid_argument("binary_trace_writer: a packet before the previous one (compact records are in time order)");
    c.any = true;
    c.last_time = rec.time;
    rec.key = key_of(r);
    rec.default_flits = rec.key.flits == class_flits(q.mc, q.opc);
    c.finder.add(rec);
    ++records_;
    drain_compact();
}

// Encodes the records the finder let go, and hands them to the stream in
// blocks of about 64 KiB.
void binary_trace_writer::drain_compact() {
    compact_state& c = *compact_;
    for (const compact::record& rec : c.finder.ready()) {
        compact::encode(rec, c.prev_time, c.prev_socket, c.bytes);
        c.prev_time = rec.time;
        c.prev_socket = rec.key.socket;
        ++file_records_;
    }
    c.finder.ready().clear();
    if (c.bytes.size() < block_bytes) return;
    if (used_) {  // the header
        out_.write(reinterpret_cast<const char*>(buf_.get()), static_cast<std::streamsize>(used_));
        used_ = 0;
    }
    out_.write(c.bytes.data(), static_cast<std::streamsize>(c.bytes.size()));
    c.bytes.clear();
}

void binary_trace_writer::write(const packet_record& r) {
    if (kind_ != trace_kind::packets)
        throw std::logic_error("binary_trace_writer: a packet record in an event trace");
    switch (describe(cpu_).packets) {
        case packet_route::qpi_link:
            if (r.run.repeat != 1)  // (a kept burst: its packets are the writer's to find)
                throw std::invalid_argument("binary_trace_writer: a record of " + std::to_string(r.run.repeat) +
                                            " packets; write them one by one");
            break;
        case packet_route::home_logic: break;
    }
    if (compact_) return write_compact(r);
    unsigned char* p = slot();
    const qpi_packet& q = r.packet;
    switch (describe(cpu_).packets) {
        case packet_route::qpi_link: break;
        case packet_route::home_logic:
            st64(p + rq::time, unit_ == time_unit::ps ? r.time : r.cycle);
            st64(p + rq::addr, r.addr);
            p[rq::socket] = static_cast<unsigned char>(r.socket);
            p[rq::src] = r.port;
            p[rq::mc] = q.mc;
            p[rq::opc] = q.opc;
            used_ += bf::record_size;
            ++records_;
            ++file_records_;
            return;
    }
    st64(p + pk::time, unit_ == time_unit::ps ? r.time : r.cycle);
    put_fixed(p, r);
    used_ += bf::record_size;
    ++records_;
    ++file_records_;
}

void binary_trace_writer::write(const event_record& r) {
    if (kind_ != trace_kind::events)
        throw std::logic_error("binary_trace_writer: an event record in a packet trace");
    const int code = trace_box_code(r.kind, r.unit);
    if (code < 0) throw std::invalid_argument("binary_trace_writer: a box without events");
    const uint8_t box = static_cast<uint8_t>(code);
    const event_catalog& cat = catalog_for(r.kind, cpu_);
    if (r.event >= cat.events().size() || r.input >= cat.input_count() ||
        cat.input(r.input).event != r.event)
        throw std::invalid_argument("binary_trace_writer: event " + std::to_string(r.event) +
                                    " / input " + std::to_string(r.input) + " is not in the " +
                                    to_string(r.kind) + " catalog (" + to_string(cpu_) + ")");
    if (r.count > 0xFFFF) throw std::invalid_argument("binary_trace_writer: count above 65535");
    const event_def& def = cat.events()[r.event];
    const int bit = cat.input(r.input).bit;
    unsigned char* p = slot();
    st64(p + ev::time, unit_ == time_unit::ps ? r.time : r.cycle);
    st64(p + ev::repeat, r.repeat);
    st16(p + ev::count, static_cast<uint16_t>(r.count));
    if (r.socket > 255) throw std::invalid_argument("binary_trace_writer: socket above 255");
    p[ev::socket] = static_cast<unsigned char>(r.socket);
    p[ev::box] = box;
    p[ev::code] = def.code;
    p[ev::ext] = def.ext ? 1 : 0;
    p[ev::sub] = bit < 0 ? bf::no_sub_event : static_cast<unsigned char>(bit);
    if (r.quals.given) {
        if (!quals_)
            throw std::invalid_argument("the row's request attributes (state, nid, opc, addr, tid) need version 4 "
                                        "event records, the default: --binary-version 1 cannot hold them");
        p[ev::quals_follow] = 1;
        used_ += bf::record_size;
        ++file_records_;
        const request_quals& q = r.quals;
        unsigned char* x = slot();
        x[qr::given] = q.given;
        x[qr::state] = q.state;
        x[qr::tid] = q.tid;
        x[qr::nid] = q.nid;
        st16(x + qr::opc, q.opc);
        st64(x + qr::addr, q.addr);
    }
    used_ += bf::record_size;
    ++records_;
    ++file_records_;
}

void binary_trace_writer::write(const trace_record& r) {
    std::visit([this](const auto& x) { write(x); }, r);
}

void binary_trace_writer::flush() {
    if (compact_) {
        compact_->finder.finish();
        drain_compact();
    }
    if (used_) {
        out_.write(reinterpret_cast<const char*>(buf_.get()),
                   static_cast<std::streamsize>(used_));
        used_ = 0;
    }
    if (compact_ && !compact_->bytes.empty()) {
        out_.write(compact_->bytes.data(), static_cast<std::streamsize>(compact_->bytes.size()));
        compact_->bytes.clear();
    }
    out_.flush();
    if (!out_) throw std::runtime_error("binary_trace_writer: the output stream failed");
}

// ---------------------------------------------------------------------------
// Decoder

// Cache-line aligned: written for every record, often on a reading thread
// (batch_pipe.h), so it must not share a line with the simulation's data.
struct alignas(64) binary_trace_decoder::impl {
    // What a (code, ext) of one box kind selects, looked up once per catalog.
    struct event_info {
        const event_def* def = nullptr;
        unsigned index = 0;
        std::array<int16_t, 32> input{};  // per umask bit (enumerated: encoding): the input, or -1
        unsigned subs = 8;                // how many sub values there can be
        int16_t plain_input = -1;        // an event without sub-events: its input
        bool clockticks = false;
        bool mirror = false;  // the CBo's COUNTER0_OCCUPANCY: counter 0's increment
    };
    struct box_table {
        const event_catalog* cat;
        std::array<std::array<int16_t, 256>, 2> by_code;  // [ext][code]: index, or -1
        std::vector<event_info> events;
    };

    source_buf& src;
    std::string file;
    trace_context ctx;
    trace_clock uclk, qclk;
    trace_kind kind = trace_kind::packets;
    bool requests = false;  // kind 3: packet records are requests at the home logic
    bool compact = false;   // version 3: compact packet records (trace_binary_compact.h)
    bool quals = false;     // version 4: event records may be followed by request attributes
    time_unit unit = time_unit::ps;
    std::array<box_table, box_kind_count> tables{};  // by box kind (cat null: none)
    std::array<bool, trace_box_count> box_on{};      // by box byte
    row_clocks clocks;                               // by box byte: the clock rows count
    box_name names[trace_box_count];                 // of the box byte's values

    std::unique_ptr<unsigned char[]> block = std::make_unique<unsigned char[]>(block_bytes);
    const unsigned char* pos = nullptr;
    const unsigned char* end = nullptr;
    std::size_t tail = 0;  // bytes of an incomplete last record
    bool at_end = false;
    uint64_t current = 0;  // number of the record being read (1-based)
    uint64_t records = 0;  // records returned
    uint64_t qualifier_records = 0;  // version 4: qualifier records read so far
    bool have_prev = false;
    time_ps prev_time = 0;
    uint64_t prev_record = 0;

    impl(source_buf& s, std::string f, const trace_context& c)
        : src(s), file(std::move(f)), ctx(c), uclk(c.uclk_hz), qclk(c.qclk_hz), clocks(c) {
        const auto cats = catalogs_of(ctx.cpu);
        for (unsigned k = 0; k < box_kind_count; ++k)
            if (cats[k]) build(tables[k], *cats[k]);
        box_on = boxes_on(ctx);
        for (unsigned b = 0; b < trace_box_count; ++b) names[b] = trace_boxes[b].name;
        set_limits();
        read_header();
        // (Cycles: the last one whose start is within the range; every cycle
        // up to max_cycle() when the range is all of 64 bits.)
        last_usual_time = unit == time_unit::ps        ? ctx.max_time
                          : ctx.max_time == ~time_ps{0} ? qclk.max_cycle()
                                                        : std::min(qclk.max_cycle(), qclk.cycles_before(ctx.max_time + 1) - 1);
        for (unsigned k = 0; k < usual_class.size(); ++k) {
            const uint32_t w = (uint32_t{k} >> 4) << cw::w_ring.lo | (k & 15u);
            usual_class[k] = ((w & cw::flag_bits) | (cw::w_port.get(w) >= ctx.qpi_ports) |
                              (cw::w_ring.get(w) & (cw::w_mc.get(w) != qpi_mc::ndr))) != 0;
        }
    }

    static void build(box_table& t, const event_catalog& cat) {
        t.cat = &cat;
        for (auto& row : t.by_code) row.fill(-1);
        const auto& evs = cat.events();
        t.events.resize(evs.size());
        for (unsigned i = static_cast<unsigned>(evs.size()); i-- > 0;) {  // first match wins
            t.by_code[evs[i].ext ? 1 : 0][evs[i].code] = static_cast<int16_t>(i);
            event_info& e = t.events[i];
            e.def = &evs[i];
            e.index = i;
            e.clockticks = evs[i].name == describe(cat.cpu()).need(cat.kind()).clock_event;
            e.mirror = describe(cat.cpu()).need(cat.kind()).mirror_code == evs[i].code;
            e.input.fill(-1);
            if (evs[i].enumerated) e.subs = static_cast<unsigned>(evs[i].encodings().size());
            for (int b = 0; b < static_cast<int>(e.subs); ++b)
                if (auto in = cat.input_of(i, b)) e.input[static_cast<size_t>(b)] = static_cast<int16_t>(*in);
            if (auto in = cat.input_of(i, -1)) e.plain_input = static_cast<int16_t>(*in);
        }
    }

    // --- Errors

    [[noreturn]] void fail_header(const std::string& reason) const {
        throw trace_error(file, 0, 0, "binary header: " + reason);
    }
    [[noreturn]] __attribute__((noinline, cold)) void fail(const std::string& reason) const {
        throw trace_error(file, 0, 0, "record " + std::to_string(current) + ": " + reason);
    }
    // "column 'NAME': 'VALUE' what", as the text reader words it.
    [[noreturn]] __attribute__((noinline, cold)) void bad(const char* column,
                                                          const std::string& value,
                                                          const std::string& what) const {
        fail(std::string("column '") + column + "': '" + value + "' " + what);
    }
    static std::string num(uint64_t v) { return std::to_string(v); }
    static std::string ns_value(time_ps t) {  // "12.5": the time column's value
        std::string s = detail::fmt_ns(t);
        return s.substr(0, s.size() - 3);
    }

    // --- Header

    void read_header() {
        unsigned char h[bf::header_size];
        const std::streamsize n =
            src.sgetn(reinterpret_cast<char*>(h), static_cast<std::streamsize>(sizeof h));
        if (n < static_cast<std::streamsize>(sizeof h))
            fail_header("the file ends after " + num(static_cast<uint64_t>(n)) +
                        " bytes (the header has " + num(bf::header_size) + ")");
        if (std::memcmp(h, bf::magic, bf::magic_size) != 0) {
            std::string got;
            for (std::size_t i = 0; i < bf::magic_size; ++i)
                got += (h[i] >= 0x20 && h[i] < 0x7f) ? static_cast<char>(h[i]) : '.';
            fail_header("the magic is '" + got + "', not '" + bf::magic + "'");
        }
        if (h[7] != bf::version && h[7] != bf::version_requests && h[7] != bf::version_compact &&
            h[7] != bf::version_quals)
            fail_header("version " + num(h[7]) + " is not supported (this reader reads versions " +
                        num(bf::version) + ", " + num(bf::version_requests) + ", " + num(bf::version_compact) +
                        " and " + num(bf::version_quals) + ")");
        compact = h[7] == bf::version_compact;
        quals = h[7] == bf::version_quals;
        if (quals && h[8] != bf::kind_events)
            fail_header("version 4 holds event traces (kind 2) only, not kind " + num(h[8]));
        if (compact && h[8] != bf::kind_packets)
            fail_header("version 3 holds QPI link packets (kind 1) only, not kind " + num(h[8]));
        if (h[8] == bf::kind_packets) kind = trace_kind::packets;
        else if (h[8] == bf::kind_events) kind = trace_kind::events;
        else if (h[8] == bf::kind_requests && h[7] >= bf::version_requests) {
            kind = trace_kind::packets;
            requests = true;
        } else if (h[8] == bf::kind_requests)
            fail_header("kind 3 (requests) needs version 2, not " + num(h[7]));
        else fail_header("kind " + num(h[8]) + " is neither 1 (packets), 2 (events) nor 3 (requests)");
        if (kind == trace_kind::packets) switch (describe(ctx.cpu).packets) {
                case packet_route::qpi_link:
                    if (requests)
                        fail_header("kind 3 holds requests at the home logic, for " + cpus_of(packet_route::home_logic) +
                                    "; packet records on " + to_string(ctx.cpu) + " are QPI link packets (kind 1)");
                    break;
                case packet_route::home_logic:
                    if (!requests)
                        fail_header("kind 1 holds QPI link packets, for " + cpus_of(packet_route::qpi_link) +
                                    "; packet records on " + to_string(ctx.cpu) +
                                    " are requests at the home logic (kind 3)");
                    break;
            }
        if (h[9] == bf::unit_ps) unit = time_unit::ps;
        else if (h[9] == bf::unit_cycles) unit = time_unit::cycles;
        else fail_header("time unit " + num(h[9]) + " is neither 0 (ps) nor 1 (cycles)");
        if (ld16(h + 10) != bf::header_size)
            fail_header("header size " + num(ld16(h + 10)) + " is not " + num(bf::header_size));
        if (compact && ld16(h + 12) != bf::record_size_compact)
            fail_header("record size " + num(ld16(h + 12)) + " is not 0 (version 3 records have no fixed size)");
        if (!compact && ld16(h + 12) != bf::record_size)
            fail_header("record size " + num(ld16(h + 12)) + " is not " + num(bf::record_size) +
                        " (the size of a version " + num(h[7]) + " " +
                        (requests ? "request" : kind == trace_kind::packets ? "packet" : "event") + " record)");
        if (h[14] || h[15]) fail_header("reserved bytes 14-15 are not zero");
    }

    // --- Records

    // The next record's bytes, or null at the end of the input.
    __attribute__((always_inline)) const unsigned char* next_record() {
        if (pos == end && !refill()) return nullptr;
        const unsigned char* r = pos;
        pos += bf::record_size;
        ++current;
        return r;
    }

    __attribute__((noinline)) bool refill() {
        if (at_end) {
            if (tail) {
                ++current;
                fail("the file ends inside this record (" + num(tail) + " of its " +
                     num(bf::record_size) + " bytes are there)");
            }
            return false;
        }
        const std::streamsize n = src.sgetn(reinterpret_cast<char*>(block.get()),
                                            static_cast<std::streamsize>(block_bytes));
        const std::size_t got = n > 0 ? static_cast<std::size_t>(n) : 0;
        if (got < block_bytes) at_end = true;  // sgetn stops short only at the end
        tail = got % bf::record_size;
        pos = block.get();
        end = pos + (got - tail);
        if (pos == end) return refill();
        return true;
    }

    void check_reserved(const unsigned char* r, std::size_t from) const {
        for (std::size_t i = from; i < bf::record_size; ++i)
            if (r[i])
                fail("reserved bytes " + num(from) + "-" + num(bf::record_size - 1) +
                     " are not zero");
    }

    // A version 4 qualifier record: the attributes of the event record
    // before it, checked as a text row's columns are (an error names the
    // qualifier record).
    __attribute__((noinline)) void read_quals(event_record& r) {
        const unsigned char* x = next_record();
        if (!x) fail("the file ends before this event record's qualifier record");
        ++qualifier_records;
        for (std::size_t i : {qr::reserved_a, qr::reserved_a + 1})
            if (x[i]) fail("qualifier record: reserved bytes 6-7 are not zero");
        for (std::size_t i = qr::reserved_b; i < bf::record_size; ++i)
            if (x[i]) fail("qualifier record: reserved bytes 16-23 are not zero");
        request_quals& q = r.quals;
        q.given = x[qr::given];
        q.state = x[qr::state];
        q.tid = x[qr::tid];
        q.nid = x[qr::nid];
        q.opc = ld16(x + qr::opc);
        q.addr = ld64(x + qr::addr);
        constexpr uint8_t all = request_field::state | request_field::nid | request_field::opc |
                                request_field::addr | request_field::tid;
        if (q.given == 0 || (q.given & ~all))
            fail("qualifier record: byte 0 (" + num(q.given) + ") is not a set of request attributes (1-31)");
        if (auto p = check_quals(spec_for(r.kind, ctx.cpu, r.unit), r.input, q)) {
            std::string v;
            switch (p->column[0]) {
                case 's': v = std::string(1, llc_state_letter(static_cast<llc_state>(q.state))); break;
                case 'n': v = num(q.nid); break;
                case 'o': v = detail::hex2(q.opc); break;
                case 'a': {
                    char a[24];
                    std::snprintf(a, sizeof a, "0x%llx", static_cast<unsigned long long>(q.addr));
                    v = a;
                    break;
                }
                default: v = num(q.tid); break;
            }
            bad(p->column, v, p->reason);
        }
    }

    // The record's time and cycle in `clk`, then the order check (text:
    // parse_time and accept_time).
    __attribute__((always_inline)) void take_time(uint64_t v, const trace_clock& clk,
                                                  const char* clk_name, time_ps& t, cycle_t& cyc) {
        if (unit == time_unit::ps) {
            t = v;
            cyc = clk.cycles_before(t);
        } else {
            cyc = v;
            if (cyc > clk.max_cycle())
                bad("cycle", num(cyc),
                    "is too large (its start time does not fit in 64-bit picoseconds)");
            t = clk.cycle_start(cyc);
        }
        if (t > ctx.max_time)
            bad(unit == time_unit::ps ? "time" : "cycle", unit == time_unit::ps ? ns_value(t) : num(cyc),
                "is beyond the model's time range (" + detail::time_range_text(ctx.max_time) + ")");
        if (have_prev && t < prev_time) time_goes_back(clk_name, t, cyc);
    }

    [[noreturn]] __attribute__((noinline, cold)) void time_goes_back(const char* clk_name,
                                                                     time_ps t,
                                                                     cycle_t cyc) const {
        const std::string prev = detail::fmt_ns(prev_time) + " (record " + num(prev_record) +
                                 "): rows must be in time order";
        if (unit == time_unit::ps)
            bad("time", ns_value(t),
                "(" + detail::fmt_ns(t) + ") is before the previous row's time " + prev);
        bad("cycle", num(cyc),
            "(" + std::string(clk_name) + " cycle " + num(cyc) + ", at " + detail::fmt_ns(t) +
                ") is before the previous row's time " + prev);
    }
    void accept_time(time_ps t) {
        have_prev = true;
        prev_time = t;
        prev_record = current;
        records = current - qualifier_records;  // (rows, not the records that hold them)
    }

    unsigned take_socket(uint8_t s) const {
        if (s >= ctx.sockets)
            bad("socket", num(s),
                "is not a socket of this machine (" +
                    detail::range_text(ctx.sockets, "socket", "sockets") + ")");
        return s;
    }

    // Every field of a packet record in range: one test for the usual record.
    // The one-byte fields (bytes 10-23, the reserved ones included) are
    // checked against their largest values a word at a time: byte i of
    // ((w & 0x7f..) + (0x7f - max_i)) | w has its high bit set exactly when
    // byte i of w is above max_i (max_i <= 0x7f, and no carry crosses bytes).
    static constexpr uint64_t low7 = 0x7f7f7f7f7f7f7f7full, high = 0x8080808080808080ull;
    uint64_t limits_lo = 0, limits_hi = 0;  // 0x7f - max per byte, bytes 10-17 and 16-23
    bool word_check = false;                // the largest values fit (sockets <= 128)

    void set_limits() {
        // socket, port, dir, mc, opc, vn, rnid, dnid | rnid, dnid, rds, ring, reserved x4
        if (ctx.sockets == 0 || ctx.sockets > 128 || ctx.qpi_ports == 0) return;
        const unsigned lo[8] = {ctx.sockets - 1, ctx.qpi_ports - 1, 1, 15, 15, 3, 31, 31};
        const unsigned hi[8] = {31, 31, 15, 1, 0, 0, 0, 0};
        for (int i = 0; i < 8; ++i) {
            limits_lo |= uint64_t(0x7f - lo[i]) << (8 * i);
            limits_hi |= uint64_t(0x7f - hi[i]) << (8 * i);
        }
        word_check = true;
    }

    bool packet_ok(const unsigned char* b) const {
        const unsigned mc = b[pk::mc], ring = b[pk::ring];
        if (word_check) {
            const uint64_t w1 = ld64(b + pk::socket), w2 = ld64(b + pk::rnid);
            const uint64_t over = ((((w1 & low7) + limits_lo) | w1) & high) |
                                  ((((w2 & low7) + limits_hi) | w2) & high);
            return (over == 0) & ((ring == 0) | (mc == qpi_mc::ndr)) &
                   (ld16(b + pk::flits) != 0);
        }
        return (ld32(b + pk::reserved) == 0) & (b[pk::socket] < ctx.sockets) &
               (b[pk::port] < ctx.qpi_ports) & (b[pk::dir] <= 1) & (mc <= 15) &
               (b[pk::opc] <= 15) & (b[pk::vn] <= 3) & (b[pk::rnid] <= 31) &
               (b[pk::dnid] <= 31) & (b[pk::rds] <= 15) &
               ((ring == 0) | ((ring == 1) & (mc == qpi_mc::ndr))) & (ld16(b + pk::flits) != 0);
    }

    // The checks of a packet record one by one, in their order: throws at the
    // first bad field (packet_ok() said there is one).
    [[noreturn]] __attribute__((noinline, cold)) void bad_packet(const unsigned char* b) const {
        check_reserved(b, pk::reserved);
        take_socket(b[pk::socket]);
        if (b[pk::port] >= ctx.qpi_ports)
            bad("port", num(b[pk::port]),
                "is not a QPI port of this machine (" +
                    detail::range_text(ctx.qpi_ports, "port", "ports") + ")");
        if (b[pk::dir] > 1) bad("dir", num(b[pk::dir]), "is not rx or tx");
        if (b[pk::mc] > 15)
            bad("mc", num(b[pk::mc]),
                "is not a message class (HOM0, HOM1, SNP, NDR, NCS, NCB, DRS or 0-15)");
        if (b[pk::opc] > 15) bad("opc", num(b[pk::opc]), "is not an opcode (0-15)");
        if (b[pk::vn] > 3)
            bad("vn", num(b[pk::vn]), "is not a virtual network (VN0, VN1, VNA or 0-3)");
        if (b[pk::rnid] > 31) bad("rnid", num(b[pk::rnid]), "is not a node ID (0-31)");
        if (b[pk::dnid] > 31) bad("dnid", num(b[pk::dnid]), "is not a node ID (0-31)");
        if (b[pk::rds] > 15)
            bad("rds", num(b[pk::rds]),
                "is not a response data state (I, F, S, E, M or 0-15)");
        if (b[pk::ring] > 1) bad("ring", num(b[pk::ring]), "is not a ring (AD or AK)");
        if (b[pk::ring] == 1 && b[pk::mc] != qpi_mc::ndr)
            bad("ring", "AD",
                "applies to NDR packets only (this packet's class is " +
                    detail::mc_name(b[pk::mc]) + ")");
        if (ld16(b + pk::flits) == 0) bad("flits", "0", "is not a packet size in flits (1-65535)");
        throw std::logic_error("binary_trace_decoder: a bad packet record without a reason");
    }

    static std::string cpus_of(packet_route route) {
        std::string s;
        for (const cpu_desc& d : cpu_registry())
            if (d.packets == route) s += std::string(s.empty() ? "" : ", ") + d.name;
        return s;
    }

    // A kind 3 record: a request reaching the home logic, in UCLK cycles.
    bool next_request(packet_record& r) {
        const unsigned char* b = next_record();
        if (!b) return false;
        check_reserved(b, rq::reserved);
        r.line = static_cast<unsigned>(current);
        r.socket = static_cast<uint8_t>(take_socket(b[rq::socket]));
        if (b[rq::src] >= home_src_count)
            bad("src", num(b[rq::src]), "is not a request source (0 ioh, 1 remote, 2 local)");
        r.port = b[rq::src];
        r.dir = qpi_dir::rx;
        if (b[rq::mc] > 15)
            bad("mc", num(b[rq::mc]), "is not a message class (HOM0, HOM1, SNP, NDR, NCS, NCB, DRS or 0-15)");
        if (b[rq::opc] > 15) bad("opc", num(b[rq::opc]), "is not an opcode (0-15)");
        r.packet = qpi_packet{};
        r.packet.mc = b[rq::mc];
        r.packet.opc = b[rq::opc];
        r.packet.flits = 1;
        r.addr = ld64(b + rq::addr);
        if (r.addr != no_addr && r.addr > phys_addr_max)
            bad("addr", hex(r.addr), "is not a physical address (40 bits: 0-0xffffffffff; all ones: none)");
        take_time(ld64(b + rq::time), uclk, "UCLK", r.time, r.cycle);
        accept_time(r.time);
        return true;
    }
    static std::string hex(uint64_t v) {
        char t[24];
        std::snprintf(t, sizeof t, "0x%llx", static_cast<unsigned long long>(v));
        return t;
    }

    // --- Version 3: compact records, bursts merged in time order

    compact::record item;         // the file's next record, read ahead
    uint64_t item_number = 0;     // its record number
    bool have_item = false, items_done = false;
    uint64_t file_time = 0;       // the time and socket of the record before it
    uint8_t file_socket = 0;
    compact::burst_queue bursts;  // the rest of bursts already begun
    bool whole_bursts = false;    // bursts returned as one record (keep_bursts)
    uint64_t emitted = 0;         // packets returned

    // Bytes for at least one whole record at pos, unless the file ends
    // first; false when none is left.
    bool ensure_bytes() {
        std::size_t left = static_cast<std::size_t>(end - pos);
        if (left >= compact::max_record_bytes || at_end) return left > 0;
        if (left) std::memmove(block.get(), pos, left);
        const std::streamsize n = src.sgetn(reinterpret_cast<char*>(block.get()) + left,
                                            static_cast<std::streamsize>(block_bytes - left));
        const std::size_t got = n > 0 ? static_cast<std::size_t>(n) : 0;
        if (got < block_bytes - left) at_end = true;  // sgetn stops short only at the end
        pos = block.get();
        end = pos + left + got;
        return pos < end;
    }

    // A record's time field checked as take_time() checks it (without the
    // order check: the format keeps records in order).
    enum class time_fault { none, cycle_too_large, beyond_range };
    time_fault check_time(uint64_t v) const {
        time_ps t = v;
        if (unit == time_unit::cycles) {
            if (v > qclk.max_cycle()) return time_fault::cycle_too_large;
            t = qclk.cycle_start(v);
        }
        return t <= ctx.max_time ? time_fault::none : time_fault::beyond_range;
    }
    std::string range_text() const {
        return "beyond the model's time range (" + detail::time_range_text(ctx.max_time) + ")";
    }

    // The next record of the file into `item`, checked. The usual record (no
    // flags, a one-byte delta) is decoded here; the others by compact::decode.
    void read_item() {
        if (!ensure_bytes()) {
            items_done = true;
            return;
        }
        item_number = ++current;
        const uint32_t w = end - pos >= 5 ? ld32(pos) : cw::flag_bits;
        if (!(w & cw::flag_bits) && pos[4] < 0x80 && file_time + pos[4] >= file_time) {
            item.time = file_time + pos[4];
            item.key.word = w;
            item.key.socket = file_socket;
            item.default_flits = true;
            item.repeat = 1;
            pos += 5;
        } else {
            read_item_slowly();
        }
        file_time = item.time;
        file_socket = item.key.socket;
        const unsigned mc = cw::w_mc.get(item.key.word);
        if (item.default_flits) item.key.flits = class_flits(mc, cw::w_opc.get(item.key.word));
        if (cw::w_port.get(item.key.word) >= ctx.qpi_ports || item.key.socket >= ctx.sockets ||
            (cw::w_ring.get(item.key.word) && mc != qpi_mc::ndr) || item.key.flits == 0)
            bad_item();
        if (check_time(item.time) != time_fault::none || item.repeat > 1) check_item_times();
        have_item = true;
    }

    // A record with flags, or a long delta.
    __attribute__((noinline)) void read_item_slowly() {
        std::size_t n = 0;
        try {
            n = cw::decode(pos, end, file_time, file_socket, item);
        } catch (const cw::decode_error& e) {
            if (e.field.empty()) fail(e.what);
            if (e.value.empty()) fail("column '" + e.field + "': " + e.what);
            bad(e.field.c_str(), e.value, e.what);
        }
        if (n == 0)
            fail("the file ends inside this record (the " + num(static_cast<uint64_t>(end - pos)) +
                 " bytes left are not a whole record)");
        pos += n;
    }

    [[noreturn]] __attribute__((noinline, cold)) void too_many_bursts() const {
        fail("more than " + num(compact::max_open_bursts) +
             " bursts would be open at once (a reader holds that many at most)");
    }

    // A bad field: the version 1 record's checks, in their order, with their words.
    [[noreturn]] __attribute__((noinline, cold)) void bad_item() const {
        packet_record r;
        put_record(item.key, r);
        unsigned char img[bf::record_size] = {};
        put_fixed(img, r);
        st16(img + pk::flits, item.key.flits);  // (0 as it is)
        bad_packet(img);
    }

    // A time out of range, or a burst (whose last packet must be in range).
    __attribute__((noinline)) void check_item_times() const {
        switch (check_time(item.time)) {
            case time_fault::none: break;
            case time_fault::cycle_too_large:
                bad("cycle", num(item.time), "is too large (its start time does not fit in 64-bit picoseconds)");
            case time_fault::beyond_range:
                if (unit == time_unit::ps) bad("time", ns_value(item.time), "is " + range_text());
                bad("cycle", num(item.time), "is " + range_text());
        }
        if (item.repeat < 2) return;
        if (item.repeat - 1 > (~uint64_t{0} - item.time) / item.spacing)
            bad("repeat", num(item.repeat), "is too large: the burst would pass the largest time a record can hold");
        const uint64_t last = item.last_time();
        const std::string at = unit == time_unit::ps ? ns_value(last) + " ns" : "cycle " + num(last);
        switch (check_time(last)) {
            case time_fault::none: break;
            case time_fault::cycle_too_large:
                bad("repeat", num(item.repeat),
                    "is too large: the burst's last packet would be at " + at +
                        ", whose start time does not fit in 64-bit picoseconds");
            case time_fault::beyond_range:
                bad("repeat", num(item.repeat),
                    "is too large: the burst's last packet would be at " + at + ", " + range_text());
        }
    }

    // The spacing of the burst in `item` in QCLK cycles, when it is returned
    // as one record (keep_bursts): its packets' cycles must then be evenly
    // spaced, which in ps they are when the spacing is a whole number of
    // whole periods (1 GHz: 1000 ps); else 0.
    uint64_t whole_burst_spacing() const {
        if (!whole_bursts) return 0;
        uint64_t cycles = item.spacing;
        if (unit == time_unit::ps) {
            const uint64_t period = qclk.whole_period();
            if (period == 0 || item.spacing % period != 0) return 0;
            cycles = item.spacing / period;
        }
        return cycles <= std::numeric_limits<uint32_t>::max() ? cycles : 0;
    }

    // The next packet: of an open burst, or the file's next record.
    __attribute__((always_inline)) bool next_compact(packet_record& r) {
        if (bursts.empty() && !have_item && !items_done) {  // the usual: a record read and returned at once
            read_item();
            if (items_done) return false;
            if (item.repeat == 1) {
                have_item = false;
                emit(item.key, item.time, item_number, r);
                return true;
            }
            if (const uint64_t spacing = whole_burst_spacing(); spacing != 0) {
                have_item = false;
                emit(item.key, item.time, item_number, r);
                r.run.repeat = static_cast<uint32_t>(item.repeat);
                r.run.spacing = static_cast<uint32_t>(spacing);
                records = emitted += item.repeat - 1;
                return true;
            }
        }
        return next_merged(r);
    }

    bool next_merged(packet_record& r) {
        if (!have_item && !items_done) read_item();
        cw::packet_key key;
        uint64_t v = 0, number = 0;
        if (!bursts.empty() && (items_done || bursts.next_time() < item.time)) {  // (records first at a time)
            bursts.pop(key, v, number);
        } else {
            if (items_done) return false;
            key = item.key;
            v = item.time;
            number = item_number;
            if (item.repeat > 1) {
                if (bursts.size() >= compact::max_open_bursts) too_many_bursts();
                bursts.add(key, number, v + item.spacing, item.repeat - 1, item.spacing);
            }
            have_item = false;
        }
        emit(key, v, number, r);
        return true;
    }

    __attribute__((always_inline)) void emit(const cw::packet_key& key, uint64_t v, uint64_t number, packet_record& r) {
        put_record(key, r);
        r.line = static_cast<unsigned>(number);
        set_time(v, r);
        have_prev = true;
        prev_time = r.time;
        prev_record = number;
        records = ++emitted;
    }

    // Version 3's usual records (no flags, a one-byte delta) in one loop,
    // straight into out[0..n): what next() would return for them, with the
    // state kept in registers. Stops before the first other record, before a
    // record a check fails (next() then reports it, with its words), and
    // where fewer bytes than the longest record are left (next() refills);
    // returns how many it wrote.
    std::size_t read_usual(packet_record* out, std::size_t n) {
        if (!compact || requests || !bursts.empty() || have_item || items_done || file_socket >= ctx.sockets)
            return 0;
        const unsigned char* const from = pos;
        const unsigned char* const stop = end - std::min<std::ptrdiff_t>(end - pos, compact::max_record_bytes);
        const usual_walk u = walk_and_make(out, n, stop, kept_ports());
        if (u.to == from) return 0;
        pos = u.to;
        file_time = u.time;
        current = item_number = prev_record = current + static_cast<uint64_t>(u.to - from) / 5;
        have_prev = true;
        prev_time = unit == time_unit::ps ? u.time : qclk.cycle_start(u.time);
        records = emitted += static_cast<uint64_t>(u.to - from) / 5;
        return u.kept;
    }
    struct usual_walk {
        const unsigned char* to;  // the first record not taken
        uint64_t time;            // the last taken record's time field
        std::size_t kept;         // records written
    };
    // Whether the usual record at p, after time field t, is one read_usual()
    // takes (else next() reads it); its time field in `next_t`.
    __attribute__((always_inline)) bool usual_ok(const unsigned char* p, uint64_t t, uint64_t& next_t) const {
        next_t = t + p[4];
        return !(usual_class[class_index(ld32(p))] | (p[4] & 0x80u) | (next_t < t) | (next_t > last_usual_time));
    }
    // The record of the usual record at p, its time field t and number
    // `number`: its bytes from the socket to the packet's end OR-ed from
    // made_bytes (socket `socket_bytes`).
    __attribute__((always_inline)) void make_usual(const unsigned char* p, uint64_t t, uint64_t number,
                                                   uint64_t socket_bytes, packet_record& r) const {
        const uint32_t w = ld32(p);
        const made_bytes& b0 = made[0][w & 0xFFu];
        const made_bytes& b1 = made[1][(w >> 8) & 0xFFu];
        const made_bytes& b2 = made[2][(w >> 16) & 0xFFu];
        const made_bytes& b3 = made[3][w >> 24];
        const uint64_t lo = socket_bytes | b0.lo | b1.lo | b2.lo | b3.lo;
        const uint32_t hi = b0.hi | b1.hi | b2.hi | b3.hi;
        r.run = burst_run{};
        unsigned char* const at = reinterpret_cast<unsigned char*>(&r) + made_from;
        std::memcpy(at, &lo, sizeof lo);
        std::memcpy(at + sizeof lo, &hi, sizeof hi);
        r.line = static_cast<unsigned>(number);
        set_time(t, r);
    }
    // A packet record's bytes from `socket` to the packet's end (12), as
    // put_record() writes them for a usual record: per byte of the word, what
    // it writes for a word of that byte alone (OR-ed over the four, they are
    // what it writes for the word: each field is a shift and a mask of the
    // word, and the class's size depends on the low byte alone, which holds
    // the class and opcode), socket 0. Built from put_record() itself, so
    // each field stays declared once (cw::w_*); one OR per byte instead of a
    // shift, mask and merge per field (about 45 instructions a record, was 70).
    static constexpr std::size_t made_from = offsetof(packet_record, socket);
    static_assert(offsetof(packet_record, packet) + sizeof(qpi_packet) - made_from == 12 &&
                      offsetof(packet_record, line) + sizeof(unsigned) <= made_from &&
                      offsetof(packet_record, run) + sizeof(burst_run) <= made_from,
                  "made_bytes: socket, port, dir and the packet are the record's last 12 bytes");
    struct made_bytes {
        uint64_t lo;
        uint32_t hi;
    };
    static_assert(static_cast<unsigned>(qpi_dir::rx) == 0, "made_bytes: a word of zeros writes zeros");
    std::array<std::array<made_bytes, 256>, 4> made = [] {
        std::array<std::array<made_bytes, 256>, 4> m{};
        for (unsigned k = 0; k < 4; ++k)
            for (unsigned b = 0; b < 256; ++b) {
                packet_record r;
                std::memset(reinterpret_cast<unsigned char*>(&r) + made_from, 0, 12);
                const uint16_t flits = k == 0 ? class_flits(cw::w_mc.get(b), cw::w_opc.get(b)) : 0;  // (usual_flits)
                put_record({static_cast<uint32_t>(b) << (8 * k), 0, flits}, r);
                const unsigned char* at = reinterpret_cast<const unsigned char*>(&r) + made_from;
                std::memcpy(&m[k][b].lo, at, sizeof m[k][b].lo);
                std::memcpy(&m[k][b].hi, at + sizeof m[k][b].lo, sizeof m[k][b].hi);
            }
        return m;
    }();
    // A packet record's time and cycle from its time field v.
    __attribute__((always_inline)) void set_time(uint64_t v, packet_record& r) const {
        if (unit == time_unit::ps) {
            r.time = v;
            r.cycle = qclk.cycles_before(v);
        } else {
            r.cycle = v;
            r.time = qclk.cycle_start(v);
        }
    }
    // The word's checks of a usual record, from a table: whether its flags,
    // port, ring and class (its top byte and low four bits) make it other
    // than a usual record.
    static_assert(cw::w_ring.lo == 24 && cw::w_port.lo > 24 && cw::w_mc.lo == 0 && cw::w_mc.width == 4 &&
                      (cw::flag_bits >> 24 << 24) == cw::flag_bits,
                  "usual_class: its index is the word's top byte and its class");
    std::array<uint8_t, 4096> usual_class{};
    static std::size_t class_index(uint32_t w) { return std::size_t{w >> 24} << 4 | (w & 15u); }
    // Records taken at a time (walk_and_make).
    static constexpr std::size_t kChunk = 256;
    // Whether kChunk usual records after time field t stay in the model's
    // range (each adds at most 127): then the table alone checks them.
    bool chunk_in_range(uint64_t t) const { return t <= last_usual_time && last_usual_time - t >= 127 * uint64_t{kChunk}; }
    // How many of the next `room` records from p, after time field t, are
    // usual, when t allows the table alone to check them (chunk_in_range);
    // their places and times into at/times from `first` (the records taken
    // before p), counting only those whose port `keep` holds.
    // Returns the records walked; `stopped` when one is not usual.
    __attribute__((always_inline)) std::size_t walk_usual(const unsigned char*& p, uint64_t& t, std::size_t room,
                                                          const uint8_t* keep, uint32_t first, uint32_t* at,
                                                          uint64_t* times, std::size_t& m, bool& stopped) const {
        std::size_t i = 0;
#if defined(__x86_64__)
        if (room >= 8 && g_walk_eight.load(std::memory_order_relaxed)) {
            const unsigned keep_bits = unsigned{keep[0]} | unsigned{keep[1]} << 1 | unsigned{keep[2]} << 2 | unsigned{keep[3]} << 3;
            i = walk_eight(p, room / 8, t, keep_bits, ctx.qpi_ports, first, at, times, m);
            p += 5 * i;
        }
#endif
        for (; i < room; ++i, p += 5) {
            const uint32_t w = ld32(p);
            const unsigned d = p[4];
            if (usual_class[class_index(w)] | (d & 0x80u)) {
                stopped = true;
                break;
            }
            t += d;
            at[m] = first + static_cast<uint32_t>(i);
            times[m] = t;
            m += keep[cw::w_port.get(w)];
        }
        return i;
    }
    // Records from p before `stop`, at most `room`.
    static std::size_t records_before(const unsigned char* p, const unsigned char* stop, std::size_t room) {
        return p < stop ? std::min(room, static_cast<std::size_t>(stop - p + 4) / 5) : 0;
    }
    // Per port of the record's socket: whether the filter keeps it (every
    // port without one).
    std::array<uint8_t, 4> kept_ports() const {
        std::array<uint8_t, 4> keep{1, 1, 1, 1};
        if (filter)
            for (unsigned q = 0; q < keep.size(); ++q) {
                const std::size_t i = record_filter::packet_index(file_socket, q);
                keep[q] = i >= filter->packets.size() || filter->packets[i];
            }
        return keep;
    }
    // The usual records from pos, in two passes over up to kChunk at a time:
    // the first checks each record and follows the time, noting those of the
    // ports `keep` holds without a branch on the port; the second makes
    // those. (Making every record and writing the dropped ones over cost a
    // parallel replay's thread as much as posting its own.)
    usual_walk walk_and_make(packet_record* out, std::size_t n, const unsigned char* stop,
                             const std::array<uint8_t, 4>& keep) const {
        std::array<uint32_t, kChunk + 8> at;     // the kept records' places (records after pos)
        std::array<uint64_t, kChunk + 8> times;  // (walk_eight writes eight at a time)
        const unsigned char* p = pos;
        uint64_t t = file_time, next_t;
        // (In locals: the records' stores could alias the members.)
        const unsigned char* const from = pos;
        const uint64_t first = current + 1, socket_bytes = file_socket;
        uint32_t i = 0;  // records taken
        std::size_t k = 0;
        bool stopped = false;
        while (!stopped && k < n) {
            const std::size_t room = records_before(p, stop, std::min(kChunk, n - k));
            if (room == 0) break;
            std::size_t m = 0, walked = 0;
            if (chunk_in_range(t)) {
                walked = walk_usual(p, t, room, keep.data(), i, at.data(), times.data(), m, stopped);
            } else {  // near the end of the range: each time checked
                for (; walked < room; ++walked, p += 5) {
                    if (!usual_ok(p, t, next_t)) {
                        stopped = true;
                        break;
                    }
                    t = next_t;
                    at[m] = i + static_cast<uint32_t>(walked);
                    times[m] = t;
                    m += keep[cw::w_port.get(ld32(p))];
                }
            }
            i += static_cast<uint32_t>(walked);
            for (std::size_t j = 0; j < m; ++j) make_usual(from + 5 * size_t{at[j]}, times[j], first + at[j], socket_bytes, out[k + j]);
            k += m;
        }
        return {p, t, k};
    }
    const record_filter* filter = nullptr;  // keep_only()
    void set_filter(const record_filter* f) {
        filter = f;
        skim_dropped_rows();
    }
    // Per the word's low byte (class and opcode): the class's size in flits.
    std::array<uint16_t, 256> usual_flits = [] {
        std::array<uint16_t, 256> f{};
        for (unsigned b = 0; b < 256; ++b) f[b] = class_flits(cw::w_mc.get(b), cw::w_opc.get(b));
        return f;
    }();
    // The latest time field a record may have (check_time() is none up to it).
    uint64_t last_usual_time = 0;

    __attribute__((always_inline)) bool next(packet_record& r) {
        if (requests) return next_request(r);
        if (compact) return next_compact(r);
        const unsigned char* b = next_record();
        if (!b) return false;
        if (!packet_ok(b)) bad_packet(b);
        r.run = burst_run{};
        r.line = static_cast<unsigned>(current);
        r.socket = b[pk::socket];
        r.port = b[pk::port];
        r.dir = b[pk::dir] ? qpi_dir::tx : qpi_dir::rx;
        qpi_packet& p = r.packet;
        p.mc = b[pk::mc];
        p.opc = b[pk::opc];
        p.vn = b[pk::vn];
        p.rnid = b[pk::rnid];
        p.dnid = b[pk::dnid];
        p.rds = b[pk::rds];
        p.ring_ad = b[pk::ring] == 1;
        p.flits = ld16(b + pk::flits);
        take_time(ld64(b + pk::time), qclk, "QCLK", r.time, r.cycle);
        accept_time(r.time);
        return true;
    }

    // What next(packet_record&) checks, keeping only the time.
    __attribute__((always_inline)) bool check_next_packet(time_ps& t) {
        if (requests || compact) {
            packet_record r;
            if (!(requests ? next_request(r) : next_compact(r))) return false;
            t = r.time;
            return true;
        }
        const unsigned char* b = next_record();
        if (!b) return false;
        if (!packet_ok(b)) bad_packet(b);
        cycle_t cyc;
        take_time(ld64(b + pk::time), qclk, "QCLK", t, cyc);
        accept_time(t);
        return true;
    }

    // Validation of packets: up to n records, the times of the first and
    // last. After each record taken the ordinary way, the rest of the block
    // is checked a record at a time with nothing kept but the previous
    // record's time field (times only grow with it, in either unit); a record
    // that fails any check is left for the ordinary path, which throws its
    // exact error.
    // Version 3: a burst is checked when its record is read (its last
    // packet's time included), so validation counts its packets at once
    // instead of walking them: a small file may hold billions of packets.
    // `last` is the latest packet time so far (bursts end after the records
    // that follow them). The bursts still open when a record comes (those
    // ending at or after it) are counted as reading counts them.
    time_ps latest = 0;
    std::vector<uint64_t> open_ends;  // a min-heap of the open bursts' last times
    std::size_t check_compact(std::size_t n, time_ps& first, time_ps& last) {
        std::size_t k = 0;
        const auto time_of = [&](uint64_t v) { return unit == time_unit::ps ? v : qclk.cycle_start(v); };
        const auto later = [](uint64_t a, uint64_t b) { return a > b; };
        while (k < n) {
            read_item();
            if (items_done) break;
            have_item = false;
            while (!open_ends.empty() && open_ends.front() < item.time) {
                std::pop_heap(open_ends.begin(), open_ends.end(), later);
                open_ends.pop_back();
            }
            if (item.repeat > 1) {
                if (open_ends.size() >= compact::max_open_bursts) too_many_bursts();
                open_ends.push_back(item.last_time());
                std::push_heap(open_ends.begin(), open_ends.end(), later);
            }
            if (k == 0) first = time_of(item.time);
            k += item.repeat;
            latest = std::max(latest, time_of(item.last_time()));
            last = latest;
            have_prev = true;
            prev_time = latest;
            prev_record = item_number;
            records = emitted += item.repeat;
        }
        return k;
    }

    std::size_t check_packets(std::size_t n, time_ps& first, time_ps& last) {
        if (compact) return check_compact(n, first, last);
        std::size_t k = 0;
        time_ps t = 0;
        const uint64_t max_v = unit == time_unit::ps ? ~uint64_t{0} : qclk.max_cycle();
        while (k < n && check_next_packet(t)) {
            if (k++ == 0) first = t;
            last = t;
            if (requests || compact) continue;  // (the block check below reads version 1 kind 1 records)
            const unsigned char* b = pos;  // the record after the one just taken, in the same block
            const std::size_t m = std::min<std::size_t>(n - k, static_cast<std::size_t>(end - pos) / bf::record_size);
            uint64_t prev = ld64(b - bf::record_size + pk::time);
            std::size_t j = 0;
            for (; j < m; ++j, b += bf::record_size) {
                const uint64_t v = ld64(b + pk::time);
                if (!packet_ok(b) || v < prev || v > max_v) break;
                prev = v;
            }
            if (j == 0) continue;
            pos = b;
            current += j;
            k += j;
            last = unit == time_unit::ps ? prev : qclk.cycle_start(prev);
            accept_time(last);
        }
        return k;
    }

    // Rows whose bytes 16 - 23 (count, socket, box, event, ext, sub-event,
    // and no qualifiers) were checked before: what they decode to. Those
    // checks depend on nothing else, and a trace repeats a few dozen such
    // combinations, so a row costs its time and repeat only (a parallel
    // replay's threads each read every row). Direct-mapped; only keys whose
    // top byte (reserved, or a qualifier record's flag) is 0 are stored or
    // found, so ~0 marks an empty entry.
    struct known_row {
        uint64_t key = ~uint64_t{0};
        uint32_t event = 0, input = 0;  // (the rest is the key's bytes)
    };
    static constexpr std::size_t known_rows_size = 256;
    std::array<known_row, known_rows_size> known_rows;
    static std::size_t known_slot(uint64_t key) {
        return static_cast<std::size_t>((key * 0x9E3779B97F4A7C15ull) >> 56) & (known_rows_size - 1);
    }

    __attribute__((always_inline)) bool next(event_record& r) {
        const unsigned char* b = next_record();
        if (!b) return false;
        return take_row(b, r);
    }
    // With a filter: the next row it keeps. A row of a box it drops, which
    // the replay thread that owns that box checks whole, is skimmed: its
    // socket and box (each in range, or the row is checked whole), its time
    // and its place in the file's time order, not its event (decision M32:
    // a parallel replay's run 0.974 of decoding such rows whole).
    __attribute__((always_inline)) bool next_kept(event_record& r) {
        for (;;) {
            const unsigned char* b = next_record();
            if (!b) return false;
            const uint8_t socket = b[ev::socket], box = b[ev::box];
            // (Byte 23 clear: no qualifier records follow, as for known_rows.)
            if (socket < ctx.sockets && box < trace_box_count && skimmed[socket * trace_box_count + box] &&
                b[ev::reserved] == 0) {
                time_ps t;
                cycle_t c;
                take_time(ld64(b + ev::time), clocks.of(box), clocks.name_of(box), t, c);
                accept_time(t);
                continue;
            }
            take_row(b, r);
            if (filter->keeps(r)) return true;
        }
    }
    // By socket * trace_box_count + box byte, with a filter: whether the
    // filter drops the rows of that box (a box of this machine).
    std::vector<uint8_t> skimmed;
    void skim_dropped_rows() {
        skimmed.assign(std::size_t{ctx.sockets} * trace_box_count, 0);
        if (!filter || kind != trace_kind::events) return;
        for (unsigned socket = 0; socket < ctx.sockets; ++socket)
            for (unsigned box = 0; box < trace_box_count; ++box) {
                if (!box_on[box]) continue;
                event_record r;
                r.socket = socket;
                r.kind = trace_boxes[box].kind;
                r.unit = trace_boxes[box].unit;
                skimmed[socket * trace_box_count + box] = !filter->keeps(r);
            }
    }
    // The row at b (next_record()'s).
    __attribute__((always_inline)) bool take_row(const unsigned char* b, event_record& r) {
        static_assert(ev::count == 16 && ev::reserved == 23 && bf::record_size == 24, "known_row: the row's last 8 bytes");
        const uint64_t key = ld64(b + ev::count);
        known_row& known = known_rows[known_slot(key)];
        if (known.key == key && key >> 56 == 0) {
            const uint8_t box = b[ev::box];
            r.line = static_cast<unsigned>(current);
            r.socket = b[ev::socket];
            r.kind = trace_boxes[box].kind;
            r.unit = trace_boxes[box].unit;
            r.box = names[box];
            r.event = known.event;
            r.input = known.input;
            r.count = ld16(b + ev::count);
        } else {
            check_row_key(b, r);
            if (key >> 56 == 0) known = {key, r.event, r.input};
        }
        return finish_row(b, b[ev::box], r);
    }

    // The checks of a row's bytes 16 - 23, in their order.
    void check_row_key(const unsigned char* b, event_record& r) {
        const bool quals_follow = quals && b[ev::quals_follow] == 1;
        if (!quals_follow) check_reserved(b, ev::reserved);
        r.line = static_cast<unsigned>(current);
        r.socket = take_socket(b[ev::socket]);

        // Box.
        const uint8_t box = b[ev::box];
        if (box >= trace_box_count || !box_on[box])
            bad("box", box < trace_box_count ? trace_boxes[box].name : num(box),
                "is not a box of this machine (" + box_list(ctx) + ")");
        r.kind = trace_boxes[box].kind;
        r.unit = trace_boxes[box].unit;
        r.box = names[box];
        const box_table& tab = tables[static_cast<unsigned>(r.kind)];

        // ext, event.
        const uint8_t ext = b[ev::ext];
        if (ext > 1) bad("ext", num(ext), "is not 0 or 1");
        if (ext && !describe(ctx.cpu).need(r.kind).ctl.ext)
            bad("ext", "1",
                "is not allowed for box '" + r.box.str() +
                    "': only QPI and PCU events have an extra select bit");
        const uint8_t code = b[ev::code];
        const int16_t e = tab.by_code[ext][code];
        if (e < 0) {
            std::string what = "is not an event code of the " + std::string(to_string(r.kind)) +
                               " catalog (" + to_string(ctx.cpu) + ")";
            if (r.kind == box_kind::qpi) what += ext ? " with ext 1" : " with ext 0";
            bad("event", detail::hex2(code), what);
        }
        const event_info& info = tab.events[static_cast<std::size_t>(e)];
        const event_def& def = *info.def;
        if (info.clockticks)
            bad("event", detail::hex2(code), "cannot be driven: " + def.name + " counts the box's own clock");
        if (info.mirror)
            bad("event", detail::hex2(code),
                "cannot be driven: " + def.name + " is counter 0's increment (drive counter 0's event)");
        r.event = info.index;

        // Sub-event.
        const uint8_t sub = b[ev::sub];
        if (sub >= info.subs && sub != bf::no_sub_event)
            bad("umask", num(sub),
                info.def->enumerated ? "is not an encoding of " + info.def->name + " (0-" + num(info.subs - 1) +
                                           ", or 255 for none)"
                                     : std::string("is not a sub-event bit (0-7, or 255 for none)"));
        if (def.umasks.empty()) {
            if (sub != bf::no_sub_event)
                bad("umask", detail::hex2(1u << sub),
                    "is not allowed: " + def.name + " has no sub-events");
            r.input = static_cast<unsigned>(info.plain_input);
        } else {
            if (sub == bf::no_sub_event)
                fail("column 'umask': value is missing: " + def.name + " has sub-events (" +
                     detail::sub_list(def) + ")");
            if (info.input[sub] < 0)
                bad("umask", detail::hex2(1u << sub),
                    "is not a sub-event of " + def.name + " (" + detail::sub_list(def) + ")");
            r.input = static_cast<unsigned>(info.input[sub]);
        }

        // count, repeat.
        const uint16_t count = ld16(b + ev::count);
        if (count > def.max_inc)
            bad("count", num(count),
                "is not a count of " + def.name + " (0-" + num(def.max_inc) + " per cycle)");
        r.count = count;
    }

    // The rest of a row: repeat, qualifiers and time.
    __attribute__((always_inline)) bool finish_row(const unsigned char* b, uint8_t box, event_record& r) {
        const bool quals_follow = quals && b[ev::quals_follow] == 1;
        r.repeat = ld64(b + ev::repeat);
        if (r.repeat == 0) bad("repeat", "0", "is not a repeat count (an integer >= 1)");

        const uint64_t when = ld64(b + ev::time);
        r.quals = request_quals{};
        if (quals_follow) read_quals(r);  // (b is not valid after this)
        take_time(when, clocks.of(box), clocks.name_of(box), r.time, r.cycle);
        if (r.cycle > std::numeric_limits<uint64_t>::max() - r.repeat)
            bad("repeat", num(r.repeat), "is too large: the run would pass the last cycle");
        if (!ctx.run_fits(clocks.of(box), r.cycle, r.repeat))
            bad("repeat", num(r.repeat),
                "is too large: the run would end beyond the model's time range (" + detail::time_range_text(ctx.max_time) + ")");
        accept_time(r.time);
        return true;
    }
};

binary_trace_decoder::binary_trace_decoder(source_buf& src, std::string filename,
                                           const trace_context& ctx)
    : p_(std::make_unique<impl>(src, std::move(filename), ctx)) {}

binary_trace_decoder::~binary_trace_decoder() = default;

trace_kind binary_trace_decoder::kind() const { return p_->kind; }
time_unit binary_trace_decoder::unit() const { return p_->unit; }
uint64_t binary_trace_decoder::records() const { return p_->records; }
void binary_trace_decoder::keep_bursts() { p_->whole_bursts = p_->compact; }
bool binary_trace_decoder::next(packet_record& r) { return p_->next(r); }
bool binary_trace_decoder::next(event_record& r) { return p_->next(r); }

void binary_trace_decoder::keep_only(const record_filter* f) { p_->set_filter(f); }

bool binary_trace_decoder::walk_eight_at_a_time(bool on) {
#if defined(__x86_64__)
    return g_walk_eight.exchange(on && __builtin_cpu_supports("avx2"));
#else
    (void)on;
    return false;
#endif
}

std::size_t binary_trace_decoder::read(packet_record* out, std::size_t n, std::exception_ptr& error) {
    // Runs of usual version 3 records in one loop; each other record (and
    // each error) through next(), as read_batch() would take it.
    std::size_t k = 0;
    while (k < n) {
        k += p_->read_usual(out + k, n - k);
        if (k == n) break;
        const std::size_t got = detail::read_batch(*p_, out + k, 1, error);
        if (got == 0) break;  // the end, or an error
        k += !p_->filter || p_->filter->keeps(out[k]);
    }
    return k;
}

std::size_t binary_trace_decoder::read(event_record* out, std::size_t n, std::exception_ptr& error) {
    if (!p_->filter) return detail::read_batch(*p_, out, n, error);
    std::size_t k = 0;
    try {
        while (k < n && p_->next_kept(out[k])) ++k;
    } catch (...) {
        error = std::current_exception();
    }
    return k;
}

std::size_t binary_trace_decoder::check_packets(std::size_t n, time_ps& first, time_ps& last,
                                                std::exception_ptr& error) {
    if (p_->kind != trace_kind::packets) throw std::logic_error("binary_trace_decoder: check_packets of an event trace");
    // (k counts what was checked before an error: the decoder's own count.)
    const uint64_t before = p_->records;
    try {
        return p_->check_packets(n, first, last);
    } catch (...) {
        error = std::current_exception();
    }
    const std::size_t k = static_cast<std::size_t>(p_->records - before);
    if (k == 0) return 0;
    last = p_->prev_time;
    return k;
}

}  // namespace pmonsim::trace
