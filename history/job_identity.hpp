// The job an incident belongs to, as far as the logs say: the identity saved in the history and shown in
// "seen before ... (job X)".
//
// Contract. A pure function of the Report's input names: a Slurm job id from `slurm-<job>[_<task>].out`
// (engine/path_hints) gives "slurm job <job>"; otherwise, when the inputs are files or directories, "logs in
// <directory>" names their common directory (made absolute against `cwd`); stdin or in-memory text alone
// gives "" (unknown). Nothing is read from disk.
#pragma once

#include <string>

#include "engine/diagnosis.hpp"

namespace denpex {

std::string job_identity(const Report& report, const std::string& cwd);

}  // namespace denpex
