#include "version.h"

#include "git_version.h"  // (generated: PMONSIM_GIT_DESCRIBE)

// PMONSIM_VERSION (the project() version) and PMONSIM_SYSTEMC_VERSION come from CMake.

namespace pmonsim {

std::string version_text(const std::string& tool) {
    std::string s = tool + " " PMONSIM_VERSION;
    if (*PMONSIM_GIT_DESCRIBE) s += " (git " PMONSIM_GIT_DESCRIBE ")";
    s += "\nSystemC " PMONSIM_SYSTEMC_VERSION "\n";
    return s;
}

}  // namespace pmonsim
