# Debian packages with CPack: `cpack -G DEB` (or just `cpack`) in the build
# folder writes two packages:
#
#   pmonsim         the tools (pmonsim, pmon-stat, pmonsim-gen-trace,
#                   pmonsim-serve), the preload library, and everything else the
#                   build installs outside the dev component (man pages, shell
#                   completion), the documentation and the example traces;
#   libpmonsim-dev  the static libraries pmonsim, pmonsim_core, pmonsim_desc and
#                   pmonsim_driver, their headers, the CMake package and pmonsim.pc
#                   (the install rules of model/ and driver/, component "dev").
#
# The tools' dependencies are computed by dpkg-shlibdeps from what the binaries
# link. The dev package holds no shared object, so there is nothing for
# dpkg-shlibdeps to read: its dependencies are the Debian packages that own,
# on the building machine, the SystemC headers its headers include and the
# pkg-config its CMake package and pmonsim.pc use.
#
# The package installs under /usr with the library directory the build was
# configured with: configure with -DCMAKE_INSTALL_PREFIX=/usr for Debian's
# multiarch one (lib/<triplet>); the default prefix /usr/local gives lib/.
# Included at the end of the top-level CMakeLists.txt, after every install rule.

# --- Documentation and examples (a source install gets them too) ------------
install(FILES ${PROJECT_SOURCE_DIR}/README.md DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR}/docs
        FILES_MATCHING PATTERN "*.md" PATTERN "*.png")
install(DIRECTORY ${PROJECT_SOURCE_DIR}/traces/ DESTINATION ${CMAKE_INSTALL_DOCDIR}/examples)

