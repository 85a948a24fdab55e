// The compact packet records of binary format version 3
// (docs/trace-binary-format.md, "Compact packet records"): a 32-bit word of
// the packet's fields, the time as an unsigned LEB128 delta from the previous
// record, and optional parts (socket, flits, a burst's repeat and spacing)
// that the word's flags announce. A typical packet costs 5 bytes instead of
// version 1's 24, and a burst of identical packets at a constant spacing is
// one record.
//
// This file holds the byte layout and the two state machines that need no
// catalog: burst_finder (the writer's: which packets make bursts, holding
// back at most max_pending records) and burst_queue (the reader's: the
// packets of open bursts, merged in time order with the records that
// follow, the records of a time before the bursts' packets at it). Checking
// values against the machine is trace_binary.cpp's work: it checks a compact
// record's fields as version 1's (a bad one through its 24-byte version 1
// image), so both versions give the same errors.
#pragma once
#include <cstddef>
#include <cstdint>
#include <deque>
#include <string>
#include <vector>

namespace pmonsim::trace::compact {

// The word (bits): mc 3:0, opc 7:4, vn 9:8, rnid 14:10, dnid 19:15, rds 23:20,
// ring 24, dir 25, port 27:26, then the flags.
constexpr uint32_t socket_follows = 1u << 28;  // a socket byte follows (else: the previous record's)
constexpr uint32_t flits_follows = 1u << 29;   // a flits varint follows (else: the class's size)
constexpr uint32_t burst = 1u << 30;           // repeat and spacing varints follow
constexpr uint32_t reserved_bit = 1u << 31;    // 0
// The longest record: word, time delta, socket, flits, repeat, spacing.
constexpr std::size_t max_record_bytes = 4 + 10 + 1 + 3 + 10 + 10;
// Bursts whose packets are still to come at any one time, at most (the
// writer keeps one per socket, port and direction: 256 x 4 x 2).
constexpr std::size_t max_open_bursts = 2048;
constexpr uint64_t max_repeat = 0xFFFFFFFFu;

// The word's fields.
struct word_field {
    unsigned lo, width;
    constexpr uint32_t put(unsigned v) const { return (v & ((1u << width) - 1)) << lo; }
    constexpr uint8_t get(uint32_t w) const { return static_cast<uint8_t>((w >> lo) & ((1u << width) - 1)); }
};
constexpr word_field w_mc{0, 4}, w_opc{4, 4}, w_vn{8, 2}, w_rnid{10, 5}, w_dnid{15, 5}, w_rds{20, 4},
    w_ring{24, 1}, w_dir{25, 1}, w_port{26, 2};
constexpr uint32_t flag_bits = socket_follows | flits_follows | burst | reserved_bit;

// What makes two packets equal: the word's fields (no flags), the socket and
// the size in flits (resolved: never 0 for a class's size).
struct packet_key {
    uint32_t word = 0;
    uint8_t socket = 0;
    uint16_t flits = 0;
    bool operator==(const packet_key& o) const { return word == o.word && socket == o.socket && flits == o.flits; }
    bool operator!=(const packet_key& o) const { return !(*this == o); }
};

// One record: a packet, or `repeat` (>= 2) of them `spacing` (>= 1) time
// units apart.
struct record {
    uint64_t time = 0;  // the header's unit (ps or cycles)
    packet_key key;
    bool default_flits = true;  // key.flits is its class's size: not written
    uint64_t repeat = 1;
    uint64_t spacing = 0;
    uint64_t last_time() const { return time + (repeat - 1) * spacing; }
};

// Appends the bytes of `r` after a record at `prev_time` with socket
// `prev_socket` (both 0 before the first record).
void encode(const record& r, uint64_t prev_time, uint8_t prev_socket, std::string& out);

// Decodes one record from [p, end) into `r`; returns the bytes it took, or 0
// if the record does not end before `end` (the caller refills, or at the end
// of the file reports a cut record). Throws decode_error for bytes that are
// not a record, before looking at values (ranges are the caller's check).
// key.flits is 0 when default_flits (the caller knows the classes' sizes).
struct decode_error {
    std::string field;  // the text column it stands for ("time", "flits", "repeat", "spacing"); empty: none
    std::string value;  // the value, when there is one
    std::string what;   // "is a varint longer than 10 bytes", ...
};
std::size_t decode(const unsigned char* p, const unsigned char* end, uint64_t prev_time,
                   uint8_t prev_socket, record& r);

// The writer's run finder. Packets go in in time order; records come out in
// file order, each burst at its first packet's place. A packet extends the
// open burst of its socket, port and direction when it equals that burst's
// packet and comes at the burst's next time (the second packet sets the
// spacing). A reader returns, at each time, the file's records first and then
// the bursts' later packets, oldest burst first; so the finder keeps an
// extension only if no record of its own follows at that time and the
// extensions of one time come in the order of their bursts. Otherwise the
// packet becomes a record of its own. Then a reader gives back exactly the
// packets that went in, in their order. A burst stays open until its
// stream's next packet does not extend it, it reaches max_repeat, or more
// than max_pending records wait behind it.
class burst_finder {
public:
    static constexpr std::size_t max_pending = 1 << 16;
    void add(const record& packet);  // repeat 1
    // Records ready for the file, in order (the caller writes and clears them).
    std::vector<record>& ready() { return ready_; }
    // Closes every burst: everything added is then ready.
    void finish();

private:
    struct item {
        record r;
        bool open = true;
    };
    // Socket (8 bits), port (2) and direction (1) of a packet: its stream.
    static std::size_t stream_of(const packet_key& k) {
        return (std::size_t{k.socket} * 4 + w_port.get(k.word)) * 2 + w_dir.get(k.word);
    }
    void push(const record& single);
    void release();

    std::deque<item> pending_;
    uint64_t base_ = 0;                  // number of the item at pending_.front()
    std::vector<uint64_t> open_;         // by stream: 1 + number of its open item, or 0
    bool any_ = false;
    uint64_t now_ = 0;                   // the time of the last packet added
    std::vector<uint64_t> tentative_;    // 1 + numbers of the bursts extended at now_, in order
    std::vector<record> ready_;
};

// The reader's side: the packets of open bursts, in time order (ties: the
// burst read first). The decoder emits the earliest of these and the next
// record of the file, the file's record first on equal times.
class burst_queue {
public:
    bool empty() const { return heap_.empty(); }
    std::size_t size() const { return heap_.size(); }
    uint64_t next_time() const { return heap_.front().next; }
    // Adds the rest of a burst whose first packet was just emitted.
    void add(const packet_key& k, uint64_t record_number, uint64_t next, uint64_t left, uint64_t spacing);
    // Pops the earliest packet: its key, time and its burst's record number.
    void pop(packet_key& k, uint64_t& time, uint64_t& record_number);

private:
    struct open_burst {
        uint64_t next, left, spacing, order, record_number;
        packet_key key;
    };
    static bool later(const open_burst& a, const open_burst& b) {
        return a.next != b.next ? a.next > b.next : a.order > b.order;
    }
    std::vector<open_burst> heap_;
    uint64_t order_ = 0;
};

}  // namespace pmonsim::trace::compact
