// pmonsim-bench-replay: in-process micro-benchmarks (Google Benchmark) of the
// pieces of a replay that bench/run-bench measures end to end: reading a
// packet trace (text, binary), the validation pass, and the counting core
// (qpi_link::post_packet + box_core::advance_to) without SystemC, for several
// distances between the posted inputs and the box's current cycle (replay posts
// up to 1 us = 1,000 QCLK cycles ahead), and event-trace rows on the R2PCIe;
// and the limits these pieces meet on the machine: memory read bandwidth,
// decoding version 3 records in batches on one core, and records handed from
// the reading thread's core to the replay's (batch_pipe) with nothing else to
// do. items_per_second is packets (rows, records) per second. See
// docs/performance.md.
//
//   pmonsim-bench-replay --benchmark_min_time=0.2
#include <benchmark/benchmark.h>

#include <cstdint>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "splitmix.h"

#include "core/box_core.h"
#include "core/qpi_link.h"
#include "trace/batch_pipe.h"
#include "trace/trace_binary.h"
#include "trace/trace_reader.h"

using namespace pmonsim;

namespace {

using rng = pmonsim::splitmix;

struct gen_packet {
    cycle_t cycle;
    unsigned port;
    qpi_dir dir;
    qpi_packet p;
};

// A dense mix like pmonsim-gen-trace's default (load about 0.5 per link
// direction, 2 ports, rx and tx): DRS 35, NCB 10, SNP 20, HOM0 15, HOM1 10,
// NDR 8, NCS 2.
std::vector<gen_packet> make_packets(size_t n, unsigned ports = 2) {
    static const uint8_t mcs[] = {qpi_mc::drs, qpi_mc::ncb, qpi_mc::snp, qpi_mc::hom0,
                                  qpi_mc::hom1, qpi_mc::ndr, qpi_mc::ncs};
    static const unsigned weights[] = {35, 10, 20, 15, 10, 8, 2};
    rng r{1};
    std::vector<gen_packet> out;
    out.reserve(n);
    const unsigned links = ports * 2;
    uint64_t milli = 0;  // 1/1000 cycle; mean gap per link 4.6 cycles
    for (size_t i = 0; i < n; ++i) {
        milli += r.below(2 * 4600 / links);
        uint32_t pick = r.below(100);
        unsigned k = 0;
        while (pick >= weights[k]) pick -= weights[k++];
        gen_packet g{milli / 1000, static_cast<unsigned>(i % links) / 2,
                     (i % 2) ? qpi_dir::tx : qpi_dir::rx, {}};
        g.p.mc = mcs[k];
        g.p.opc = static_cast<uint8_t>(mcs[k] == qpi_mc::drs ? r.below(8) : r.below(16));
        g.p.dnid = static_cast<uint8_t>(r.below(8));
        g.p.flits = static_cast<uint16_t>(shape_of(g.p).flits);
        out.push_back(g);
    }
    return out;
}

const char* mc_name(uint8_t mc) {
    switch (mc) {
        case qpi_mc::hom0: return "HOM0";
        case qpi_mc::hom1: return "HOM1";
        case qpi_mc::ndr: return "NDR";
        case qpi_mc::snp: return "SNP";
        case qpi_mc::ncs: return "NCS";
        case qpi_mc::ncb: return "NCB";
        default: return "DRS";
    }
}

std::string text_trace(const std::vector<gen_packet>& ps) {
    std::string s = "cycle,port,dir,mc,opc,dnid\n";
    char line[96];
    for (const gen_packet& g : ps) {
        std::snprintf(line, sizeof line, "%llu,%u,%s,%s,%u,%u\n", static_cast<unsigned long long>(g.cycle),
                      g.port, g.dir == qpi_dir::rx ? "rx" : "tx", mc_name(g.p.mc), g.p.opc, g.p.dnid);
        s += line;
    }
    return s;
}

std::string binary_trace(const std::vector<gen_packet>& ps) {
    std::ostringstream out;
    trace::trace_context ctx;
    {
        trace::binary_trace_writer w(out, trace::trace_kind::packets, trace::time_unit::cycles, ctx);
        const clock_domain qclk(ctx.qclk_hz);
        for (const gen_packet& g : ps) {
            trace::packet_record r;
            r.cycle = g.cycle;
            r.time = qclk.cycle_start(g.cycle);
            r.port = g.port;
            r.dir = g.dir;
            r.packet = g.p;
            w.write(r);
        }
        w.flush();
    }
    return out.str();
}

constexpr size_t kRows = 200000;

void read_all(benchmark::State& state, const std::string& data) {
    const trace::trace_context ctx;
    for (auto _ : state) {
        std::istringstream in(data);
        trace::trace_reader rd(in, "bench", ctx);
        trace::packet_record r;
        uint64_t n = 0;
        while (rd.next(r)) ++n;
        benchmark::DoNotOptimize(n);
    }
    state.SetItemsProcessed(state.iterations() * kRows);
    state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(data.size()));
}