# --- What Debian wants in every package: copyright and changelog.Debian.gz ---
# Who built it and when: the last commit of the source tree when there is one.
# The years of the copyright line are those of the commits.
set(pmonsim_deb_author "")
set(pmonsim_deb_date "")
set(pmonsim_deb_years "")
find_package(Git QUIET)
if(GIT_FOUND AND EXISTS ${PROJECT_SOURCE_DIR}/.git)
  execute_process(COMMAND ${GIT_EXECUTABLE} -C ${PROJECT_SOURCE_DIR} log -1 "--format=%an <%ae>"
                  OUTPUT_VARIABLE pmonsim_deb_author OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  execute_process(COMMAND ${GIT_EXECUTABLE} -C ${PROJECT_SOURCE_DIR} log -1 --format=%aD
                  OUTPUT_VARIABLE pmonsim_deb_date OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  execute_process(COMMAND ${GIT_EXECUTABLE} -C ${PROJECT_SOURCE_DIR} log --format=%ad --date=format:%Y
                  OUTPUT_VARIABLE years OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  string(REPLACE "\n" ";" years "${years}")
  if(years)
    list(SORT years)
    list(GET years 0 first)
    list(GET years -1 last)
    set(pmonsim_deb_years "${first} ")
    if(NOT first STREQUAL last)
      set(pmonsim_deb_years "${first}-${last} ")
    endif()
  endif()
endif()
if(NOT pmonsim_deb_author)
  set(pmonsim_deb_author "pmonsim maintainers <pmonsim@invalid>")
endif()
if(NOT pmonsim_deb_date)
  string(TIMESTAMP pmonsim_deb_date "%a, %d %b %Y %H:%M:%S +0000" UTC)
endif()
set(PMONSIM_DEB_MAINTAINER "${pmonsim_deb_author}" CACHE STRING
    "Maintainer field of the Debian packages (default: the author of the last commit)")

set(pmonsim_deb_dir ${CMAKE_CURRENT_BINARY_DIR}/debian)
file(MAKE_DIRECTORY ${pmonsim_deb_dir})
file(WRITE ${pmonsim_deb_dir}/copyright
"pmonsim ${PROJECT_VERSION}: a cycle-level SystemC model of the uncore performance
monitoring (PMON) boxes of Intel Xeon processors, with its tools.

Copyright ${pmonsim_deb_years}the authors of pmonsim, as recorded in the history of
its source repository.

Licence: none stated. The pmonsim source repository holds no licence file and
no licence notice, and this file does not add one.

The package contains only programs built from the pmonsim sources, and the
documents and example traces of its repository: no third-party source. The
programs use shared libraries of other Debian packages (SystemC, Boost,
Capstone, zlib, the C and C++ runtime), which carry their own copyright files.
")
file(WRITE ${pmonsim_deb_dir}/changelog.Debian
"pmonsim (${PROJECT_VERSION}-1) unstable; urgency=medium

  * Built with CPack from the pmonsim source tree.

 -- ${PMONSIM_DEB_MAINTAINER}  ${pmonsim_deb_date}
")
find_program(PMONSIM_GZIP gzip)
if(PMONSIM_GZIP)
  # -n: no name or time stamp in the header, so the same text gives the same bytes.
  execute_process(COMMAND ${PMONSIM_GZIP} -9nf ${pmonsim_deb_dir}/changelog.Debian)
endif()
# Components "deb-tools" and "deb-dev": only in the packages, never in a plain
# `cmake --install`.
foreach(pkg pmonsim libpmonsim-dev)
  if(pkg STREQUAL "pmonsim")
    set(component deb-tools)
  else()
    set(component deb-dev)
  endif()
  install(FILES ${pmonsim_deb_dir}/copyright ${pmonsim_deb_dir}/changelog.Debian.gz
          DESTINATION ${CMAKE_INSTALL_DATAROOTDIR}/doc/${pkg}
          COMPONENT ${component} EXCLUDE_FROM_ALL)
endforeach()

# --- The dev package's dependencies: who owns the SystemC headers and pkg-config
set(pmonsim_dev_depends "")
find_program(PMONSIM_DPKG_QUERY dpkg-query)
if(PMONSIM_DPKG_QUERY)
  if(SystemCLanguage_FOUND)
    get_target_property(pmonsim_systemc_includes SystemC::systemc INTERFACE_INCLUDE_DIRECTORIES)
  else()
    set(pmonsim_systemc_includes ${SYSTEMC_INCLUDE_DIRS})
  endif()
  find_file(PMONSIM_SYSTEMC_HEADER systemc.h HINTS ${pmonsim_systemc_includes})
  foreach(file ${PMONSIM_SYSTEMC_HEADER} ${PKG_CONFIG_EXECUTABLE})
    execute_process(COMMAND ${PMONSIM_DPKG_QUERY} -S ${file}
                    OUTPUT_VARIABLE owner RESULT_VARIABLE rc ERROR_QUIET)
    # "libsystemc-dev:amd64: /usr/include/systemc.h": the package, without its architecture.
    if(rc EQUAL 0 AND owner MATCHES "^([^:, ]+)")
      list(APPEND pmonsim_dev_depends ${CMAKE_MATCH_1})
    else()
      message(STATUS "libpmonsim-dev: no Debian package owns ${file}; not a dependency")
    endif()
  endforeach()
endif()
list(REMOVE_DUPLICATES pmonsim_dev_depends)
list(JOIN pmonsim_dev_depends ", " pmonsim_dev_depends)

# --- CPack ---------------------------------------------------------------------
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME pmonsim)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "${PMONSIM_DEB_MAINTAINER}")
set(CPACK_DEBIAN_PACKAGE_RELEASE 1)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_INSTALL_DEFAULT_DIRECTORY_PERMISSIONS
    OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE WORLD_READ WORLD_EXECUTE)

# One package per group; every install component is in one of the two.
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_GROUPING ONE_PER_GROUP)
get_cmake_property(CPACK_COMPONENTS_ALL COMPONENTS)
foreach(component ${CPACK_COMPONENTS_ALL})
  string(TOUPPER ${component} upper)
  if(component MATCHES "^(dev|deb-dev)$")
    set(CPACK_COMPONENT_${upper}_GROUP dev)
  else()
    set(CPACK_COMPONENT_${upper}_GROUP tools)
  endif()
endforeach()

set(CPACK_DEBIAN_TOOLS_PACKAGE_NAME pmonsim)
set(CPACK_DEBIAN_TOOLS_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_TOOLS_DESCRIPTION
"cycle-level model of Intel Xeon uncore performance counters
pmonsim models the uncore performance-monitoring (PMON) boxes of the
Xeon E5-2600 v1/v2 (UBox, R2PCIe, QPI ports with their packet filter) and
the Xeon 5500/5600 uncore PMU, register for register, and counts what
replayed QPI packet and event traces make them count.
.
This package holds the tools: pmonsim (replays traces, runs msr-tools and
setpci scripts, reports every counter, writes GTKWave waveforms), pmon-stat
(perf stat for these boxes, on the model or on a real machine),
pmonsim-gen-trace (synthetic traces) and pmonsim exec/serve with its preload
library (unmodified profilers such as PCM, likwid or perf run against the
model), with the documentation and example traces.")

set(CPACK_DEBIAN_DEV_PACKAGE_NAME libpmonsim-dev)
set(CPACK_DEBIAN_DEV_PACKAGE_SECTION libdevel)
set(CPACK_DEBIAN_DEV_PACKAGE_DEPENDS "${pmonsim_dev_depends}")
set(CPACK_DEBIAN_DEV_DESCRIPTION
"SystemC model of Intel Xeon uncore performance counters (development)
The pmonsim libraries as static archives with their headers, a CMake package
(find_package(pmonsim): pmonsim::pmonsim, pmonsim::core, pmonsim::desc,
pmonsim::driver) and a pkg-config file (pmonsim.pc).
.
pmonsim::pmonsim puts the uncore PMON boxes of a socket into a SystemC/TLM-2.0
platform. pmonsim::driver is the layer profilers are written against once:
topology discovery, event specifications, counter scheduling and PMON sessions
on a target that is either the model or a real machine through /dev/cpu/N/msr
and sysfs; on a real machine it needs neither SystemC nor the model.")

include(CPack)

# The packages built, checked, unpacked and run, and lintian on them
# (tests/install/package_deb.sh; skipped without dpkg-dev or lintian). Also in
# the sanitizer build (its packages are never shipped, but they are made,
# unpacked and run the same way); not in the fuzzing build, which builds the
# harnesses alone.
if(PMONSIM_BUILD_TESTS AND NOT PMONSIM_FUZZ)
  add_test(NAME package_deb
           COMMAND bash ${PROJECT_SOURCE_DIR}/tests/install/package_deb.sh ${CMAKE_CPACK_COMMAND}
                   ${PROJECT_SOURCE_DIR} ${PROJECT_BINARY_DIR} ${PROJECT_VERSION})
  set_tests_properties(package_deb PROPERTIES TIMEOUT 300 SKIP_RETURN_CODE 77
                       RESOURCE_LOCK cmake_install_of_the_build)  # (see tests/CMakeLists.txt)
endif()
