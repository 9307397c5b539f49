// Attribution: who wrote a log line, and when.
//
// Contract. `attribute(text, ctx)` looks at one normalised log line (ANSI codes already stripped, no line
// terminator) and returns what its prefixes and well-known in-line markers say about the writer: global rank,
// local rank, srun task, host, pid, local CUDA device and time. It never allocates per call beyond the
// returned strings, never looks at other lines and runs in time linear in the line length (RE2, and for the
// commonest prefixes hand-written scanners of the same patterns, engine/prefix_scan: no backtracking either way).
// Prefix parsers are tried in a fixed order; each one strips what it recognised, so stacked
// prefixes (`worker-1: [default0]:[rank12]:[E0903 04:12:58.641 ProcessGroupNCCL.cpp:1515] ...`) all count.
// `body_offset` is where the text after all recognised prefixes starts.
//
// What is recognised (examples are the formats, not a closed list):
//   torchrun tee     `[default3]:` / `[trainer3]:`        -> local_rank 3 (the role name is ignored)
//   torchrun/c10     `[rank3]:` (also doubled, stacked)   -> rank 3 (global)
//   ProcessGroupNCCL `[Rank 3]`, `[PG 0 Rank 3]`, `[PG 0 (default_pg) Rank 3]`, `[PG ID 0 PG GUID 0(default_pg) Rank 3]`
//                    -> rank only when the PG is the default one (id 0 or desc default_pg); otherwise pg_rank
//   NCCL             `host:pid:tid [dev] NCCL WARN|INFO ...` (optionally after `[YYYY-mm-dd HH:MM:SS] `)
//                    -> host, pid, cuda_dev (dev is the local GPU, not a rank)
//   NCCL Init        `... comm 0x.. rank 24 nranks 32 cudaDev 0 nvmlDev 0 busId 7000 ... Init COMPLETE` (or Abort/Destroy)
//                    -> communicator rank 24, world_size 32, bus_id "7000" (with host/pid from the NCCL prefix)
//   srun --label     `3: `                                 -> srun_task 3 (a task, never a rank)
//   mpirun           `[1,6]<stdout>:` / `[1,6]<stderr>:`, Horovod `[6]<stderr>:`   -> rank 6
//   pdsh             `host: ` (a hostname-looking token then ": ") -> host
//   Ray              `(Worker pid=123, ip=10.0.0.1)` / `(RayTrainWorker pid=..)` -> pid, host (ip)
//   DeepSpeed        `[2024-02-09 09:09:15,164] [INFO] [launch.py:123:main] ...` -> time (the launcher's line)
//   glog/c10         `E1023 14:02:03.123456 1234 file.cpp:12] ` and `[E1023 14:02:03.123456789 file.cpp:12] `
//                    and `[E ProcessGroupNCCL.cpp:563] ` -> time (no year), pid for the unbracketed form
//   Python logging   `2024-10-23 14:02:03,123 ...`, `[2024-10-23 14:02:03,123] ...`
//   ISO 8601         `2024-10-23T14:02:03.123Z`, `2024-10-23T14:02:03+02:00`
//   torchrun summary `2026-11-29_18:15:47`
//   dmesg            `[12345.678901] ` (seconds since boot) and `[Mon Oct 23 14:02:03 2024] `
//   syslog/journal   `Mar 12 04:17:33 dgx-a08 kernel: ` -> time (no year), host, pid of `prog[pid]: `
//   log viewer       `[1803] ` line numbers are NOT ranks and are skipped.
//   test harness     `stderr: ` / `stdout: ` (accelerate's and transformers' execute_subprocess_async relaying a
//                    child's streams) -> nothing; skipped so the child's own prefixes and records are read
//   in-body          `Rank 3: Completed store-based barrier`, `to store for rank: 3`,
//                    `rank : 3 (local_rank: 1)` (elastic summary) -> rank (and local_rank)
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace denpex {

// A point in time as far as the line tells it. `has_date` is false for glog times (no year) and dmesg
// uptime, which may only be compared within one source. `seconds` is seconds since the Unix epoch when
// has_date (time zone taken as UTC unless given), otherwise seconds since the start of the year (glog, with
// month/day) or since boot (dmesg uptime, `uptime` true).
struct Timestamp {
    double seconds = 0;
    bool has_date = false;
    bool uptime = false;
    // `dmesg -H` style `[  +0.000291]`: `seconds` is the delta since the previous kernel message, not an
    // uptime (`uptime` is also set); such times cannot be ordered against anything by themselves.
    bool relative = false;
    // Written to the whole second (`dmesg -T`, torchrun's summary, ISO without a fraction): it orders nothing
    // against a time less than a second away.
    bool whole_seconds = false;
};

struct Attribution {
    std::optional<int> rank;         // global rank
    std::optional<int> local_rank;   // torchrun [defaultN], `attempt_0/N/`
    std::optional<int> pg_rank;      // rank inside a non-default process group
    // The process group the line is about ("PG 3", "PG GUID 107"), empty for the default group or when the line
    // names none: NCCL sequence numbers count per group and are compared only within one.
    std::string process_group;
    // The rank an NCCL `Init COMPLETE` line gives, inside that line's communicator: the global rank only when it
    // is the world communicator (the one with the most ranks), which one line cannot tell.
    std::optional<int> comm_rank;
    std::optional<int> srun_task;    // srun --label task index
    std::optional<int> cuda_dev;     // NCCL [dev]
    std::optional<int> world_size;   // nranks from NCCL Init COMPLETE, "with 4 nodes", world_size=
    // Nodes the launch fixes: a torchrun command's --nnodes N (1 when absent), or one bound of the agent's config
    // dump (`min_nodes : 2`, `max_nodes : 2`; the Timeline pairs them).
    std::optional<int> nnodes, min_nodes, max_nodes;
    // The rendezvous endpoint is the agent's own loopback (`rdzv_endpoint : localhost:29400` in the agent's config
    // dump, `--rdzv-endpoint=localhost:29400` from --standalone): each node then serves a store of its own.
    bool rendezvous_on_loopback = false;
    std::optional<long> pid;
    std::optional<std::string> host;
    // The host a multiplexer put before the line (pdsh's `host: `): the node whose stream the line came from.
    std::optional<std::string> stream_host;
    std::optional<std::string> bus_id;   // NCCL busId, lower-case hex without leading zeros
    std::optional<Timestamp> time;
    std::size_t body_offset = 0;     // start of the text after the recognised prefixes
};

// Attributes one line. Thread-safe (the compiled patterns are shared, immutable).
Attribution attribute(std::string_view line);

// Parses a timestamp at the very start of `text` in any of the styles above; used by `attribute` and by
// the elastic summary reader (`time : 2026-11-29_18:40:22`).
std::optional<Timestamp> parse_timestamp(std::string_view text);

}  // namespace denpex
