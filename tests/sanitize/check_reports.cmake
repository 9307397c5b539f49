# cmake -DDIR=<build>/sanitizer-reports -P check_reports.cmake: fails, printing them, when ASan, LSan or UBSan wrote
# any report there (ASAN_OPTIONS / UBSAN_OPTIONS log_path, set on the sanitized tests by tests/CMakeLists.txt).
file(GLOB reports "${DIR}/*")
if(NOT reports)
  message(STATUS "no sanitizer report in ${DIR}")
  return()
endif()
list(LENGTH reports n)
foreach(r IN LISTS reports)
  file(READ "${r}" text)
  message("==== ${r}\n${text}")
endforeach()
message(FATAL_ERROR "${n} sanitizer report(s) in ${DIR}")