void BM_ReadText(benchmark::State& state) {
    static const std::string data = text_trace(make_packets(kRows));
    read_all(state, data);
}
BENCHMARK(BM_ReadText)->Unit(benchmark::kMillisecond);

void BM_ValidateText(benchmark::State& state) {
    static const std::string data = text_trace(make_packets(kRows));
    const trace::trace_context ctx;
    for (auto _ : state) {
        std::istringstream in(data);
        benchmark::DoNotOptimize(trace::validate_trace(in, "bench", ctx).records);
    }
    state.SetItemsProcessed(state.iterations() * kRows);
}
BENCHMARK(BM_ValidateText)->Unit(benchmark::kMillisecond);

void BM_ReadBinary(benchmark::State& state) {
    static const std::string data = binary_trace(make_packets(kRows));
    read_all(state, data);
}
BENCHMARK(BM_ReadBinary)->Unit(benchmark::kMillisecond);

// The counting core of one QPI port: the benchmark's programming (G1 DRS, G0
// data >= 2, idle edges, CTO_COUNT with a DRS filter), packets posted through
// qpi_link, and the box advanced every `chunk` cycles (range(0)).
void BM_QpiPortCore(benchmark::State& state) {
    static const std::vector<gen_packet> all = make_packets(kRows, 1);
    const cycle_t chunk = static_cast<cycle_t>(state.range(0));
    for (auto _ : state) {
        box_core box(make_box_spec(box_kind::qpi, default_cpu, 0), clock_domain(1000000000ull), nullptr);
        qpi_link link(box);
        const uint32_t ctl[4] = {0x00601802, 0x02400600, 0x01440101, 0x00600038};
        for (const register_def& r : box.spec().table.regs) {
            if (r.role == reg_role::ctl) box.write_reg(r, ctl[r.index], ~0ull, 0);
            if (r.role == reg_role::pkt_match0) box.write_reg(r, 0x1C00, ~0ull, 0);
            if (r.role == reg_role::pkt_mask0) box.write_reg(r, 0x1F80, ~0ull, 0);
        }
        cycle_t boundary = chunk;
        for (const gen_packet& g : all) {
            while (g.cycle >= boundary) {  // time reaches the boundary: count up to it
                box.advance_to(boundary);
                boundary += chunk;
            }
            link.post_packet(g.dir, g.cycle, g.p);
        }
        box.advance_to(all.back().cycle + 64);
        benchmark::DoNotOptimize(box.counter_value(0));
    }
    state.SetItemsProcessed(state.iterations() * kRows);
}
BENCHMARK(BM_QpiPortCore)->Arg(16)->Arg(1000)->Arg(10000)->Unit(benchmark::kMillisecond);

