// `denpex watch`: follows a running job's logs and reports as soon as the evidence allows.
//
// Contract. Files, directories (recursively, new files included) and stdin ("-") are followed with inotify
// (follow/watch_set.hpp; a 5-second fallback timeout only, no polling loop), each file from its kept offset
// (follow/file_tail.hpp): only new complete lines are fed into one open diagnosis (engine/live_diagnosis.hpp),
// and no line is kept. After each batch of new lines that matched a failure signature the Report is derived
// again and follow/watch_reporter.hpp decides what to say: a new initiator at once, the verdict when it changed.
// Human lines on stdout by default, JSON Lines with --json; warnings on stderr. --exec CMD runs once per new
// initiating event (cli/exec_hook.hpp). The final report is printed when stdin, the only input, ends, or on
// SIGINT/SIGTERM (read through a signalfd, so a signal never interrupts a half-written line). Exit codes are
// diagnose's (cli/exit_status.hpp), of the final report; a usage error prints one line and exits 2.
#pragma once

#include <string>
#include <vector>

namespace denpex::cli {

int watch_command(const std::vector<std::string>& args);

}  // namespace denpex::cli
