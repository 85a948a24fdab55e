// What every tool prints for --version: the project's version, the commit it
// was built from when built from a clone (git describe), and the SystemC
// version it was built against.
#pragma once
#include <string>

namespace pmonsim {

// "pmonsim 0.1.0 (git 8c223d4-dirty)\nSystemC 2.3.4-Accellera\n": the tool's
// name first, as GNU tools print it.
std::string version_text(const std::string& tool);

}  // namespace pmonsim
