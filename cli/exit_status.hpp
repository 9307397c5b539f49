// The exit status of `denpex diagnose`: what a script can branch on.
//
// Contract. Four distinct codes, documented in `denpex diagnose --help` and the README:
//   0  decided        the leading diagnosis names its failure and, where the failure is one rank's, the rank
//                     that initiated it (a whole-job failure such as a port in use has no rank and is decided)
//   1  nothing_found  nothing failed, or nothing in the inputs was a training job's output
//   2  usage          a usage error (one line on stderr): bad option, missing path, unreadable knowledge
//   3  undetermined   a failure was found but the logs cannot decide who initiated it; the report names the
//                     missing fact
// The leading diagnosis (the first, the one that ended the job) decides: further diagnoses (earlier elastic
// attempts) do not change the code. Problems with the local history never change it either.
#pragma once

#include "engine/diagnosis.hpp"

namespace denpex::cli {

enum class ExitStatus : int { decided = 0, nothing_found = 1, usage = 2, undetermined = 3 };

inline ExitStatus exit_status_for(const Report& report) {
    if (report.diagnoses.empty()) return ExitStatus::nothing_found;
    return report.diagnoses.front().undetermined ? ExitStatus::undetermined : ExitStatus::decided;
}

inline int code(ExitStatus s) { return static_cast<int>(s); }

}  // namespace denpex::cli
