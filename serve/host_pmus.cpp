#include "serve/host_pmus.h"

#include <dirent.h>
#include <stdlib.h>

#include <algorithm>
#include <climits>
#include <vector>

namespace pmonsim::serve {

std::string hidden_host_pmus(const std::string& devices) {
    std::vector<std::string> paths;
    if (DIR* d = ::opendir(devices.c_str())) {
        while (const dirent* e = ::readdir(d)) {
            const std::string name = e->d_name;
            // (The core and uncore PMUs' paths are served already: interpose/paths.cpp.)
            if (name == "." || name == ".." || name == "cpu" || name.rfind("uncore_", 0) == 0) continue;
            if (std::any_of(kernel_pmus.begin(), kernel_pmus.end(), [&](const auto& k) { return name == k.name; }))
                continue;
            char real[PATH_MAX];
            if (::realpath((devices + "/" + name).c_str(), real)) paths.emplace_back(real);
        }
        ::closedir(d);
    }
    std::sort(paths.begin(), paths.end());  // (readdir's order is the file system's)
    paths.erase(std::unique(paths.begin(), paths.end()), paths.end());
    std::string out;
    for (const std::string& p : paths) out += p + "\n";
    return out;
}

}  // namespace pmonsim::serve
