# Issue 20: pmonsim sweep (sweep/, docs/sweeps.md). The cases of sweep_cli.sh
# run on this machine; sweep_slurm starts a private one-node Slurm cluster
# (Debian's slurm-wlm and munge) and fails, saying why, when it cannot.
foreach(case manifest_errors shards resume failing)
  add_test(NAME sweep_${case}
           COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/sweep_cli.sh $<TARGET_FILE:pmonsim> ${PROJECT_SOURCE_DIR} ${case})
  set_tests_properties(sweep_${case} PROPERTIES TIMEOUT 180)
endforeach()
add_test(NAME sweep_slurm
         COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/slurm_sweep.sh $<TARGET_FILE:pmonsim> ${PROJECT_SOURCE_DIR})
set_tests_properties(sweep_slurm PROPERTIES TIMEOUT 180)
