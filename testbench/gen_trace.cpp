// pmonsim-gen-trace: writes a synthetic QPI packet trace (the text format of
// docs/user-guide.md, or binary for an output named .bin) with a chosen class
// mix, link load, duration, burst length and seed. The output is
// deterministic for a seed (own generator, no std distributions).
#include <boost/program_options.hpp>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "version.h"
#include "splitmix.h"
#include "desc/qpi_packet.h"
#include "trace/trace_binary.h"

namespace po = boost::program_options;

namespace {

using rng = pmonsim::splitmix;

struct class_info {
    unsigned flits;  // typical size, for the load computation
    uint8_t mc;      // its MATCH0.MC code (binary output)
};
struct cls {
    std::string name;
    class_info info;
    unsigned weight;
};

const std::map<std::string, class_info> kClasses = {
    {"HOM0", {1, pmonsim::qpi_mc::hom0}}, {"HOM1", {1, pmonsim::qpi_mc::hom1}}, {"SNP", {1, pmonsim::qpi_mc::snp}},
    {"NDR", {1, pmonsim::qpi_mc::ndr}},   {"NCS", {1, pmonsim::qpi_mc::ncs}},   {"NCB", {9, pmonsim::qpi_mc::ncb}},
    {"DRS", {9, pmonsim::qpi_mc::drs}}};

// Response data states of DRS packets: the text's name, the binary code.
struct rds_state {
    const char* name;
    uint8_t code;
};
constexpr rds_state kStates[] = {{"M", 8}, {"E", 4}, {"S", 2}, {"F", 1}, {"I", 0}};
constexpr rds_state kNoState = {"", 0};

std::vector<cls> parse_mix(const std::string& mix) {
    std::vector<cls> out;
    std::stringstream ss(mix);
    std::string item;
    while (std::getline(ss, item, ',')) {
        const auto eq = item.find('=');
        const std::string name = item.substr(0, eq);
        auto it = kClasses.find(name);
        if (it == kClasses.end() || eq == std::string::npos)
            throw std::invalid_argument("--mix: '" + item + "' is not CLASS=WEIGHT with CLASS one of "
                                        "HOM0 HOM1 SNP NDR NCS NCB DRS");
        const unsigned w = static_cast<unsigned>(std::stoul(item.substr(eq + 1)));
        if (w) out.push_back({name, it->second, w});
    }
    if (out.empty()) throw std::invalid_argument("--mix selects no class");
    return out;
}

}  // namespace

