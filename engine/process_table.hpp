// ProcessTable: raw line attributions merged into processes (workers), with their events sorted and split by
// role. Built once per diagnosis from a Timeline.
//
// Resolution order for a raw key: its own global rank; else its local rank through the group's
// local -> global map; else its pid through NCCL's Init COMPLETE (host, pid -> rank) or the agent's
// (pid -> local rank); else the rank its file's path implies. Within a torchrun group, one SIGTERM'd pid
// and one local rank whose pid is unknown are paired by elimination. Whatever stays unresolved remains a
// process of its own (local rank L of a group, pid P, or the group's unattributed lines) — except in a group
// whose lines name exactly one rank and no local ranks (one srun task, one rank's file): there the
// unprefixed lines are that rank's.
// Inferences, each recorded on the process so the report can say the mapping is a guess:
//   - a node group whose known local -> global pairs share one offset (node_rank x ranks_per_node) maps its
//     other local ranks with that offset;
//   - a node group whose launch line states its node rank and processes per node (Group::launch_first_rank) maps
//     its local ranks from that first rank;
//   - a single node group with local ranks and no mapping at all, in a world no larger than it: local = global
//     (a guess when no world size is stated, and none when another group holds worker processes of its own or
//     its files' paths name another node);
//   - a group written by one process (one pid) that names no rank itself, where NCCL's Init COMPLETE of the world
//     communicator states that process's rank (a pod's log): the group's unprefixed lines are that rank's;
//   - srun tasks that each hold one worker process (no local ranks, at most one NCCL pid): task = rank,
//     as srun sets SLURM_PROCID, which env:// initialisation uses as the rank;
//   - an event that names a pid (the kernel's OOM killer, the agent) belongs to the rank that pid had.
#pragma once

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "engine/timeline.hpp"

namespace denpex {

// The largest world a log may state or imply (ranks are below it); a larger number is not a rank.
inline constexpr int kMaxWorld = 1 << 20;

struct Process {
    std::optional<int> rank, local_rank;
    std::optional<long> pid;
    std::uint32_t group = 0;
    std::string group_name;
    ProcessSummary summary;
    std::uint64_t own_lines = 0;                    // lines the worker wrote itself
    std::uint64_t job_lines = 0;                    // of all its lines, those shaped like job output (not prose)
    std::vector<const Event*> events;               // reading order
    std::vector<const Event*> specific_initiating;  // initiating, not a fallback signature
    std::vector<const Event*> generic_initiating;   // fallback initiating (uncaught exception), when not
                                                    // explained by a collateral error of the same process
    std::vector<const Event*> collateral;
    std::vector<const Event*> direct_collateral;    // collateral the worker printed itself
    std::set<std::string> hosts;
    bool sigterm_by_agent = false;
    std::string rank_inference;    // non-empty when the global rank was inferred, not read: how
    // The inference is a guess, not a deduction: one node's local ranks taken as the global ranks with nothing
    // saying that node is the first (or the only) one. Capped at medium like any inference; the report asks for the
    // fact that would settle it (which node, or the world size).
    bool rank_guessed = false;

    const Event* first_specific_initiating() const { return specific_initiating.empty() ? nullptr : specific_initiating.front(); }
    const Event* first_generic_initiating() const { return generic_initiating.empty() ? nullptr : generic_initiating.front(); }
    const Event* first_initiating() const { return first_specific_initiating() ? first_specific_initiating() : first_generic_initiating(); }
    std::vector<const Event*> direct_specific_initiating() const;
    // It lost a peer or waited for one: a collateral error of its own, not only a launcher's record of its end.
    bool hurt_by_peers() const;
    std::vector<const Event*> events_with_role(Role role) const;
    std::string name() const;
    std::optional<std::string> host() const;
    std::optional<int> cuda_dev() const { return summary.cuda_dev; }
};

class ProcessTable {
public:
    // Kernel lines about a GPU and a process that are not the job's (left out of every worker).
    const std::vector<const Event*>& foreign_gpu_events() const { return foreign_gpu_events_; }
    explicit ProcessTable(const Timeline& t);

