// `denpex scan --partial OUT PATH...`: reads one machine's logs and writes their partial model
// (engine/partial_model.hpp) for a `denpex diagnose` elsewhere to merge.
//
// Contract. PATHs are what `diagnose` takes (files, directories read recursively, - for stdin), read through the
// same engine pass (Engine::collect); OUT is written whole or not at all (a temporary file beside it, renamed
// into place), or to stdout when OUT is "-" (`kubectl exec POD -- denpex scan --partial - /logs > POD.json`).
// In OUT, %N is the node's name (SLURMD_NODENAME inside a Slurm step, else the short host name) and %% a '%':
// srun expands %N only in its own --output names, so `srun --ntasks-per-node=1 denpex scan --partial
// DIR/partial-%N.json ...` needs scan to do it.
// Partials among the PATHs (cli/partial_inputs.hpp) are merged into OUT after the logs, as diagnose merges them:
// merging is associative, so partials can be merged in a tree (a rack's, then the job's). --label applies to the
// logs read here, not to the merged partials' inputs.
// --label NAME (%N expanded) shows each input as NAME:PATH (paths on local disks are the same on every node); the
// path hints still come from the path itself. A node without log files writes its partial with a warning saying
// so (a failed step would look like a node that was never scanned). Skipped and unreadable inputs become the
// partial's warnings, as they would be diagnose's. Nothing is
// diagnosed here. Exit codes: 0 written, 2 a usage error or OUT not written (one line on stderr).
#pragma once

#include <string>
#include <vector>

namespace denpex::cli {

int scan_command(const std::vector<std::string>& args);

std::string scan_usage();

// OUT with %N replaced by `host`'s first label and %% by '%'.
std::string expand_out_name(const std::string& out, const std::string& host);

}  // namespace denpex::cli
