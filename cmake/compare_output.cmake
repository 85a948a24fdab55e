# Runs a program and compares its standard output with a checked-in file, byte
# for byte. Used by the golden-output tests and the generated docs.
#
#   cmake -DCOMMAND=<program>[|arg|arg...] -DEXPECTED=<file> [-DACTUAL=<file>]
#         [-DUPDATE=ON] -P compare_output.cmake
#
# COMMAND   the program and its arguments, separated by | (a ;-list would be
#           split by the -D on the command line)
# EXPECTED  the checked-in output
# ACTUAL    where the fresh output goes (default: <name of EXPECTED>.actual in
#           the current directory); left in place for diffing on failure
# UPDATE    when ON, copy the fresh output over EXPECTED instead of comparing
foreach(var COMMAND EXPECTED)
  if(NOT DEFINED ${var} OR "${${var}}" STREQUAL "")
    message(FATAL_ERROR "compare_output.cmake: pass -D${var}=...")
  endif()
endforeach()
string(REPLACE "|" ";" COMMAND "${COMMAND}")
string(REPLACE ";" " " shown "${COMMAND}")
if(NOT DEFINED ACTUAL OR "${ACTUAL}" STREQUAL "")
  get_filename_component(name "${EXPECTED}" NAME)
  set(ACTUAL "${CMAKE_CURRENT_BINARY_DIR}/${name}.actual")
endif()

execute_process(COMMAND ${COMMAND} OUTPUT_FILE "${ACTUAL}" ERROR_VARIABLE stderr RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${shown} failed (${rc}):\n${stderr}")
endif()

if(UPDATE)
  configure_file("${ACTUAL}" "${EXPECTED}" COPYONLY)
  message(STATUS "Wrote ${EXPECTED}")
  return()
endif()

execute_process(COMMAND "${CMAKE_COMMAND}" -E compare_files "${ACTUAL}" "${EXPECTED}"
                RESULT_VARIABLE differ)
if(NOT differ EQUAL 0)
  message(FATAL_ERROR
    "${EXPECTED} differs from what `${shown}` prints now.\n"
    "See the differences with:\n  diff -u \"${EXPECTED}\" \"${ACTUAL}\"\n"
    "If the change is intended, copy the new output over the file and commit it:\n"
    "  cp \"${ACTUAL}\" \"${EXPECTED}\"")
endif()
message(STATUS "${EXPECTED} matches")
