// libFuzzer harness: the input as a register-access script (--script and, in
// the second pass, --program rules). Bad input is script_error.
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>

#include "driver/script/script.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    for (const bool only_writes : {false, true}) {
        pmonsim::driver::script_options o;
        o.only_writes = only_writes;
        std::istringstream in(text);
        try {
            (void)pmonsim::driver::parse_script(in, "fuzz.sh", o);
        } catch (const pmonsim::driver::script_error&) {
        }
    }
    return 0;
}
