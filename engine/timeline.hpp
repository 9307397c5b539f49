// Timeline: everything the reasoner needs from the inputs, in memory bounded by the number of processes and
// the events kept per process — never by the size of the logs.
//
// A *process* is one worker as far as the logs can tell: a global rank when one is known, else a local rank
// inside one node group (a torchrun agent's output, an srun task), else whatever pid/host/file is left. The
// collector first records raw keys, then `resolve()` merges them into processes using every mapping the logs
// offered (`[default1]:` lines that also say `[rank5]:`, the elastic summary's `rank : 5 (local_rank: 1)`,
// NCCL `Init COMPLETE` lines mapping pid -> rank, the agent's `failed ... local_rank: 1 (pid: 123)`).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "engine/attribution.hpp"
#include "engine/bounded_number.hpp"
#include "engine/gpu_table.hpp"
#include "engine/job_topology.hpp"
#include "engine/knowledge.hpp"
#include "engine/version_range.hpp"

namespace denpex {

struct Evidence {
    std::string file;
    std::uint64_t line = 0;
    std::string text;   // the normalised line, cut to a readable length
};

// Who wrote a line, as far as that line (and its file) could tell.
struct RawKey {
    std::uint32_t group = 0;            // node group: one agent / srun task / file
    std::optional<int> rank, local_rank;
    std::optional<long> pid;
    auto operator<=>(const RawKey&) const = default;
};

struct Event {
    const Signature* signature = nullptr;
    Role role = Role::context;
    Evidence evidence;
    std::map<std::string, std::string> captures;
    std::optional<Timestamp> time;      // the line's own time, or the last one seen before it in its file
    bool time_exact = false;
    // For a time carried from an earlier line: the time of the next stamped line of the same file, so the line
    // happened within [time, time_before]. Unset while no later stamp is known.
    std::optional<double> time_before;
    std::uint32_t time_age = 0;         // lines since the line whose time this is (0 when it is the line's own)
    bool time_from_writer = false;      // carried from the same writer's own earlier line (its log record)
    bool from_launcher = false;         // a line of torchrun's summary about this worker, not the worker's own
    bool in_summary = false;            // part of a report written after the fact (the summary): its place orders nothing
    std::uint32_t source = 0;
    std::uint64_t order = 0;            // global reading order
    RawKey key;
    std::optional<std::string> host;
    std::optional<int> cuda_dev;
    // Which launch attempt the line belongs to (torchrun restarts its workers after a failure): from the path
    // (attempt_1/) or the restarts its file announced before it. Unset where the file says nothing of attempts.
    std::optional<std::uint16_t> attempt;
    std::string process_group;          // Attribution::process_group: empty for the default group

