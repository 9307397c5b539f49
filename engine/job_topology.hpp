// JobTopology: hosts a job runs on, as launchers and environment dumps state them, so that a missing fact can
// name the host whose log is absent ("node gpu-node-01's log is not here").
//
// Contract. `read_topology_line(body, out)` looks for a few structural lines and does nothing for any other
// line (a substring test first; the patterns run only on lines that contain their keyword):
//   `MASTER_ADDR=gpu-node-01`                                   -> gpu-node-01 (role: master)
//   DeepSpeed `global_rank_mapping=... {'worker-0': [0, 1], 'worker-1': [2, 3]}` and `WORLD INFO DICT`
//                                                               -> host -> ranks (the mapping form names ranks)
//   srun `srun: error: gpu-a18: task 5: Exited with exit code 1`, `tasks 2-3: Terminated`
//                                                               -> host of srun tasks 5, 2 and 3
//   `NNODES=2 NPROC_PER_NODE=4`, torchrun's `--nnodes=2 --nproc_per_node=4` (also `--nnodes 2`,
//   `--nproc-per-node 4`)                                        -> world size 8 when both are on one line
//   DeepSpeed's `dist_world_size=24`, Accelerate's `Num processes: 16`
//                                                               -> world size 24, 16
//   detectron2's `Rank of current process: 0. World size: 16`  -> world size 16
// Only the first 4 KiB of a line are looked at (these lines are short); RE2 only.
//
// `read_launch_position(body)` reads where a node's processes sit in the world from its launch line (a command
// echoed into the log, or the arguments dumped as a Namespace), when the line states both the node's rank and the
// processes per node:
//   torchrun `--node_rank=1 --nproc_per_node=8` (also `--node-rank 1`, `--nproc-per-node 8`), `NODE_RANK=1
//   NPROC_PER_NODE=8`, detectron2 `--machine-rank 1 --num-gpus 8` / `machine_rank=1, num_gpus=8`, DeepSpeed's
//   `--node_rank=1 --num_gpus=8`, Accelerate's `--machine_rank 1 --num_machines 2 --num_processes 16` (16 / 2 per
//   node)                                                        -> node 1, 8 per node: local rank L is rank 8 + L
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace denpex {

struct JobTopology {
    std::map<std::string, std::set<int>> host_ranks;   // hosts the job names, with the ranks known to run there
    std::set<std::string> masters;                      // MASTER_ADDR values
    std::map<int, std::string> task_hosts;              // srun task -> host
    std::optional<int> world_size;                      // nnodes x nproc_per_node, as a launch line states
    // The rendezvous is on the loopback interface (MASTER_ADDR=localhost, init_method tcp://127.0.0.1:port): no other
    // host can join it, so every rank that started runs on one host. The line that says so.
    std::optional<std::string> loopback_rendezvous;
};

// What an srun error line is about: its node, and its task when it names exactly one.
struct SrunSubject {
    std::string host;                  // empty when the line is no srun error line
    std::optional<int> task;           // the task, when the line names one
    std::vector<int> tasks;            // every task the line names (`tasks 4-7`), when it names several
};

SrunSubject read_topology_line(std::string_view body, JobTopology& out);

// Where one node's processes sit in the world, as its launch line states it.
struct LaunchPosition {
    int node_rank = 0;
    int per_node = 0;
    int first_rank() const { return node_rank * per_node; }   // bounded by read_launch_position
};

std::optional<LaunchPosition> read_launch_position(std::string_view body);

// "10.37.152.61<48217>" / "[10.0.0.5]:4010" / "gpu-b12<50324>" -> the host part; empty when none or loopback.
std::string host_of_peer(std::string_view peer);
// `hgx-022` (NCCL's prefix) and `hgx-022.cluster.internal` (torchrun's summary) name one machine; an IPv4
// address is compared whole.
std::string_view short_host_name(std::string_view h);
inline bool same_host(std::string_view a, std::string_view b) { return short_host_name(a) == short_host_name(b); }

}  // namespace denpex
