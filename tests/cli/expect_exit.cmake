# Runs a command and checks its exit status and what it printed.
#   cmake -DCOMMAND=<program>|<args...> -DEXIT=<status> [-DSTDERR=<regex>]
#         [-DSTDOUT=<regex>] [-DNO_STDOUT=ON] [-DSTDIN=<file>] -P expect_exit.cmake
string(REPLACE "|" ";" COMMAND "${COMMAND}")
if(DEFINED STDIN)
  execute_process(COMMAND ${COMMAND} INPUT_FILE "${STDIN}" OUTPUT_VARIABLE out ERROR_VARIABLE err
                  RESULT_VARIABLE rc)
else()
  execute_process(COMMAND ${COMMAND} OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
endif()
if(NOT rc STREQUAL "${EXIT}")
  message(FATAL_ERROR "exit status ${rc}, expected ${EXIT}\nstdout:\n${out}\nstderr:\n${err}")
endif()
if(DEFINED STDERR AND NOT err MATCHES "${STDERR}")
  message(FATAL_ERROR "stderr does not match '${STDERR}':\n${err}")
endif()
if(DEFINED STDOUT AND NOT out MATCHES "${STDOUT}")
  message(FATAL_ERROR "stdout does not match '${STDOUT}':\n${out}")
endif()
if(NO_STDOUT AND NOT out STREQUAL "")
  message(FATAL_ERROR "expected no output (nothing may run), got:\n${out}")
endif()
