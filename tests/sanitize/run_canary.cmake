# cmake -DCANARY=<exe> -DDIR=<scratch dir> -DASAN_OPTIONS=... -DUBSAN_OPTIONS=... -P run_canary.cmake
# Runs the canary once per kind of defect, with the suite's sanitizer options but log_path in DIR, and fails unless
# each run aborts and leaves a report that names the defect.
foreach(mode_and_text IN ITEMS "ubsan|runtime error: signed integer overflow" "asan|heap-use-after-free"
                               "leak|detected memory leaks")
  string(REPLACE "|" ";" parts "${mode_and_text}")
  list(GET parts 0 mode)
  list(GET parts 1 text)
  file(REMOVE_RECURSE "${DIR}/${mode}")
  file(MAKE_DIRECTORY "${DIR}/${mode}")
  set(ENV{ASAN_OPTIONS} "${ASAN_OPTIONS}:log_path=${DIR}/${mode}/asan")
  set(ENV{UBSAN_OPTIONS} "${UBSAN_OPTIONS}:log_path=${DIR}/${mode}/ubsan")
  execute_process(COMMAND "${CANARY}" ${mode} RESULT_VARIABLE rc OUTPUT_QUIET ERROR_QUIET)
  file(GLOB reports "${DIR}/${mode}/*")
  set(all "")
  foreach(r IN LISTS reports)
    file(READ "${r}" t)
    string(APPEND all "${t}")
  endforeach()
  if(rc EQUAL 0 OR NOT all MATCHES "${text}")
    message(FATAL_ERROR "canary ${mode}: exit '${rc}', report files [${reports}]; expected an abort and a report "
                        "with '${text}':\n${all}")
  endif()
  message(STATUS "canary ${mode}: exit '${rc}', reported '${text}' in ${reports}")
endforeach()
