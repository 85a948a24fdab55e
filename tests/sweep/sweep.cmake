# Issue 20: pmonsim sweep (sweep/, docs/sweeps.md). The cases of sweep_cli.sh
# run on this machine; sweep_slurm starts a private one-node Slurm cluster
# (Debian's slurm-wlm and munge) and fails, saying why, when it cannot.
foreach(case manifest_errors shards resume failing commands)
  add_test(NAME sweep_${case}
           COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/sweep_cli.sh $<TARGET_FILE:pmonsim> ${PROJECT_SOURCE_DIR} ${case})
  set_tests_properties(sweep_${case} PROPERTIES TIMEOUT 180)
endforeach()
add_test(NAME sweep_slurm
         COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/slurm_sweep.sh $<TARGET_FILE:pmonsim> ${PROJECT_SOURCE_DIR})
set_tests_properties(sweep_slurm PROPERTIES TIMEOUT 180)
add_test(NAME sweep_version
         COMMAND ${CMAKE_COMMAND} "-DCOMMAND=$<TARGET_FILE:pmonsim>|sweep|--version" -DEXIT=0
                 "-DSTDOUT=^pmonsim sweep ${PROJECT_VERSION}[^\n]*\nSystemC [0-9]" -P ${CLI}/expect_exit.cmake)
# Unit tests of the parts (manifest, shards, results, JUnit XML).
add_executable(pmonsim_sweep_tests ${CMAKE_CURRENT_LIST_DIR}/test_sweep.cpp)
target_link_libraries(pmonsim_sweep_tests PRIVATE pmonsim_sweep GTest::gtest GTest::gtest_main)
target_compile_definitions(pmonsim_sweep_tests PRIVATE PMONSIM_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
gtest_discover_tests(pmonsim_sweep_tests TEST_PREFIX sweep_unit. DISCOVERY_TIMEOUT 60)