    const std::vector<Process>& processes() const { return processes_; }
    const Process* by_rank(int rank) const;
    const Process* resolve_exit(const ExitRecord& x) const;
    // The job's world size: the largest the logs state, or the highest rank named plus one.
    std::optional<int> world_size() const;
    std::vector<int> unseen_ranks(std::optional<int> world) const;
    std::vector<int> seen_ranks() const;
    // Whether some output belongs to no known rank: unprefixed worker lines, or a SIGTERM'd pid no rank owns.
    bool has_unclaimed_worker_output() const;
    // Of those, the agent's SIGTERM at teardown to a pid no line ties to a worker: a record that one more worker
    // was still running then.
    bool has_unclaimed_sigterm_pid() const;
    // Whether some input interleaves several ranks (a node's or a job's console), rather than one file per rank.
    bool has_shared_stream() const;
    // Whether srun started the workers itself (one worker per task): then torchrun did not.
    bool workers_are_srun_tasks() const {
        return listed_tasks_are_workers_ ||
               std::find(task_is_rank_.begin(), task_is_rank_.end(), true) != task_is_rank_.end();
    }

private:
    std::string key_of(const RawKey& k, const std::optional<std::string>& host, std::optional<int>& rank,
                       std::optional<int>& local, std::optional<long>& pid, std::string* inference = nullptr,
                       bool* guessed = nullptr) const;
    // The constructor's steps, in order: identities first (pids, local ranks, offsets, sole ranks), then the
    // processes with their summaries and events.
    void pair_sigterm_pids_by_elimination();
    void pair_closed_peer_by_elimination();
    struct GroupIdentities;
    void infer_mappings();
    bool map_stated_offsets();
    void guess_single_node_offset(const GroupIdentities& ids);
    void find_task_ranks(const GroupIdentities& ids);
    void note_stated_pid_ranks();
    void find_sole_ranks();
    void gather_summaries();
    void assign_events();
    void note_agent_pids_and_hosts();
    void sort_out_events(Process& p);
    std::optional<std::size_t> exit_index(const ExitRecord& x) const;
    std::set<std::string> group_host(std::uint32_t group) const;
    // The rank an event is about when its writer has none: a captured rank, a pid or GPU bus another line ties
    // to a rank.
    std::optional<int> rank_of_named_process(const Event& e) const;
    std::optional<long> named_worker_pid(const Event& e) const;
    bool on_foreign_gpu(const Event& e) const;
    const std::set<int>* ranks_on_host(const std::string& host) const;
    std::string ranks_on_host_phrase(const std::string& host) const;
    std::optional<int> rank_of_gpu_on_host(const RawKey& k, const std::string& host) const;
    std::optional<int> rank_of_local_on_mapped_host(std::uint32_t group, int local) const;
    std::optional<int> rank_of_summary_pid(std::uint32_t group, long pid, const std::optional<std::string>& host) const;
    Process& process_for(const RawKey& k, const std::optional<std::string>& host);

    const Timeline& t_;
    std::vector<const Event*> foreign_gpu_events_;
    std::vector<Process> processes_;
    std::map<std::string, std::size_t> index_;
    std::vector<std::map<long, int>> pid_to_local_;   // per group, including pairings by elimination
    // (group, pid) paired with a local rank because its NCCL peers named that local rank as gone: why, for the report.
    std::map<std::pair<std::uint32_t, long>, std::string> paired_by_peers_;
    std::vector<std::optional<int>> sole_rank_;       // per group: the only rank its lines ever name
    std::vector<std::optional<int>> local_offset_;    // per group: global = local + offset, inferred
    std::vector<std::string> offset_reason_;
    std::vector<bool> offset_guessed_;                // per group: the offset is a guess (Process::rank_guessed)
    std::vector<bool> task_is_rank_;                  // per group: srun task index is the rank
    // srun's own task lines put several tasks on one node, no labelled output says otherwise and torchrun's agent
    // shows nowhere: srun started one worker per task, so task N is SLURM_PROCID N, the rank.
    bool listed_tasks_are_workers_ = false;
    std::map<long, int> pid_rank_;                    // pids whose rank some line states
    // (group, pid) -> rank, from a launcher line that states both ("mpirun noticed that process rank 2 with PID
    // 18843"): the lines that pid writes itself (Open MPI's `[host:pid]` signal handler) are that rank's. A pid
    // stated with two ranks in one group (two nodes' pids colliding) maps to none.
    std::map<std::pair<std::uint32_t, long>, std::optional<int>> stated_pid_rank_;
};

}  // namespace denpex
