// What the event text of an event row (its box kind and its event, umask and
// ext fields) resolved to. Finding an event by name and its sub-event is a
// scan of the catalog with case-insensitive compares, and traces repeat a
// handful of these texts over millions of rows: the text decoder resolves
// each text once and finds it here afterwards.
//
// Only successful resolutions are kept, so a row found here passes every
// check the full lookup would make. Fixed size, allocated once: a slot holds
// the key's bytes in place. A text goes in the first free slot of the few
// after the one it hashes to (so two texts with one hash do not evict each
// other); when all of those are taken, it replaces the first of them.
#pragma once
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string_view>

#include "catalog/catalog.h"
#include "trace/trace_swar.h"

namespace pmonsim::trace {

struct resolved_event {
    unsigned event = 0;  // index into the catalog's events()
    unsigned input = 0;  // catalog input (sub-event)
    const event_def* def = nullptr;
};

class event_text_cache {
public:
    static constexpr std::size_t slots = 128;
    static constexpr std::size_t probes = 8;
    static constexpr std::size_t key_max = 96;  // longer texts are not kept

    event_text_cache() : slots_(std::make_unique<slot[]>(slots)) {}

    const resolved_event* find(box_kind kind, std::string_view ext, std::string_view event,
                               std::string_view umask) const {
        char buf[key_room];
        const std::size_t n = make_key(buf, kind, ext, event, umask);
        if (n == 0) return nullptr;
        for (std::size_t i = index(buf, n), k = 0; k < probes; ++k, i = (i + 1) % slots) {
            const slot& s = slots_[i];
            if (s.size == 0) return nullptr;  // slots are never freed: the text is not here
            if (s.size == n && same_key(s.key, buf, n)) return &s.value;
        }
        return nullptr;
    }

    void insert(box_kind kind, std::string_view ext, std::string_view event,
                std::string_view umask, const resolved_event& value) {
        char buf[key_room];
        const std::size_t n = make_key(buf, kind, ext, event, umask);
        if (n == 0) return;
        const std::size_t home = index(buf, n);
        slot* free = &slots_[home];
        for (std::size_t i = home, k = 0; k < probes; ++k, i = (i + 1) % slots)
            if (slots_[i].size == 0) {
                free = &slots_[i];
                break;
            }
        slot& s = *free;
        std::memcpy(s.key, buf, n);
        s.size = static_cast<uint8_t>(n);
        s.value = value;
    }

private:
    // A key's buffer: room for whole words past its end (read, never compared).
    static constexpr std::size_t key_room = key_max + 8;
    struct slot {
        uint8_t size = 0;  // 0: free
        char key[key_room];
        resolved_event value;
    };

    // Word i of a key of n bytes (bytes past n are 0).
    static uint64_t key_word(const char* key, std::size_t n, std::size_t i) {
        return swar::load8(key + i) & swar::low_bytes(static_cast<unsigned>(std::min<std::size_t>(n - i, 8)));
    }
    static bool same_key(const char* a, const char* b, std::size_t n) {
        uint64_t diff = 0;
        for (std::size_t i = 0; i < n; i += 8) diff |= key_word(a, n, i) ^ key_word(b, n, i);
        return diff == 0;
    }

    // The kind, then each field after its length (so no two texts share a
    // key); 0 when the fields are too long.
    static std::size_t make_key(char* buf, box_kind kind, std::string_view ext,
                                std::string_view event, std::string_view umask) {
        if (ext.size() + event.size() + umask.size() + 4 > key_max) return 0;
        std::size_t n = 0;
        buf[n++] = static_cast<char>(kind);
        for (std::string_view f : {ext, event, umask}) {
            buf[n++] = static_cast<char>(f.size());
            if (!f.empty()) std::memcpy(buf + n, f.data(), f.size());  // (an absent column: data() may be null)
            n += f.size();
        }
        return n;
    }

    // A hash of the key eight bytes at a time (one multiplication per word,
    // not one per byte: a row's key is some 30 bytes, and this runs per row).
    static std::size_t index(const char* key, std::size_t n) {
        uint64_t h = 0x9E3779B97F4A7C15ull ^ n;
        for (std::size_t i = 0; i < n; i += 8) {
            h = (h ^ key_word(key, n, i)) * 0xFF51AFD7ED558CCDull;
            h ^= h >> 32;
        }
        return static_cast<std::size_t>(h ^ (h >> 29)) % slots;
    }

    std::unique_ptr<slot[]> slots_;
};

}  // namespace pmonsim::trace