// Event-trace rows on the R2PCIe (run-bench's event trace: a row every 23
// UCLK cycles on average, 29 % of them one cycle long, the rest up to 150, so
// runs overlap), with run-bench's R2PCIe programming: two thresholds, an edge
// detect and one plain count. Each row is two input steps through the box's
// heap and two stops of the walk: the part of a replay performance.md says
// comes next. items_per_second is rows.
void BM_R2pcieEventRows(benchmark::State& state) {
    const box_spec spec = make_box_spec(box_kind::r2pcie, default_cpu);
    const event_catalog& cat = *spec.catalog;
    struct row { cycle_t cycle; uint64_t repeat; unsigned input; uint32_t count; };
    static const std::vector<row> rows = [&] {
        const unsigned in[] = {*cat.find_input("RING_AD_USED", "CW_VR0_EVEN"),
                               *cat.find_input("RING_AD_USED", "CCW_VR0_ODD"),
                               *cat.find_input("RING_BL_USED", "CW_VR0_EVEN"),
                               *cat.find_input("RxR_OCCUPANCY", "DRS")};
        rng r{7};
        std::vector<row> v;
        cycle_t c = 0;
        for (size_t i = 0; i < kRows; ++i) {
            c += r.below(46);
            const unsigned k = static_cast<unsigned>(r.below(4));
            const uint64_t repeat = r.below(100) < 29 ? 1 : 1 + r.below(150);
            v.push_back({c, repeat, in[k], k == 3 ? 1 + static_cast<uint32_t>(r.below(31)) : 1});
        }
        return v;
    }();
    const cycle_t chunk = static_cast<cycle_t>(state.range(0));
    for (auto _ : state) {
        box_core box(spec, clock_domain(2000000000ull), nullptr);
        const uint32_t ctl[4] = {0x08400813, 0x00403307, 0x0144ff09, 0x0240ff07};
        for (const register_def& r : box.spec().table.regs)
            if (r.role == reg_role::ctl) box.write_reg(r, ctl[r.index], ~0ull, 0);
        cycle_t boundary = chunk;
        for (const row& e : rows) {
            while (e.cycle >= boundary) {
                box.advance_to(boundary);
                boundary += chunk;
            }
            box.post_run(e.cycle, e.repeat, e.input, e.count);
        }
        box.advance_to(rows.back().cycle + 200);
        benchmark::DoNotOptimize(box.counter_value(0));
    }
    state.SetItemsProcessed(state.iterations() * kRows);
}
BENCHMARK(BM_R2pcieEventRows)->Arg(2000)->Unit(benchmark::kMillisecond);

// --- The machine's limits (docs/performance.md, "what bounds a replay here")

// Reading memory once, far beyond the caches (256 MiB): the bandwidth a
// replay's data could at most stream at. bytes_per_second.
void BM_MemoryRead(benchmark::State& state) {
    constexpr size_t kWords = (size_t{256} << 20) / sizeof(uint64_t);
    static const std::unique_ptr<uint64_t[]> buf = [] {
        std::unique_ptr<uint64_t[]> b(new uint64_t[kWords]);
        for (size_t i = 0; i < kWords; ++i) b[i] = i;  // (touched: no zero page)
        return b;
    }();
    for (auto _ : state) {
        uint64_t a = 0, b = 0, c = 0, d = 0;  // (four sums: the adds do not chain)
        for (size_t i = 0; i < kWords; i += 4) {
            a += buf[i];
            b += buf[i + 1];
            c += buf[i + 2];
            d += buf[i + 3];
        }
        benchmark::DoNotOptimize(a + b + c + d);
    }
    state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(kWords * sizeof(uint64_t)));
}
BENCHMARK(BM_MemoryRead)->Unit(benchmark::kMillisecond);

// Decoding the compact binary records (version 3, about 5 bytes a packet on
// this mix) into packet_records in batches of 4096, as the reading thread
// does, but on one core with the batch in its cache: the decoder's own cost.
void BM_DecodeCompactBatched(benchmark::State& state) {
    static const std::string data = binary_trace(make_packets(kRows));
    const trace::trace_context ctx;
    std::vector<trace::packet_record> batch(4096);
    for (auto _ : state) {
        std::istringstream in(data);
        trace::trace_reader rd(in, "bench", ctx);
        uint64_t n = 0, sum = 0;
        while (const size_t k = rd.read(batch.data(), batch.size())) {
            n += k;
            sum += batch[k - 1].cycle;
        }
        if (n != kRows) state.SkipWithError("the trace's records were not all read");
        benchmark::DoNotOptimize(sum);
    }
    state.SetItemsProcessed(state.iterations() * kRows);
    state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(data.size()));
}
BENCHMARK(BM_DecodeCompactBatched)->Unit(benchmark::kMillisecond);