    // A line that shows its process waiting on a collective that never completed: a timeout with its limit or the
    // work's sequence number. Reactions to a kill (SIGTERM handlers, aborted steps) are not waits.
    bool shows_wait() const {
        return role == Role::collateral && !from_launcher &&
               (captures.count("timeout_ms") || captures.count("seq") || captures.count("last_completed"));
    }
    // A captured number (a sequence number, a timeout, a rank), when the capture is one; never negative.
    std::optional<long long> number(const std::string& name) const {
        auto it = captures.find(name);
        return it == captures.end() ? std::nullopt : parse_bounded<long long>(it->second, 0);
    }
};

// One line of torchrun's elastic summary or agent log about one worker's exit.
// A launcher's exit code for a worker a signal ended is minus the signal's number (Python's Popen.returncode).
inline constexpr int kExitSigabrt = -6;    // the NCCL watchdog's abort of a rank that waited, or an abort of its own
inline constexpr int kExitSigterm = -15;   // the agent's or the scheduler's teardown

struct ExitRecord {
    std::uint32_t group = 0;
    std::optional<int> rank, local_rank;
    std::optional<long> pid;
    std::optional<int> exitcode;
    std::optional<std::string> host;
    bool root_cause_section = false;    // listed under "Root Cause (first observed failure)"
    Evidence evidence;
    std::optional<std::uint16_t> attempt;   // as Event::attempt
};

struct Group {
    std::string name;                   // for messages: file name, node dir, "task 3 of slurm.out"
    std::set<std::string> hosts;        // hosts the group's lines name
    std::map<int, int> local_to_rank;   // from lines carrying both
    // A local rank seen with two global ranks: the group holds several agents' output (one SLURM file for all
    // nodes), so a local rank alone names no worker.
    bool several_agents = false;
    void note_local_rank(int local, int rank) {
        auto [it, fresh] = local_to_rank.try_emplace(local, rank);
        if (!fresh && it->second != rank) several_agents = true;
    }
    std::map<long, int> pid_to_local;   // from the agent's "failed ... local_rank: L (pid: P)"
    // pid -> rank from a worker's own lines that carry both (Ray's `(pid=P)` prefix and `[Rank R]` in the message,
    // a glog header's pid under `[rankR]:`); a pid seen with two ranks maps to none.
    std::map<long, std::optional<int>> pid_rank;
    void note_pid_rank(long pid, int rank) {
        auto [it, fresh] = pid_rank.try_emplace(pid, rank);
        if (!fresh && it->second != rank) it->second.reset();
    }
    std::map<int, std::pair<std::string, long>> local_host_pid;   // local rank -> (host, pid) seen in its own file
    std::set<long> sigterm_pids;        // "Sending process P closing signal SIGTERM"
    // pids whose report a writer of this group relays (Ray's driver: "RayTaskError(...): ... (pid=P, ...)"): another
    // process than the writer, so never the group's own rank, even in a file that speaks for one rank.
    std::set<long> relayed_pids;
    std::optional<int> srun_task;       // the group is one srun --label task's output
    std::optional<int> path_rank;       // rank_3.log
    std::optional<int> path_node;
    // The group is the files of one node, named by their paths (a torchrun --log-dir tree's node folder, node1.log,
    // a host's folder): another such group is another node, whatever its files hold.
    bool node_from_path = false;
    // The first rank of this node, as its launch line states it (node rank x processes per node): local rank L is
    // global rank launch_first_rank + L.
    std::optional<int> launch_first_rank;
};

struct ProcessSummary {
    std::uint64_t lines = 0;
    std::uint64_t launcher_lines = 0;   // lines torchrun wrote about this worker (summary records)
    std::uint64_t job_lines = 0;        // lines shaped like a running job's output (not prose pasted around it)
    Evidence last_line;
    std::optional<Timestamp> last_time;
    std::optional<std::string> host;
    std::optional<int> cuda_dev;
};

// A field added here is state a partial model carries too: engine/partial_encode.cpp and partial_decode.cpp write and
// read it, engine/timeline_merge.cpp merges it (tests/unit/partial_model_test.cpp compares merged and single reads).
struct Timeline {
    std::vector<std::string> sources;                 // display names, indexed by Event::source
    // Per source: lines shaped like a training job's or its launcher's output (a rank or time prefix, NCCL's
    // host:pid:tid, a traceback, a launcher's line). A source with none is prose or documentation, not a log.
    std::vector<std::uint64_t> job_output_lines;
    std::vector<Group> groups;
    std::vector<Event> events;
    std::vector<ExitRecord> exits;
    std::map<RawKey, ProcessSummary> raw_processes;
    // NCCL Init COMPLETE: (host, pid) -> (rank, nranks). A sub-communicator's line names the rank inside that
    // communicator, so the line of the largest communicator (the world) wins.
    std::map<std::pair<std::string, long>, std::pair<int, int>> host_pid_to_rank;
    std::map<std::pair<std::string, std::string>, int> bus_to_rank;   // (host, NCCL busId) -> rank
    std::set<int> ranks_named;                        // every global rank any line names
    JobTopology topology;                             // hosts the launchers name
    std::optional<int> world_size;
    // The number of nodes the launch fixes, when a line states it (--nnodes N, or min_nodes = max_nodes = N).
    std::optional<int> nodes_stated, min_nodes, max_nodes;
    // A line put the rendezvous endpoint on the agent's own loopback (Attribution::rendezvous_on_loopback).
    bool rendezvous_on_loopback = false;
    // nvidia-smi's device table, the latest snapshot of each input that holds one (engine/gpu_table.hpp).
    std::vector<GpuSnapshot> gpu_snapshots;
    std::optional<int> nodes_expected() const {
        if (nodes_stated) return nodes_stated;
        if (min_nodes && max_nodes && *min_nodes == *max_nodes) return min_nodes;
        return std::nullopt;
    }
    VersionRange torch;                               // what the message formats imply
    bool torch_known = false;
    std::set<Version> torch_stated;                   // versions lines state outright (collect_env, pip)

    // A version stated outright replaces what the formats imply; two different ones (nodes on different
    // releases) leave the version unknown.
    void apply_stated_torch() {
        if (torch_stated.empty()) return;
        torch_known = torch_stated.size() == 1;
        if (torch_known) torch = VersionRange{*torch_stated.begin(), *torch_stated.begin()};
    }
    bool torchrun = false;
    // Training stacks whose banners the lines show (engine/stack_banner: HF Trainer, DeepSpeed, Megatron, ...).
    std::set<Stack> stacks;
    // Some line stood for several workers' identical lines (Ray's "[repeated 3x across cluster]"): which ranks wrote
    // is not fully known, so no rank's silence means anything.
    bool deduplicated = false;
    std::uint64_t bytes = 0, lines = 0, truncated_lines = 0;
    std::vector<std::string> warnings;                // unreadable inputs, I/O errors

    // An NCCL `Init COMPLETE` line: (host, pid) ran rank `rank` of an `nranks` communicator. The largest
    // communicator's line (the world) wins over sub-communicators'.
    // nranks for a rank a prefix states outright ([rank3]:): it beats every communicator's.
    static constexpr int kStatedRank = 1 << 30;
    void note_communicator_rank(const std::pair<std::string, long>& host_pid, int rank, int nranks) {
        auto [it, added] = host_pid_to_rank.try_emplace(host_pid, rank, nranks);
        if (!added && nranks >= it->second.second) it->second = {rank, nranks};
    }
};

}  // namespace denpex