int main(int argc, char** argv) {
    std::string mix = "DRS=35,NCB=10,SNP=20,HOM0=15,HOM1=10,NDR=8,NCS=2";
    std::string out_file = "-", dirs = "rx,tx";
    double load = 0.5;
    uint64_t packets = 0, cycles = 100000, seed = 1;
    unsigned ports = 2, sockets = 1, burst = 1;
    po::options_description opts("pmonsim-gen-trace options");
    opts.add_options()
        ("help,h", "show this help")
        ("version", "print the version and exit")
        ("mix", po::value(&mix)->default_value(mix), "class weights CLASS=W,...")
        ("load", po::value(&load)->default_value(load), "fraction of the 2 flit slots per QCLK used (0..1]")
        ("cycles", po::value(&cycles)->default_value(cycles), "duration in QCLK cycles")
        ("packets", po::value(&packets), "stop after this many packets instead")
        ("ports", po::value(&ports)->default_value(ports), "QPI ports")
        ("sockets", po::value(&sockets)->default_value(sockets), "sockets")
        ("dirs", po::value(&dirs)->default_value(dirs), "directions: rx, tx or rx,tx")
        ("burst", po::value(&burst)->default_value(burst),
         "packets per burst: each packet drawn is sent this many times on its link, "
         "max(1, floor(size / (2 x load))) cycles apart")
        ("seed", po::value(&seed)->default_value(seed), "random seed")
        ("output,o", po::value(&out_file)->default_value(out_file), "output file (- = stdout)");
    try {
        po::variables_map vm;
        po::store(po::command_line_parser(argc, argv).options(opts).positional({}).run(), vm);
        po::notify(vm);
        if (vm.count("version")) {
            std::cout << pmonsim::version_text("pmonsim-gen-trace");
            return 0;
        }
        if (vm.count("help")) {
            std::cout << "Usage: pmonsim-gen-trace [options]\nExample: pmonsim-gen-trace --mix DRS=1 --load 0.9 "
                         "--cycles 1000000 -o drs.csv\n\n" << opts;
            return 0;
        }
        const std::vector<cls> classes = parse_mix(mix);
        if (!(load > 0 && load <= 1)) throw std::invalid_argument("--load must be in (0, 1]");
        std::vector<std::string> dir_list;
        if (dirs == "rx" || dirs == "rx,tx") dir_list.push_back("rx");
        if (dirs == "tx" || dirs == "rx,tx") dir_list.push_back("tx");
        if (dir_list.empty()) throw std::invalid_argument("--dirs must be rx, tx or rx,tx");
        if (burst == 0) throw std::invalid_argument("--burst must be at least 1");
        if (sockets == 0 || sockets > 255 || ports == 0 || ports > 3)
            throw std::invalid_argument("--sockets must be 1-255 and --ports 1-3");
        const bool binary = out_file.size() > 4 && out_file.compare(out_file.size() - 4, 4, ".bin") == 0;
        std::ofstream file;
        if (out_file != "-") {
            file.open(out_file, std::ios::binary);
            if (!file) throw std::invalid_argument("cannot write " + out_file);
        }
        std::ostream& out = out_file == "-" ? std::cout : file;
        // Binary: version 3, each burst one record (the writer finds them).
        pmonsim::trace::trace_context ctx;
        ctx.sockets = sockets;
        ctx.qpi_ports = ports;
        std::unique_ptr<pmonsim::trace::binary_trace_writer> bin;
        if (binary)
            bin = std::make_unique<pmonsim::trace::binary_trace_writer>(out, pmonsim::trace::trace_kind::packets,
                                                                        pmonsim::trace::time_unit::cycles, ctx);
        unsigned total_weight = 0;
        double mean_flits = 0;
        for (const cls& c : classes) total_weight += c.weight;
        for (const cls& c : classes) mean_flits += c.info.flits * double(c.weight) / total_weight;
        // Mean gap between packet starts on one link direction, in 1/1000 cycle.
        const uint64_t gap_milli = static_cast<uint64_t>(mean_flits / (2.0 * load) * 1000.0 + 0.5);
        rng r{seed};
        if (!binary) {
            // The command that makes this file again (non-default layout options too).
            out << "# pmonsim-gen-trace --mix " << mix << " --load " << load << " --seed " << seed;
            if (packets) out << " --packets " << packets;
            else out << " --cycles " << cycles;
            if (ports != 2) out << " --ports " << ports;
            if (sockets != 1) out << " --sockets " << sockets;
            if (dirs != "rx,tx") out << " --dirs " << dirs;
            if (burst != 1) out << " --burst " << burst;
            out << "\n";
            out << "cycle,socket,port,dir,mc,opc,rds,dnid\n";
        }
        // A link's current burst: the packet drawn, and how many are still to send.
        struct link {
            uint64_t next_milli;
            unsigned left = 0;
            const cls* c = nullptr;
            unsigned opc = 0, dnid = 0;
            rds_state rds = kNoState;
        };
        std::vector<link> links(sockets * ports * dir_list.size());
        for (auto& l : links) l.next_milli = r.below(static_cast<uint32_t>(gap_milli * 2 + 1));
        uint64_t written = 0;
        std::string line;
        for (;;) {
            size_t best = 0;  // the link whose next packet is earliest (ties: lowest index)
            for (size_t i = 1; i < links.size(); ++i)
                if (links[i].next_milli < links[best].next_milli) best = i;
            const uint64_t cycle = links[best].next_milli / 1000;
            if ((packets && written >= packets) || (!packets && cycle >= cycles)) break;
            const unsigned dir = static_cast<unsigned>(best % dir_list.size());
            const unsigned port = static_cast<unsigned>((best / dir_list.size()) % ports);
            const unsigned socket = static_cast<unsigned>(best / (dir_list.size() * ports));
            link& l = links[best];
            if (l.left == 0) {  // a new packet (and burst)
                uint32_t pick = r.below(total_weight);
                l.c = &classes[0];
                for (const cls& k : classes) {
                    if (pick < k.weight) { l.c = &k; break; }
                    pick -= k.weight;
                }
                l.opc = l.c->name == "DRS" ? r.below(8) : r.below(16);
                l.rds = kNoState;
                if (l.c->name == "DRS" && l.opc < 3) l.rds = kStates[r.below(5)];
                l.dnid = r.below(8);
                l.left = burst;
            }
            if (bin) {
                pmonsim::trace::packet_record p;
                p.cycle = cycle;
                p.socket = static_cast<uint8_t>(socket);
                p.port = static_cast<uint8_t>(port);
                p.dir = dir_list[dir] == "tx" ? pmonsim::qpi_dir::tx : pmonsim::qpi_dir::rx;
                p.packet.mc = l.c->info.mc;
                p.packet.opc = static_cast<uint8_t>(l.opc);
                p.packet.rds = l.rds.code;
                p.packet.dnid = static_cast<uint8_t>(l.dnid);
                bin->write(p);
            } else {
                char buf[128];
                std::snprintf(buf, sizeof buf, "%llu,%u,%u,%s,%s,%u,%s,%u\n", static_cast<unsigned long long>(cycle),
                              socket, port, dir_list[dir].c_str(), l.c->name.c_str(), l.opc, l.rds.name, l.dnid);
                out << buf;
            }
            ++written;
            if (--l.left) {  // the next of the burst: its size at the load, in whole cycles
                l.next_milli += 1000 * std::max<uint64_t>(1, static_cast<uint64_t>(l.c->info.flits / (2.0 * load)));
            } else {
                l.next_milli += 1 + r.below(static_cast<uint32_t>(gap_milli * 2));
            }
        }
        if (bin) try {
                bin->flush();
            } catch (const std::runtime_error&) {  // the stream failed: as a text write that failed
                return 1;
            }
        return out ? 0 : 1;
    } catch (const std::exception& e) {
        std::cerr << "pmonsim-gen-trace: " << e.what() << "\n";
        return 2;
    }
}
