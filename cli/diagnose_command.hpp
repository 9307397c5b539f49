// `denpex diagnose`: options in, a report out (text, --json or --sarif), with progress on a terminal, the
// local history's "seen before", and --save.
//
// Contract. Exit codes are cli/exit_status.hpp's (0 decided, 1 nothing found, 2 usage error, 3 undetermined).
// The report goes to stdout; warnings (inputs not read, history problems) and the progress line go to stderr.
// The progress line is drawn only when stderr is a terminal and --quiet is not given, and is cleared before
// anything else is written. The history (history/history_store.hpp) is consulted when it exists and written with
// --save; whatever is wrong with it is a warning, never a failed diagnosis.
#pragma once

#include <string>
#include <vector>

namespace denpex::cli {

constexpr const char* kVersion = "0.1.0";

int diagnose_command(const std::vector<std::string>& args);

}  // namespace denpex::cli
