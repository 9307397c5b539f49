// Path hints: what a log file's path says about who wrote it.
//
// Contract. `path_hints(path)` inspects only the path string (no I/O) and returns the rank / local rank /
// node / task / attempt the path implies, plus a `node_key` naming the group of files written by one node
// (one torchrun agent), so that local ranks from different nodes are not confused.
//   torchrun --log_dir  `<run>/attempt_0/3/stderr.log`, `.../attempt_1/3/stdout.log` -> local_rank 3, attempt,
//                        node_key = the directory above attempt_N
//   `rank_3.log`, `rank3.txt`, `rank-03.out`, `log_rank_3.txt`                        -> rank 3
//   (`worker_3.log` / `pdsh_worker1.log` give nothing: "worker" is a node in some launchers, a rank in others)
//   `node1.log`, `node-1.log`, `node_01.out`                                          -> node 1
//   `slurm-123_4.out` (array job 123, task 4), `slurm-123.out`                        -> slurm_job, slurm_array_task
//   `<anything>/<hostname>.log` is NOT taken as a host (too ambiguous), but `host-<name>.log` is.
// Digits elsewhere in the path (dates, job ids, `excerpt2_...`) are never taken as ranks.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace denpex {

struct PathHints {
    std::optional<int> rank;
    std::optional<int> local_rank;
    std::optional<int> node;
    std::optional<int> attempt;
    std::optional<long> slurm_job;
    std::optional<int> slurm_array_task;
    std::optional<std::string> host;
    std::string node_key;   // files with the same non-empty node_key come from the same node/agent
};

PathHints path_hints(std::string_view path);

}  // namespace denpex
