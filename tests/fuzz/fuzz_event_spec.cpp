// libFuzzer harness: the input as a pmon-stat event (catalog name or Linux
// perf syntax), on every CPU of the registry with 1-3 QPI ports. Bad input is
// event_error.
#include <cstddef>
#include <cstdint>
#include <string>

#include "driver/event_spec.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    for (const pmonsim::cpu_desc& cpu : pmonsim::cpu_registry())
        for (unsigned ports = 1; ports <= 3; ++ports) {
            try {
                (void)pmonsim::driver::parse_event(text, cpu.key, ports);
            } catch (const pmonsim::driver::event_error&) {
            }
        }
    return 0;
}
