// Uncore discovery by PCI device ID (see topology.h).
#include "driver/topology.h"

#include "desc/box_spec.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <set>
#include <stdexcept>
#include <utility>

namespace pmonsim::driver {

namespace {

constexpr uint16_t intel = 0x8086;
constexpr uint8_t r2pcie_fn = 1;

// A PCI box's device on any CPU that has that unit (the registry's CPUs agree).
uint8_t device_of(box_kind kind, unsigned unit) {
    for (const cpu_desc& c : cpu_registry())
        if (const box_desc* b = c.box(kind); b && unit < b->pci.size())
            return static_cast<uint8_t>(b->pci[unit].device);
    throw std::out_of_range("no " + std::string(to_string(kind)) + " unit " + std::to_string(unit));
}

std::string hex4(uint16_t v) {
    char b[8];
    std::snprintf(b, sizeof b, "%04x", v);
    return b;
}

std::string bus_name(uint16_t domain, uint8_t bus) {
    char b[16];
    std::snprintf(b, sizeof b, "%04x:%02x", domain, bus);
    return b;
}

std::string dev_fn(uint8_t dev, uint8_t fn) { return "D" + std::to_string(dev) + ":F" + std::to_string(fn); }

// Whether `d` is one of the personality's uncore functions, at its place.
bool is_uncore_function(cpu_model cpu, const pci_device_info& d) {
    if (d.vendor != intel) return false;
    for (const box_desc& b : describe(cpu).boxes)
        if (pmon_function_per_unit(b.kind))
            for (const pci_unit& u : b.pci)
                if (d.addr.dev == u.device && d.addr.fn == u.fn && d.device == u.pmon_id) return true;
    if (d.addr.dev == device_of(box_kind::r2pcie, 0) && d.addr.fn == r2pcie_fn && d.device == r2pcie_device_id(cpu)) return true;
    for (unsigned p = 0; p < qpi_port_count(cpu); ++p)
        for (qpi_function f : {qpi_function::misc, qpi_function::pmon, qpi_function::filter})
            if (d.addr.dev == qpi_device_number(p) && d.addr.fn == static_cast<uint8_t>(f) &&
                d.device == qpi_device_id(cpu, p, f))
                return true;
    return false;
}

bool has_function(const std::vector<pci_device_info>& devices, const pci_address& a, uint16_t id) {
    return std::any_of(devices.begin(), devices.end(), [&](const pci_device_info& d) {
        return d.addr == a && d.vendor == intel && d.device == id;
    });
}

}  // namespace

unsigned qpi_port_count(cpu_model cpu) { return describe(cpu).units(box_kind::qpi); }

uint16_t r2pcie_device_id(cpu_model cpu) {
    const box_desc* r = describe(cpu).box(box_kind::r2pcie);
    return r && !r->pci.empty() ? r->pci[0].pmon_id : 0;
}

uint16_t qpi_device_id(cpu_model cpu, unsigned port, qpi_function f) {
    const box_desc* q = describe(cpu).box(box_kind::qpi);
    if (!q || port >= q->pci.size())
        throw std::out_of_range("no QPI port " + std::to_string(port) + " on " + to_string(cpu));
    const pci_unit& u = q->pci[port];
    switch (f) {
        case qpi_function::misc: return u.misc_id;
        case qpi_function::pmon: return u.pmon_id;
        case qpi_function::filter: return u.filter_id;
    }
    throw std::out_of_range("no such QPI function");
}

uint8_t qpi_device_number(unsigned port) { return device_of(box_kind::qpi, port); }

pci_address r2pcie_address(const socket_info& s) { return {s.domain, s.bus, device_of(box_kind::r2pcie, 0), r2pcie_fn}; }

pci_address qpi_address(const socket_info& s, unsigned port, qpi_function f) {
    return {s.domain, s.bus, qpi_device_number(port), static_cast<uint8_t>(f)};
}

pci_address pmon_address(const socket_info& s, cpu_model cpu, box_kind kind, unsigned unit) {
    const pci_unit& u = describe(cpu).need(kind).pci.at(unit);
    return {s.domain, s.bus, static_cast<uint8_t>(u.device), static_cast<uint8_t>(u.fn)};
}

bool socket_info::has(box_kind kind, unsigned unit) const {
    return std::find(pci_units.begin(), pci_units.end(), std::pair{kind, unit}) != pci_units.end();
}

// A CPU whose PMON is all MSRs (Nehalem/Westmere): a socket per CPU package.
static topology discover_msr_only(target& t, topology topo) {
    std::map<unsigned, unsigned> first_cpu;  // package -> its lowest CPU
    for (unsigned c = 0; c < topo.cpus; ++c) {
        const unsigned p = t.package_of(c);
        if (p != hw_target::no_package && !first_cpu.count(p)) first_cpu[p] = c;
    }
    if (first_cpu.empty())
        throw hw_error("no CPU package found (no CPU has a topology/physical_package_id): the uncore MSRs of " +
                       std::string(to_string(topo.cpu)) + " are reached through a CPU of each package");
    for (const auto& [package, cpu] : first_cpu) {
        if (package != topo.sockets.size())
            throw hw_error("CPU packages are not numbered 0.." + std::to_string(first_cpu.size() - 1) +
                           " (package " + std::to_string(package) + "): cannot number the sockets");
        socket_info s;
        s.socket = package;
        s.first_cpu = cpu;
        topo.sockets.push_back(s);
    }
    return topo;
}

topology discover(target& t, cpu_model cpu) {
    topology topo;
    topo.cpu = cpu;
    topo.cpus = t.cpu_count();
    bool pci_boxes = false;
    for (const box_desc& b : describe(cpu).boxes) pci_boxes |= !b.pci.empty();
    if (!pci_boxes) return discover_msr_only(t, topo);
    const std::vector<pci_device_info> devices = t.pci_devices();

    // The uncore buses, in (domain, bus) order, and what is on each.
    std::map<std::pair<uint16_t, uint8_t>, socket_info> buses;
    for (const pci_device_info& d : devices) {
        if (!is_uncore_function(cpu, d)) continue;
        socket_info& s = buses[{d.addr.domain, d.addr.bus}];
        s.domain = d.addr.domain;
        s.bus = d.addr.bus;
        if (d.addr.dev == device_of(box_kind::r2pcie, 0) && d.addr.fn == r2pcie_fn) s.has_r2pcie = true;
    }
    for (auto& [key, s] : buses) {
        for (unsigned p = 0; p < qpi_port_count(cpu); ++p) {
            if (has_function(devices, qpi_address(s, p, qpi_function::pmon), qpi_device_id(cpu, p, qpi_function::pmon)))
                s.qpi_ports.push_back(p);
            if (has_function(devices, qpi_address(s, p, qpi_function::filter),
                             qpi_device_id(cpu, p, qpi_function::filter)))
                s.qpi_filters.push_back(p);
            if (has_function(devices, qpi_address(s, p, qpi_function::misc), qpi_device_id(cpu, p, qpi_function::misc)))
                s.qpi_misc.push_back(p);
        }
        s.has_rate_status = !s.qpi_misc.empty();
        for (const box_desc& b : describe(cpu).boxes)
            if (pmon_function_per_unit(b.kind))
                for (unsigned u = 0; u < b.pci.size(); ++u)
                    if (has_function(devices, pmon_address(s, cpu, b.kind, u), b.pci[u].pmon_id))
                        s.pci_units.push_back({b.kind, u});
    }

    if (buses.empty()) {
        std::string msg = "no uncore PCI bus found: none of the " + std::to_string(devices.size()) +
                          " PCI functions is an uncore function of " + to_string(cpu) + " (R2PCIe 8086:" +
                          hex4(r2pcie_device_id(cpu)) + " at D19:F1, QPI misc 8086:" +
                          hex4(qpi_device_id(cpu, 0, qpi_function::misc)) + " at D8:F0, ...)";
        const cpu_desc* other = nullptr;
        for (const cpu_desc& c : cpu_registry())
            if (c.key != cpu && std::any_of(devices.begin(), devices.end(), [&](const pci_device_info& d) {
                    return is_uncore_function(c.key, d);
                }))
                other = &c;
        if (other)
            msg += "; the machine has " + std::string(other->name) + " uncore functions: the CPU is " +
                   other->name + ", not " + to_string(cpu);
        else
            msg += "; a virtual machine does not show the uncore, and some BIOSes hide the uncore PCI "
                   "devices: enable their export in the BIOS";
        throw hw_error(msg);
    }

    for (auto& [key, s] : buses) {
        s.socket = static_cast<unsigned>(topo.sockets.size());
        if (s.qpi_ports.empty()) {
            std::string where;
            for (unsigned p = 0; p < qpi_port_count(cpu); ++p)
                where += std::string(p ? ", " : "") + "8086:" + hex4(qpi_device_id(cpu, p, qpi_function::pmon)) +
                         " at " + dev_fn(qpi_device_number(p), static_cast<uint8_t>(qpi_function::pmon));
            throw hw_error("socket " + std::to_string(s.socket) + " (uncore bus " + bus_name(s.domain, s.bus) +
                           ") has no QPI PMON function (" + where +
                           "): the BIOS hides the QPI performance monitoring devices; enable the export of "
                           "the QPI performance monitoring devices in the BIOS");
        }
        topo.sockets.push_back(s);
    }

    std::set<unsigned> packages;
    for (unsigned c = 0; c < topo.cpus; ++c) {
        const unsigned p = t.package_of(c);
        if (p == hw_target::no_package) continue;
        packages.insert(p);
        if (p < topo.sockets.size() && topo.sockets[p].first_cpu == socket_info::no_cpu)
            topo.sockets[p].first_cpu = c;
    }
    if (packages.size() > topo.sockets.size())
        throw hw_error("the CPUs are in " + std::to_string(packages.size()) + " packages but only " +
                       std::to_string(topo.sockets.size()) +
                       (topo.sockets.size() == 1 ? " uncore PCI bus was" : " uncore PCI buses were") + " found: the sockets cannot be matched "
                       "with their uncore; some BIOSes hide the uncore PCI devices: enable their export in the BIOS");
    // The MSR boxes of several units (the caching agents, one per core): a
    // unit whose BOX_CTL its socket's CPU can read (an absent one's is #GP).
    for (socket_info& s : topo.sockets)
        for (const box_desc& b : describe(cpu).boxes)
            for (unsigned u = 0; numbered(b.kind) && s.first_cpu != socket_info::no_cpu && u < b.units; ++u) {
                const register_table& tab = spec_for(b.kind, cpu, u).table;
                const register_def* ctl = nullptr;
                for (const register_def& r : tab.regs)
                    if (r.role == reg_role::box_ctl) ctl = &r;
                uint64_t v = 0;
                if (!tab.msr_space || !ctl || !t.msr_read(s.first_cpu, ctl->offset, v)) break;
                s.msr_units.push_back({b.kind, u});
            }
    return topo;
}

}  // namespace pmonsim::driver
