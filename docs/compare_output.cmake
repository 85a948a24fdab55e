# Runs a documentation generator and compares its standard output with a
# checked-in file, byte for byte (cmake -E compare_files).
#
#   cmake -DGENERATOR=<program> -DEXPECTED=<file> [-DACTUAL=<scratch file>]
#         [-DUPDATE=ON] -P compare_output.cmake
#
# GENERATOR  the program to run (no arguments; writes the document to stdout)
# EXPECTED   the checked-in document, e.g. docs/registers.md
# ACTUAL     where to keep the fresh output (default: EXPECTED + ".generated"
#            in the current directory); left in place for diffing on failure
# UPDATE     when ON, copy the fresh output over EXPECTED instead of comparing

foreach(var GENERATOR EXPECTED)
  if(NOT DEFINED ${var} OR "${${var}}" STREQUAL "")
    message(FATAL_ERROR "compare_output.cmake: pass -D${var}=...")
  endif()
endforeach()
if(NOT DEFINED ACTUAL OR "${ACTUAL}" STREQUAL "")
  get_filename_component(_name "${EXPECTED}" NAME)
  set(ACTUAL "${CMAKE_CURRENT_BINARY_DIR}/${_name}.generated")
endif()

execute_process(
  COMMAND "${GENERATOR}"
  OUTPUT_FILE "${ACTUAL}"
  ERROR_VARIABLE _stderr
  RESULT_VARIABLE _rc)
if(NOT _rc EQUAL 0)
  message(FATAL_ERROR "${GENERATOR} failed (${_rc}):\n${_stderr}")
endif()

if(UPDATE)
  configure_file("${ACTUAL}" "${EXPECTED}" COPYONLY)
  message(STATUS "Wrote ${EXPECTED}")
  return()
endif()

if(NOT EXISTS "${EXPECTED}")
  message(FATAL_ERROR "${EXPECTED} does not exist. Create it with:\n"
    "  \"${GENERATOR}\" > \"${EXPECTED}\"")
endif()

execute_process(
  COMMAND "${CMAKE_COMMAND}" -E compare_files "${ACTUAL}" "${EXPECTED}"
  RESULT_VARIABLE _differ)
if(NOT _differ EQUAL 0)
  message(FATAL_ERROR
    "${EXPECTED} is out of date: it differs from what ${GENERATOR} prints now.\n"
    "See the differences with:\n"
    "  diff -u \"${EXPECTED}\" \"${ACTUAL}\"\n"
    "If the change of the tables or catalogs is intended, regenerate the file with:\n"
    "  \"${GENERATOR}\" > \"${EXPECTED}\"\n"
    "(or: cmake --build <build dir> --target pmonsim_update_register_reference)\n"
    "and commit it together with the change.")
endif()
message(STATUS "${EXPECTED} matches the generator's output")
