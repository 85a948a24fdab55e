# Runs COMMAND (program|arg|arg...) and compares its standard output with EXPECTED
# byte for byte. Used by the golden-output tests (cmake -P).
string(REPLACE "|" ";" COMMAND "${COMMAND}")  # arguments arrive |-separated
execute_process(COMMAND ${COMMAND} OUTPUT_VARIABLE out RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "command failed with status ${rc}: ${COMMAND}")
endif()
file(READ "${EXPECTED}" expected)
if(NOT out STREQUAL expected)
  file(WRITE "${EXPECTED}.actual" "${out}")
  message(FATAL_ERROR "output differs from ${EXPECTED}; the actual output is in "
                      "${EXPECTED}.actual (diff them; copy it over if the change is intended)")
endif()
