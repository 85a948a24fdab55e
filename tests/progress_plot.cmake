# Issue 15, items 5 and 6: the replay's status line (testbench/progress.h) and
# pmon-stat --plot (testbench/plot.h). Both need python3 (to read the status
# lines and the SVG); the plots need gnuplot (Debian's gnuplot-nox).
add_test(NAME cli_progress_line
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/cli/progress.sh $<TARGET_FILE:pmonsim> $<TARGET_FILE:pmon-stat>
                 $<TARGET_FILE:pmonsim-gen-trace>)
set_tests_properties(cli_progress_line PROPERTIES TIMEOUT 600)
add_test(NAME cli_pmon_stat_plot
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/cli/plot.sh $<TARGET_FILE:pmon-stat> ${PROJECT_SOURCE_DIR}/traces)
set_tests_properties(cli_pmon_stat_plot PROPERTIES TIMEOUT 300)