// Records made on one core and read on another through batch_pipe (the
// replay's reading thread: batches of 4096, 8 ahead), with no decoding and
// no posting: only writing each record's fields there and reading them here.
// The cost of the hand-over itself, per record, which the replay pays on top
// of decoding and counting. Arg 0: the same on one core (the pipe's thread
// replaced by a loop), for comparison.
void BM_RecordHandover(benchmark::State& state) {
    constexpr size_t kBatch = 4096, kRecords = size_t{1} << 22;
    using batch = std::vector<trace::packet_record>;
    const bool two_cores = state.range(0) != 0;
    auto fill = [](batch& b, uint64_t first) {
        b.resize(kBatch);
        for (size_t i = 0; i < kBatch; ++i) {
            trace::packet_record& r = b[i];
            r.cycle = first + i;
            r.time = (first + i) * 1000;
            r.line = static_cast<unsigned>(first + i);
            r.port = static_cast<uint8_t>(i & 1);
            r.dir = (i & 2) ? qpi_dir::tx : qpi_dir::rx;
            r.packet.mc = static_cast<uint8_t>(i & 15);
            r.packet.flits = static_cast<uint16_t>(1 + (i & 7));
            r.run = {};
        }
    };
    auto consume = [](const batch& b, uint64_t& sum) {
        for (const trace::packet_record& r : b) sum += r.cycle + r.packet.flits + r.port + r.packet.mc;
    };
    for (auto _ : state) {
        uint64_t sum = 0;
        if (two_cores) {
            uint64_t made = 0;
            trace::batch_pipe<batch> pipe({[&](batch& b) -> size_t {
                                              if (made == kRecords) return 0;
                                              fill(b, made);
                                              made += kBatch;
                                              return kBatch;
                                          }},
                                          8);
            batch b;
            while (pipe.next(0, b)) consume(b, sum);
        } else {
            batch b;
            for (uint64_t made = 0; made < kRecords; made += kBatch) {
                fill(b, made);
                consume(b, sum);
            }
        }
        benchmark::DoNotOptimize(sum);
    }
    state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(kRecords));
}
BENCHMARK(BM_RecordHandover)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond)->UseRealTime();

// The part of a binary replay that no counting engine can save: a compact
// (version 3) trace decoded on the reading thread and taken in runs by this
// one, as the replay's post_due() takes them, each record's fields read and
// nothing posted. Per record, the floor of the replay's thread before it
// places or counts anything (docs/performance.md, "What 100x would take").
void BM_MergedCompactRecords(benchmark::State& state) {
    constexpr size_t kPackets = 2'000'000;
    static const std::string data = binary_trace(make_packets(kPackets));
    const trace::trace_context ctx;
    for (auto _ : state) {
        trace::trace_merger m;
        m.add(std::make_unique<std::istringstream>(data), "bench", ctx);
        m.use_reading_thread(4096, 8);
        uint64_t n = 0, sum = 0;
        for (trace::trace_merger::run r; (r = m.next_run(~time_ps{0})).n != 0;) {
            for (size_t i = 0; i < r.n; ++i) {
                const trace::packet_record& p = r.packets[i];
                sum += p.cycle + p.socket + p.port + static_cast<unsigned>(p.dir) + p.packet.flits + p.packet.mc;
            }
            n += r.n;
        }
        if (n != kPackets) state.SkipWithError("the trace's records were not all read");
        benchmark::DoNotOptimize(sum);
    }
    state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(kPackets));
}
BENCHMARK(BM_MergedCompactRecords)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
