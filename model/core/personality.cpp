#include "core/personality.h"

namespace pmonsim {

const char* to_string(cpu_model m) { return m == cpu_model::snb_ep ? "snb-ep" : "ivb-ep"; }

std::optional<cpu_model> parse_cpu_model(const std::string& s) {
    if (s == "snb-ep") return cpu_model::snb_ep;
    if (s == "ivb-ep") return cpu_model::ivb_ep;
    return std::nullopt;
}

}  // namespace pmonsim
