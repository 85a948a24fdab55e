// CPU personalities modelled: Xeon E5-2600 (SNB-EP, manual 327043-001) and
// Xeon E5-2600 v2 (IVB-EP, manual 329468-002). Everything that differs
// between them lives in per-personality table data; this header only names them.
#pragma once
#include <optional>
#include <string>

namespace pmonsim {

enum class cpu_model { snb_ep, ivb_ep };

const char* to_string(cpu_model m);
std::optional<cpu_model> parse_cpu_model(const std::string& s);

}  // namespace pmonsim
