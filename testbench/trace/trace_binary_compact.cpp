// Compact packet records of binary format version 3 (trace_binary_compact.h).
#include "trace/trace_binary_compact.h"

#include <algorithm>

namespace pmonsim::trace::compact {

namespace {

void put_varint(std::string& out, uint64_t v) {
    while (v >= 0x80) {
        out += static_cast<char>(static_cast<unsigned char>(v | 0x80));
        v >>= 7;
    }
    out += static_cast<char>(static_cast<unsigned char>(v));
}

// An unsigned LEB128 value of at most 10 bytes (64 bits); false if it does
// not end before `end`.
bool get_varint(const unsigned char*& p, const unsigned char* end, uint64_t& v, const char* field) {
    v = 0;
    for (unsigned shift = 0; shift < 63; shift += 7) {
        if (p == end) return false;
        const unsigned char b = *p++;
        v |= uint64_t(b & 0x7f) << shift;
        if (!(b & 0x80)) return true;
    }
    // The tenth byte holds bit 63 alone.
    if (p == end) return false;
    const unsigned char b = *p++;
    if (b > 1) throw decode_error{field, "", "is a varint of more than 64 bits"};
    v |= uint64_t(b) << 63;
    return true;
}

}  // namespace

void encode(const record& r, uint64_t prev_time, uint8_t prev_socket, std::string& out) {
    uint32_t w = r.key.word & ~flag_bits;
    if (r.key.socket != prev_socket) w |= socket_follows;
    if (!r.default_flits) w |= flits_follows;
    if (r.repeat > 1) w |= burst;
    for (int i = 0; i < 4; ++i) out += static_cast<char>(static_cast<unsigned char>(w >> (8 * i)));
    put_varint(out, r.time - prev_time);
    if (w & socket_follows) out += static_cast<char>(r.key.socket);
    if (w & flits_follows) put_varint(out, r.key.flits);
    if (w & burst) {
        put_varint(out, r.repeat);
        put_varint(out, r.spacing);
    }
}

std::size_t decode(const unsigned char* p, const unsigned char* end, uint64_t prev_time,
                   uint8_t prev_socket, record& r) {
    const unsigned char* const start = p;
    if (end - p < 4) return 0;
    const uint32_t w = uint32_t{p[0]} | uint32_t{p[1]} << 8 | uint32_t{p[2]} << 16 | uint32_t{p[3]} << 24;
    p += 4;
    if (w & reserved_bit) throw decode_error{"", "", "reserved bit 31 of the packet word is not zero"};
    r.key.word = w & ~flag_bits;
    uint64_t delta;
    if (!get_varint(p, end, delta, "time")) return 0;
    if (delta > ~uint64_t{0} - prev_time)
        throw decode_error{"time", std::to_string(delta), "(a delta) passes the largest time a record can hold (2^64 - 1)"};
    r.time = prev_time + delta;
    r.key.socket = prev_socket;
    if (w & socket_follows) {
        if (p == end) return 0;
        r.key.socket = *p++;
    }
    r.default_flits = !(w & flits_follows);
    r.key.flits = 0;
    if (w & flits_follows) {
        uint64_t flits;
        if (!get_varint(p, end, flits, "flits")) return 0;
        // (0 is left to the caller's range check, as in version 1.)
        if (flits > 0xFFFF) throw decode_error{"flits", std::to_string(flits), "is not a packet size in flits (1-65535)"};
        r.key.flits = static_cast<uint16_t>(flits);
    }
    r.repeat = 1;
    r.spacing = 0;
    if (w & burst) {
        if (!get_varint(p, end, r.repeat, "repeat") || !get_varint(p, end, r.spacing, "spacing")) return 0;
        if (r.repeat < 2 || r.repeat > max_repeat)
            throw decode_error{"repeat", std::to_string(r.repeat),
                               "is not a burst's packet count (2-" + std::to_string(max_repeat) + ")"};
        if (r.spacing == 0) throw decode_error{"spacing", "0", "is not a burst's spacing (an integer >= 1)"};
    }
    return static_cast<std::size_t>(p - start);
}

// ---------------------------------------------------------------------------
// burst_finder

void burst_finder::add(const record& packet) {
    if (open_.empty()) open_.assign(256 * 4 * 2, 0);
    const std::size_t s = stream_of(packet.key);
    const uint64_t t = packet.time;
    if (!any_ || t > now_) {  // the extensions at the previous time were the last packets of it
        tentative_.clear();
        now_ = t;
    }
    any_ = true;
    if (open_[s]) {
        item& it = pending_[open_[s] - 1 - base_];
        record& b = it.r;
        const bool next_in_step = b.repeat == 1 ? t > b.time : t == b.last_time() + b.spacing;
        // (Continuations at one time come oldest burst first: this one must
        // be younger than those extended at t already.)
        const bool in_order = tentative_.empty() || open_[s] > tentative_.back();
        if (next_in_step && in_order && b.repeat < max_repeat && b.key == packet.key &&
            b.default_flits == packet.default_flits) {
            if (b.repeat == 1) b.spacing = t - b.time;
            ++b.repeat;
            tentative_.push_back(open_[s]);
            return;
        }
    }
    // A record of its own at t: the continuations already at t would come
    // after it in the file's order, so they become records of their own too,
    // before it.
    for (const uint64_t number : tentative_) {
        item& it = pending_[number - 1 - base_];
        record single = it.r;
        single.time = it.r.last_time();
        single.repeat = 1;
        single.spacing = 0;
        if (--it.r.repeat == 1) it.r.spacing = 0;
        it.open = false;
        open_[stream_of(it.r.key)] = 0;
        push(single);
    }
    tentative_.clear();
    if (open_[s]) {
        pending_[open_[s] - 1 - base_].open = false;
        open_[s] = 0;
    }
    push(packet);
    release();
}

void burst_finder::push(const record& single) {
    pending_.push_back({single, true});
    pending_.back().r.repeat = 1;
    pending_.back().r.spacing = 0;
    open_[stream_of(single.key)] = base_ + pending_.size();
    if (pending_.size() > max_pending && pending_.front().open) {
        pending_.front().open = false;
        open_[stream_of(pending_.front().r.key)] = 0;
    }
}

void burst_finder::release() {
    // (Not a burst extended at the current time: a record at that time may
    // still take its last packet back.)
    while (!pending_.empty() && !pending_.front().open &&
           !(pending_.front().r.repeat > 1 && pending_.front().r.last_time() == now_)) {
        ready_.push_back(pending_.front().r);
        pending_.pop_front();
        ++base_;
    }
}

void burst_finder::finish() {
    tentative_.clear();
    now_ = ~uint64_t{0};  // (nothing can take a packet back now)
    for (item& it : pending_) it.open = false;
    std::fill(open_.begin(), open_.end(), 0);
    release();
}

// ---------------------------------------------------------------------------
// burst_queue

void burst_queue::add(const packet_key& k, uint64_t record_number, uint64_t next, uint64_t left,
                      uint64_t spacing) {
    heap_.push_back({next, left, spacing, order_++, record_number, k});
    std::push_heap(heap_.begin(), heap_.end(), later);
}

void burst_queue::pop(packet_key& k, uint64_t& time, uint64_t& record_number) {
    std::pop_heap(heap_.begin(), heap_.end(), later);
    open_burst& b = heap_.back();
    k = b.key;
    time = b.next;
    record_number = b.record_number;
    if (--b.left == 0) {
        heap_.pop_back();
        return;
    }
    b.next += b.spacing;
    std::push_heap(heap_.begin(), heap_.end(), later);
}

}  // namespace pmonsim::trace::compact
