#include "engine/process_table.hpp"

#include "engine/evidence_text.hpp"
#include "engine/job_topology.hpp"
#include "engine/pci_address.hpp"
#include "engine/re2_captures.hpp"
#include "engine/time_order.hpp"

#include <algorithm>
#include <ranges>
#include <cctype>
#include <cstdlib>

namespace denpex {

std::vector<const Event*> Process::direct_specific_initiating() const {
    std::vector<const Event*> out;
    for (const Event* e : specific_initiating)
        if (!e->from_launcher) out.push_back(e);
    return out;
}

std::vector<const Event*> Process::events_with_role(Role role) const {
    std::vector<const Event*> out;
    for (const Event* e : events)
        if (e->role == role) out.push_back(e);
    return out;
}

std::string Process::name() const {
    if (rank) return "rank " + std::to_string(*rank);
    if (local_rank) return "local rank " + std::to_string(*local_rank) + " of " + group_name;
    if (pid) return "pid " + std::to_string(*pid) + " in " + group_name;
    return "an unprefixed process in " + group_name;
}

namespace {

// srun's task lines name one node for two tasks or more: srun started the workers itself, one per task.
bool several_tasks_on_a_node(const std::map<int, std::string>& task_hosts) {
    std::map<std::string_view, int> per_host;
    for (const auto& [task, host] : task_hosts)
        if (++per_host[short_host_name(host)] >= 2) return true;
    return false;
}

// The one host a set of names is, if it is one; the fullest name is kept.
std::optional<std::string> one_host(const std::set<std::string>& hosts) {
    if (hosts.empty()) return std::nullopt;
    const std::string_view first = short_host_name(*hosts.begin());
    const std::string* fullest = &*hosts.begin();
    for (const std::string& h : hosts) {
        if (short_host_name(h) != first) return std::nullopt;
        if (h.size() > fullest->size()) fullest = &h;
    }
    return *fullest;
}

// The number a file's name ends in (`train_5.log` -> 5): not a rank by itself (see path_hints), but it can
// agree with the one rank the file's lines name.
std::optional<int> trailing_number(std::string_view name) {
    std::string_view stem = name.substr(name.find_last_of('/') + 1);
    stem = stem.substr(0, stem.find('.'));
    std::size_t start = stem.size();
    while (start > 0 && std::isdigit(static_cast<unsigned char>(stem[start - 1]))) --start;
    if (start == stem.size() || stem.size() - start > 6) return std::nullopt;
    return to_number<int>(stem.substr(start));
}

}  // namespace

std::optional<std::string> Process::host() const { return one_host(hosts); }

bool Process::hurt_by_peers() const {
    return std::any_of(direct_collateral.begin(), direct_collateral.end(),
                       [](const Event* e) { return e->signature->entry->category != "Launcher"; });
}

namespace {

// The raw processes of one group: the map is ordered by group first, so a group is one range of it (walking the
// whole map once per group made many-file inputs quadratic).
auto raw_of_group(const Timeline& t, std::uint32_t g) {
    return std::ranges::subrange(t.raw_processes.lower_bound(RawKey{g}), t.raw_processes.lower_bound(RawKey{g + 1}));
}

}  // namespace

ProcessTable::ProcessTable(const Timeline& t) : t_(t) {
    pair_sigterm_pids_by_elimination();
    pair_closed_peer_by_elimination();
    infer_mappings();
    find_sole_ranks();
    gather_summaries();
    assign_events();
    note_agent_pids_and_hosts();
    for (Process& p : processes_) sort_out_events(p);
}

// Per group: pid -> local rank from the agent, plus one pairing by elimination (the SIGTERM'd pid nobody claimed, and
// the local rank nobody's pid points to).
void ProcessTable::pair_sigterm_pids_by_elimination() {
    pid_to_local_.resize(t_.groups.size());
    for (std::size_t g = 0; g < t_.groups.size(); ++g) {
        const Group& group = t_.groups[g];
        auto& map = pid_to_local_[g];
        map = group.pid_to_local;
        std::set<int> locals;
        for (const auto& [key, ps] : raw_of_group(t_, static_cast<std::uint32_t>(g)))
            if (key.local_rank) locals.insert(*key.local_rank);
        for (const auto& [l, r] : group.local_to_rank) locals.insert(l);
        std::vector<long> free_pids;
        for (long pid : group.sigterm_pids)
            if (!map.count(pid)) free_pids.push_back(pid);
        std::vector<int> free_locals;
        for (int l : locals)
            if (std::none_of(map.begin(), map.end(), [&](const auto& kv) { return kv.second == l; }))
                free_locals.push_back(l);
        if (free_pids.size() == 1 && free_locals.size() == 1) map[free_pids.front()] = free_locals.front();
    }
}

// Groups that speak for one rank (sole_rank_): an srun task, a per-rank file, or a one-process file whose rank NCCL's
// world communicator gives.
void ProcessTable::find_sole_ranks() {
    sole_rank_.resize(t_.groups.size());
    // A group speaks for one rank when it is an srun task, or when that rank's own lines are most of it
    // (a per-rank file): a console where rank 0 alone logs progress among other processes' output is not.
    std::vector<std::set<int>> ranks(t_.groups.size());
    std::vector<bool> has_local(t_.groups.size(), false);
    std::vector<std::uint64_t> total(t_.groups.size(), 0), ranked(t_.groups.size(), 0);
    for (const auto& [key, ps] : t_.raw_processes) {
        total[key.group] += ps.lines;
        if (key.rank && ps.lines > ps.launcher_lines) {
            ranks[key.group].insert(*key.rank);
            ranked[key.group] += ps.lines;
        }
        if (key.local_rank) has_local[key.group] = true;
    }
    // The file's own number agreeing with the one rank it names (train_5.log full of `[rank5]`) says the same.
    for (std::size_t g = 0; g < t_.groups.size(); ++g)
        if (ranks[g].size() == 1 && !has_local[g] &&
            (t_.groups[g].srun_task || ranked[g] * 2 >= total[g] ||
             trailing_number(t_.groups[g].name) == std::optional<int>(*ranks[g].begin())))
            sole_rank_[g] = *ranks[g].begin();
    // One process wrote in a file that names no rank itself, and NCCL's Init COMPLETE of the world communicator
    // gives that process's rank (a container's or pod's log: one worker, pid 1): the file's unprefixed lines are
    // that rank's.
    int world_comm = 0;
    for (const auto& [host_pid, rank_n] : t_.host_pid_to_rank) world_comm = std::max(world_comm, rank_n.second);
    std::vector<std::set<std::pair<std::string, long>>> writers(t_.groups.size());
    for (const auto& [key, ps] : t_.raw_processes)
        if (key.pid) writers[key.group].insert({ps.host.value_or(""), *key.pid});
    for (std::size_t g = 0; g < t_.groups.size(); ++g) {
        if (sole_rank_[g] || !ranks[g].empty() || has_local[g] || writers[g].size() != 1) continue;
        const auto it = t_.host_pid_to_rank.find(*writers[g].begin());
        if (it != t_.host_pid_to_rank.end() && world_comm > 1 && it->second.second == world_comm)
            sole_rank_[g] = it->second.first;
    }
}

// Each raw process's summary folded into the process it is.
void ProcessTable::gather_summaries() {
    for (const auto& [key, ps] : t_.raw_processes) {
        Process& p = process_for(key, ps.host);
        p.summary.lines += ps.lines;
        p.summary.launcher_lines += ps.launcher_lines;
        p.own_lines += ps.lines - ps.launcher_lines;
        p.job_lines += ps.job_lines;
        if (ps.lines > ps.launcher_lines &&
            (p.summary.last_line.text.empty() || ps.last_line.line > p.summary.last_line.line ||
             ps.last_line.file != p.summary.last_line.file))
            p.summary.last_line = ps.last_line;
        if (ps.last_time) p.summary.last_time = ps.last_time;
        if (ps.host) p.hosts.insert(*ps.host);
        if (ps.cuda_dev) p.summary.cuda_dev = ps.cuda_dev;
    }
}

// Each event to the process it is about: its writer, or the worker it names by local rank, rank, task or pid.
void ProcessTable::assign_events() {
    std::set<std::size_t> ranked_by_task_list, ranked_by_own_line;   // process indices
    for (const Event& e : t_.events) {
        if (on_foreign_gpu(e)) {
            foreign_gpu_events_.push_back(&e);
            continue;
        }
        RawKey key = e.key;
        bool by_task_list = false;
        if (!key.rank && !key.local_rank)
            // A line about a worker by its local rank (mp.spawn's parent: "ProcessExitedException: process 3
            // terminated with signal SIGKILL") is that worker's.
            if (auto l = e.number("local_rank"); l && *l >= 0 && *l < kMaxWorld) {
                key.local_rank = static_cast<int>(*l);
                key.pid.reset();
            }
        if (!key.rank && !key.local_rank) {
            if (auto r = rank_of_named_process(e)) {
                key.rank = r;
                key.pid.reset();
                by_task_list = listed_tasks_are_workers_ && e.captures.count("task") && !e.captures.count("rank");
            } else if (auto subject = named_worker_pid(e)) {
                // The agent's line about a worker ("Sending process P closing signal SIGTERM") is the worker's
                // event, not the agent's: its own pid in a glog header would make the agent look like a victim.
                key.pid = *subject;
                if (auto l = pid_to_local_[key.group].find(*subject); l != pid_to_local_[key.group].end()) {
                    key.local_rank = l->second;
                    key.pid.reset();
                }
            }
        }
        Process& p = process_for(key, e.host);
        p.events.push_back(&e);
        if (e.host) p.hosts.insert(*e.host);
        const auto index = static_cast<std::size_t>(&p - processes_.data());
        (by_task_list ? ranked_by_task_list : ranked_by_own_line).insert(index);
    }
    for (std::size_t i : ranked_by_task_list)
        if (!ranked_by_own_line.count(i) && processes_[i].rank_inference.empty())
            processes_[i].rank_inference = "inferred: srun's task lines put several tasks on one node and no torchrun "
                                           "ran, so srun started one worker per task and task N is rank N "
                                           "(SLURM_PROCID)";
}

// The pids the agent names and the hosts its summary gives, to the workers they belong to.
void ProcessTable::note_agent_pids_and_hosts() {
    // The pids the agent names (its failure line, the summary, the SIGTERM elimination) belong to workers.
    for (std::size_t g = 0; g < pid_to_local_.size(); ++g)
        for (const auto& [pid, local] : pid_to_local_[g])
            for (Process& p : processes_)
                if (p.group == g && p.local_rank == local && !p.pid) p.pid = pid;
    // The elastic summary's `host :` is the node of the record's worker (one file may hold several agents').
    for (const ExitRecord& x : t_.exits)
        if (x.host && *x.host != "localhost")
            if (auto i = exit_index(x))
                if (processes_[*i].hosts.empty()) processes_[*i].hosts.insert(*x.host);
}

// A process's events in order, sorted into collateral and initiating (specific before the fallback signatures),
// with the wrappers of its own collateral errors and the launcher's after-the-fact reports set aside.
void ProcessTable::sort_out_events(Process& p) {
    std::sort(p.events.begin(), p.events.end(), [](const Event* a, const Event* b) { return a->order < b->order; });
    for (const Event* e : p.events) {
        if (e->role == Role::collateral) {
            p.collateral.push_back(e);
            if (!e->from_launcher) p.direct_collateral.push_back(e);
        } else if (e->role == Role::initiating) {
            (e->signature->fallback ? p.generic_initiating : p.specific_initiating).push_back(e);
        }
    }
    // A launcher reports an exit after the fact ("exitcode: -9"); the worker's own line or the kernel's
    // ("Out of memory: Killed process P") says why, so it leads even when the summary stands earlier in a file.
    auto direct_first = [](std::vector<const Event*>& v) {
        std::stable_partition(v.begin(), v.end(), [](const Event* e) { return !e->from_launcher; });
    };
    direct_first(p.specific_initiating);
    direct_first(p.generic_initiating);
    // An uncaught exception next to a collateral error of the same worker is that error's wrapper. The
    // launcher's own lines do not count: unprefixed worker output shares a process with them.
    // Likewise a launcher's report that the worker died (Ray's ActorDiedError naming its pid) when the worker
    // itself shows why: its own collateral error ended it.
    // In one stream an exception wraps only the collateral error of its own report: a traceback header between
    // them starts another report, which in unprefixed output may be another worker's (a KeyError's traceback,
    // then three peers' "Connection closed" tracebacks).
    auto wraps_collateral = [&p](const Event* e) {
        return std::any_of(p.direct_collateral.begin(), p.direct_collateral.end(), [&](const Event* c) {
            if (c->signature->entry->category == "Launcher") return false;
            if (c->source != e->source) return true;
            const std::uint64_t lo = std::min(c->order, e->order), hi = std::max(c->order, e->order);
            return std::none_of(p.events.begin(), p.events.end(), [&](const Event* m) {
                return m->signature->mark == Mark::failure_start && m->source == e->source && m->order > lo &&
                       m->order <= hi;
            });
        });
    };
    std::erase_if(p.generic_initiating, wraps_collateral);
    // A launcher's report that the worker died yields to the worker's own collateral error before it; a launcher
    // failure before any such error (the rendezvous port in use, then the store unreachable) is the cause.
    std::erase_if(p.specific_initiating, [&p](const Event* e) {
        return e->signature->entry->category == "Launcher" &&
               std::any_of(p.direct_collateral.begin(), p.direct_collateral.end(), [&](const Event* c) {
                   return c->signature->entry->category != "Launcher" && precedes(*c, *e).value_or(true);
               });
    });
    if (p.hosts.empty()) p.hosts = group_host(p.group);
    if (p.pid && t_.groups[p.group].sigterm_pids.count(*p.pid)) p.sigterm_by_agent = true;
}

// An Xid's `PCI:0000:ab:00` and NCCL's `busId ab000` name the same device (engine/pci_address.hpp).

// A kernel line about a GPU and a process that are not the job's: NCCL's Init COMPLETE lines list the job's GPUs
// (bus ids) and worker pids, and the line names neither (another user's process faulting on another GPU).
bool ProcessTable::on_foreign_gpu(const Event& e) const {
    auto pci = e.captures.find("pci");
    auto pid = e.captures.find("pid");
    if (pci == e.captures.end() || pid == e.captures.end() || t_.bus_to_rank.empty() || t_.host_pid_to_rank.empty())
        return false;
    auto bus = bus_id_of_pci(pci->second);
    auto n = to_number<long>(pid->second);
    if (!bus || !n) return false;
    // The job's GPUs must be known where the line comes from: its own host's NCCL lines, or, when the line
    // names no host, a job whose NCCL lines all come from one host.
    std::set<std::string> nccl_hosts;
    for (const auto& [host_bus, rank] : t_.bus_to_rank) nccl_hosts.insert(host_bus.first);
    if (e.host ? !nccl_hosts.count(*e.host) : nccl_hosts.size() != 1) return false;
    for (const auto& [host_bus, rank] : t_.bus_to_rank)
        if (host_bus.second == *bus) return false;
    for (const auto& [host_pid, rank] : t_.host_pid_to_rank)
        if (host_pid.second == *n) return false;
    for (const ExitRecord& x : t_.exits)
        if (x.pid == n) return false;
    return true;
}

// The worker a launcher's line names by pid, when that is not the line's own writer (the agent's pid in a glog
// header). Only launcher lines: a worker's own line naming a pid (a DataLoader worker's) is about a child of it.
std::optional<long> ProcessTable::named_worker_pid(const Event& e) const {
    if (!e.from_launcher) return std::nullopt;
    auto it = e.captures.find("pid");
    if (it == e.captures.end()) return std::nullopt;
    auto pid = to_number<long>(it->second);
    if (!pid || (e.key.pid && *e.key.pid == *pid)) return std::nullopt;
    return pid;
}

// The rank of the process an event names by pid (the OOM killer's victim, a Ray worker) or by GPU bus
// (an Xid), when another line ties that pid or bus to a rank.
std::optional<int> ProcessTable::rank_of_named_process(const Event& e) const {
    // A line about a rank by number ("mpirun noticed that process rank 6 ... exited on signal 9").
    if (auto it = e.captures.find("rank"); it != e.captures.end())
        if (auto r = to_number<int>(it->second)) return r;
    if (auto it = e.captures.find("pid"); it != e.captures.end()) {
        if (auto pid = to_number<long>(it->second)) {
            if (auto r = pid_rank_.find(*pid); r != pid_rank_.end()) return r->second;
            if (auto s = stated_pid_rank_.find({e.key.group, *pid}); s != stated_pid_rank_.end() && s->second)
                return s->second;
        }
    }
    // srun's line about task N, when every srun task holds one worker: task N is rank N (SLURM_PROCID).
    if (auto it = e.captures.find("task"); it != e.captures.end())
        if (auto task = to_number<int>(it->second))
            for (std::size_t g = 0; g < t_.groups.size(); ++g)
                if (task_is_rank_[g] && t_.groups[g].srun_task == task) return task;
    if (auto it = e.captures.find("task"); it != e.captures.end() && listed_tasks_are_workers_) return to_number<int>(it->second);
    if (auto it = e.captures.find("pci"); it != e.captures.end()) {
        auto bus = bus_id_of_pci(it->second);
        if (!bus) return std::nullopt;
        std::optional<int> found;
        int matches = 0;
        for (const auto& [host_bus, rank] : t_.bus_to_rank) {
            if (host_bus.second != *bus) continue;
            if (e.host && host_bus.first != *e.host) continue;
            found = rank;
            ++matches;
        }
        if (matches == 1) return found;   // a bus id seen on several hosts needs the event's host to decide
    }
    return std::nullopt;
}

// NCCL's proxy thread on every local peer logs "Connection closed by localRank L" when L's process goes away. Where
// the peers of one host that say so all name one L, none of them drives GPU L, and exactly one other process of that
// host, known only by its pid, failed on its own, that process is local rank L: the one that went away.
void ProcessTable::pair_closed_peer_by_elimination() {
    struct HostView {
        std::set<int> named;                // local ranks the peers name
        std::set<long> pointing;            // pids of the peers that say so
        std::set<int> pointing_gpus;        // their GPU indices
        std::set<std::pair<std::uint32_t, long>> failed;   // (group, pid) of pid-only processes that failed
    };
    std::map<std::string, HostView> hosts;
    for (const Event& e : t_.events) {
        if (!e.host || !e.key.pid || e.key.rank || e.key.local_rank) continue;
        HostView& h = hosts[std::string(short_host_name(*e.host))];
        if (auto l = e.number("peer_local_rank")) {
            if (*l >= kMaxWorld) continue;
            h.named.insert(static_cast<int>(*l));
            h.pointing.insert(*e.key.pid);
            if (auto raw = t_.raw_processes.find(e.key); raw != t_.raw_processes.end() && raw->second.cuda_dev)
                h.pointing_gpus.insert(*raw->second.cuda_dev);
        } else if (e.role == Role::initiating) {
            h.failed.insert({e.key.group, *e.key.pid});
        }
    }
    for (auto& [host, h] : hosts) {
        if (h.named.size() != 1 || h.pointing_gpus.count(*h.named.begin())) continue;
        std::vector<std::pair<std::uint32_t, long>> candidates;
        for (const auto& f : h.failed)
            if (!h.pointing.count(f.second)) candidates.push_back(f);
        if (candidates.size() != 1) continue;
        const auto [group, pid] = candidates.front();
        if (!pid_to_local_[group].try_emplace(pid, *h.named.begin()).second) continue;
        paired_by_peers_[{group, pid}] = "its peers on " + host + " report 'Connection closed by localRank " +
                                         std::to_string(*h.named.begin()) + "', and pid " + std::to_string(pid) +
                                         " is the one process there that failed and is none of them";
    }
}

// The local ranks, pids and ranks each group's lines name.
struct ProcessTable::GroupIdentities {
    std::vector<std::set<int>> locals;
    std::vector<std::set<long>> pids;
    std::vector<std::set<int>> ranks;
};

// How each group's local ranks map to global ranks (an offset), which srun tasks are ranks, and which pids a line
// ties to a rank.
void ProcessTable::infer_mappings() {
    const std::size_t n = t_.groups.size();
    local_offset_.assign(n, std::nullopt);
    offset_reason_.assign(n, {});
    offset_guessed_.assign(n, false);
    task_is_rank_.assign(n, false);
    GroupIdentities ids{std::vector<std::set<int>>(n), std::vector<std::set<long>>(n), std::vector<std::set<int>>(n)};
    for (std::size_t g = 0; g < n; ++g)   // pids paired with a local rank (the agent's lines, elimination)
        for (const auto& [pid, local] : pid_to_local_[g]) ids.locals[g].insert(local);
    for (const auto& [key, ps] : t_.raw_processes) {
        if (key.local_rank) ids.locals[key.group].insert(*key.local_rank);
        if (key.pid) ids.pids[key.group].insert(*key.pid);
        if (key.rank) ids.ranks[key.group].insert(*key.rank);
    }
    for (const Event& e : t_.events)   // a line about a worker by its local rank (mp.spawn's parent) names one too
        if (!e.key.rank && !e.key.local_rank)
            if (auto l = e.number("local_rank"); l && *l < kMaxWorld) ids.locals[e.key.group].insert(static_cast<int>(*l));
    if (!map_stated_offsets()) guess_single_node_offset(ids);
    find_task_ranks(ids);
    note_stated_pid_ranks();
}

// Offsets a group states: its launch line's first rank, or local ranks its lines map to global ones with one offset.
// Returns whether any group has such a mapping.
bool ProcessTable::map_stated_offsets() {
    const std::size_t n = t_.groups.size();
    bool any_mapping = false;
    for (std::size_t g = 0; g < n; ++g) {
        const auto& map = t_.groups[g].local_to_rank;
        const auto& launched = t_.groups[g].launch_first_rank;
        if (map.empty() && launched && !t_.groups[g].several_agents) {
            // The node's launch line states its rank and processes per node (detectron2's --machine-rank with
            // --num-gpus, torchrun's --node_rank with --nproc_per_node).
            any_mapping = true;
            local_offset_[g] = *launched;
            offset_reason_[g] = "inferred: the launch line of " + t_.groups[g].name + " places its local ranks from global rank " +
                                std::to_string(*launched) + " (node rank x processes per node)";
            continue;
        }
        if (map.empty() || t_.groups[g].several_agents) continue;
        any_mapping = true;
        int offset = map.begin()->second - map.begin()->first;
        bool same = std::all_of(map.begin(), map.end(), [&](const auto& kv) { return kv.second - kv.first == offset; });
        if (same && offset >= 0) {
            local_offset_[g] = offset;
            offset_reason_[g] = "inferred: the other local ranks of " + t_.groups[g].name + " map to global ranks " +
                                (offset == 0 ? std::string("one to one") : "with offset " + std::to_string(offset));
        }
    }
    return any_mapping;
}

// One node, no mapping anywhere: the local ranks are the global ranks unless the world is larger. Another file
// (or node stream) with worker processes of its own (NCCL's pid lines) is another node: then the guess has
// nothing to stand on.
void ProcessTable::guess_single_node_offset(const GroupIdentities& ids) {
    const std::size_t n = t_.groups.size();
    const auto& locals = ids.locals;
    const auto& ranks = ids.ranks;
    const auto other_group_has_workers = [&](std::size_t g) {
        return std::any_of(t_.raw_processes.begin(), t_.raw_processes.end(), [&](const auto& kv) {
            return kv.first.group != g && (kv.first.pid || kv.first.rank) && kv.second.lines > kv.second.launcher_lines;
        });
    };
    // Files whose paths name another node (gpu-n31/attempt_0/0/stderr.log beside gpu-n32/...) are another node's,
    // even where the part of them that is here names no worker.
    const auto other_node_by_path = [&](std::size_t g) {
        for (std::size_t h = 0; h < n; ++h)
            if (h != g && t_.groups[h].node_from_path && t_.groups[h].name != t_.groups[g].name) return true;
        return false;
    };
    std::vector<std::size_t> with_locals;
    for (std::size_t g = 0; g < n; ++g)
        if (!locals[g].empty()) with_locals.push_back(g);
    if (with_locals.size() == 1) {
        std::size_t g = with_locals.front();
        int span = *locals[g].rbegin() + 1;
        // A global rank the group's own lines name beyond its local ranks (`[rank6]:` beside local rank 2) shows
        // the node is not the first: no offset of 0.
        const bool ranks_fit = ranks[g].empty() || *ranks[g].rbegin() < span;
        if (t_.topology.loopback_rendezvous && ranks_fit) {
            // A rendezvous on loopback admits no other host: the ranks that started all run here, in local order.
            local_offset_[g] = 0;
            offset_reason_[g] = "inferred: the rendezvous is on this host's loopback (\"" +
                                excerpt(*t_.topology.loopback_rendezvous, 80) +
                                "\"), which no other host can join, so every rank runs here and local rank N is rank N";
        } else if (t_.world_size && *t_.world_size <= span && ranks_fit) {
            local_offset_[g] = 0;
            offset_reason_[g] = "inferred: the world has " + std::to_string(*t_.world_size) +
                                " ranks and this node's local ranks span them all, so local rank N is rank N";
        } else if (!t_.world_size && ranks_fit && !other_group_has_workers(g) && !other_node_by_path(g)) {
            local_offset_[g] = 0;
            offset_guessed_[g] = true;
            offset_reason_[g] = "a guess: only one node's output is here, no line gives the world size or maps local "
                                "ranks to global ones, so local rank N is taken as global rank N (true only if this "
                                "is the first or the only node)";
        }
    }
}

    // srun tasks holding one worker each: the task index is SLURM_PROCID, the rank. A worker of task T on a GPU
    // numbered above T is not task T's only worker: one worker per task picks its GPU by its rank or local task id
    // (both at most T) or sees only its own GPU (0), so that task is a node's launcher with several workers.
void ProcessTable::find_task_ranks(const GroupIdentities& ids) {
    const std::size_t n = t_.groups.size();
    const auto& locals = ids.locals;
    const auto& pids = ids.pids;
    const auto& ranks = ids.ranks;
    std::vector<int> highest_device(n, -1);
    for (const auto& [key, ps] : t_.raw_processes)
        if (ps.cuda_dev) highest_device[key.group] = std::max(highest_device[key.group], *ps.cuda_dev);
    bool tasks = false, one_each = true;
    for (std::size_t g = 0; g < n; ++g) {
        if (!t_.groups[g].srun_task) continue;
        tasks = true;
        int task = *t_.groups[g].srun_task;
        if (!locals[g].empty() || pids[g].size() > 1 || ranks[g].size() > 1 ||
            (ranks[g].size() == 1 && *ranks[g].begin() != task) || highest_device[g] > task)
            one_each = false;
    }
    if (tasks && one_each)
        for (std::size_t g = 0; g < n; ++g)
            if (t_.groups[g].srun_task) task_is_rank_[g] = true;
    // Where torchrun ran, srun's tasks are its agents, one per node or more: a task is a node's workers, not a rank.
    if (!tasks && !t_.torchrun) listed_tasks_are_workers_ = several_tasks_on_a_node(t_.topology.task_hosts);
}

// pids whose rank a line states: the summary's records and NCCL's Init COMPLETE lines, a rank-and-pid line, a writer
// known by pid whose own lines name a rank.
void ProcessTable::note_stated_pid_ranks() {
    for (const ExitRecord& x : t_.exits)
        if (x.rank && x.pid) pid_rank_[*x.pid] = *x.rank;
    for (const auto& [host_pid, rank_n] : t_.host_pid_to_rank) pid_rank_.try_emplace(host_pid.second, rank_n.first);
    for (const Event& e : t_.events) {
        auto r = e.captures.find("rank"), p = e.captures.find("pid");
        if (r == e.captures.end() || p == e.captures.end()) continue;
        auto rank = to_number<int>(r->second);
        auto pid = to_number<long>(p->second);
        if (!rank || !pid) continue;
        auto [it, fresh] = stated_pid_rank_.try_emplace({e.key.group, *pid}, *rank);
        if (!fresh && it->second != rank) it->second.reset();
    }
    // A writer known by pid (Ray's `(pid=21508)`) whose own lines name a rank (`[Rank 2] Watchdog caught ...`) is
    // that rank in all its lines.
    for (std::uint32_t g = 0; g < t_.groups.size(); ++g)
        for (const auto& [pid, rank] : t_.groups[g].pid_rank) {
            auto [it, fresh] = stated_pid_rank_.try_emplace({g, pid}, rank);
            if (!fresh && it->second != rank) it->second.reset();
        }
}

// The one host a group's lines run on, when the group is one node's output: a torchrun agent's stream (local
// ranks), an srun task, or a stream whose ranked workers never name a host themselves (so the hosts it names
// come from node-level lines). A stream like mpirun's, where workers on several nodes print their own hosts,
// gives its hosts to nobody else.
std::set<std::string> ProcessTable::group_host(std::uint32_t group) const {
    std::set<std::string> named = t_.groups[group].hosts;
    named.erase("localhost");
    const auto host = one_host(named);
    if (!host) return {};
    const std::set<std::string> hosts{*host};
    bool node_stream = t_.groups[group].srun_task.has_value();
    bool ranked_with_host = false;
    for (const auto& [key, ps] : raw_of_group(t_, group)) {
        if (key.local_rank) node_stream = true;
        if (key.rank && ps.host) ranked_with_host = true;
    }
    if (node_stream || !ranked_with_host) return hosts;
    return {};
}

std::string ProcessTable::key_of(const RawKey& k, const std::optional<std::string>& host, std::optional<int>& rank,
                                 std::optional<int>& local, std::optional<long>& pid, std::string* inference,
                                 bool* guessed) const {
    const Group& g = t_.groups[k.group];
    rank = k.rank;
    local = k.local_rank;
    pid = k.pid;
    if (!rank && pid) rank = rank_of_summary_pid(k.group, *pid, host);
    if (!rank && pid)
        if (auto it = stated_pid_rank_.find({k.group, *pid}); it != stated_pid_rank_.end()) rank = it->second;
    if (!local && pid) {
        const auto& map = pid_to_local_[k.group];
        if (auto it = map.find(*pid); it != map.end()) local = it->second;
    }
    if (!rank && local && !g.several_agents)
        if (auto it = g.local_to_rank.find(*local); it != g.local_to_rank.end()) rank = it->second;
    if (!rank && local && !g.several_agents)
        if (auto it = g.local_host_pid.find(*local); it != g.local_host_pid.end())
            if (auto r = t_.host_pid_to_rank.find(it->second); r != t_.host_pid_to_rank.end()) rank = r->second.first;
    if (!rank && pid) {
        auto try_host = [&](const std::string& h) {
            if (auto it = t_.host_pid_to_rank.find({h, *pid}); it != t_.host_pid_to_rank.end()) rank = it->second.first;
        };
        if (host) try_host(*host);
        for (const auto& h : g.hosts)
            if (!rank) try_host(h);
    }
    if (!rank && local && local_offset_[k.group]) {
        rank = *local + *local_offset_[k.group];
        if (guessed) *guessed = offset_guessed_[k.group];
        if (inference) {
            *inference = offset_reason_[k.group];
            if (auto by = paired_by_peers_.find({k.group, pid.value_or(-1)}); pid && by != paired_by_peers_.end())
                *inference += "; and it is local rank " + std::to_string(*local) + " because " + by->second;
        }
    }
    if (!rank && local && !g.several_agents) rank = rank_of_local_on_mapped_host(k.group, *local);
    if (!rank && !local && pid && host)
        if (auto inferred = rank_of_gpu_on_host(k, *host)) {
            rank = inferred;
            if (inference)
                *inference = "inferred: the launcher places ranks " + ranks_on_host_phrase(*host) + " on " + *host +
                             ", in local-rank order, and local rank N drives GPU N, so GPU " +
                             std::to_string(*t_.raw_processes.at(k).cuda_dev) + " is rank " + std::to_string(*rank);
        }
    if (!rank && !local && !pid && host)
        if (const std::set<int>* ranks = ranks_on_host(*host); ranks && ranks->size() == 1) {
            rank = *ranks->begin();
            if (inference)
                *inference = "inferred: the launcher runs one worker on " + *host + ", rank " + std::to_string(*rank) +
                             ", so that host's output that names no process is that rank's";
        }
    if (!rank && !local && g.path_rank) rank = g.path_rank;
    if (!rank && !local && !sole_rank_.empty() && sole_rank_[k.group] && !(pid && g.relayed_pids.count(*pid)))
        rank = sole_rank_[k.group];
    if (!rank && !local && task_is_rank_[k.group] && g.srun_task) {
        rank = g.srun_task;
        if (inference)
            *inference = "inferred: each srun task holds one worker, so task " + std::to_string(*g.srun_task) +
                         " is rank " + std::to_string(*g.srun_task) + " (SLURM_PROCID)";
    }
    if (rank) return "r" + std::to_string(*rank);
    if (local) return "g" + std::to_string(k.group) + "l" + std::to_string(*local);
    if (pid) return "g" + std::to_string(k.group) + "p" + std::to_string(*pid);
    return "g" + std::to_string(k.group);
}

// The ranks a launcher's mapping places on a host (DeepSpeed's global_rank_mapping), in local-rank order.
const std::set<int>* ProcessTable::ranks_on_host(const std::string& host) const {
    for (const auto& [h, ranks] : t_.topology.host_ranks)
        if (same_host(h, host) && !ranks.empty()) return &ranks;
    return nullptr;
}

std::string ProcessTable::ranks_on_host_phrase(const std::string& host) const {
    const std::set<int>* ranks = ranks_on_host(host);
    if (!ranks) return "none";
    return std::to_string(*ranks->begin()) + "-" + std::to_string(*ranks->rbegin());
}

// A process known only by host, pid and the GPU NCCL names ([dev]): where a launcher's mapping lists the host's
// ranks, the GPU's index among them is its local rank (each worker drives the GPU of its local rank), so the rank is
// that entry of the list. An inference: a job that maps GPUs otherwise (CUDA_VISIBLE_DEVICES per worker) breaks it.
std::optional<int> ProcessTable::rank_of_gpu_on_host(const RawKey& k, const std::string& host) const {
    const auto raw = t_.raw_processes.find(k);
    if (raw == t_.raw_processes.end() || !raw->second.cuda_dev || *raw->second.cuda_dev < 0) return std::nullopt;
    const std::set<int>* ranks = ranks_on_host(host);
    if (!ranks || static_cast<std::size_t>(*raw->second.cuda_dev) >= ranks->size()) return std::nullopt;
    // Consecutive ranks only: a mapping with gaps is not one node's local ranks in order.
    if (*ranks->rbegin() - *ranks->begin() + 1 != static_cast<int>(ranks->size())) return std::nullopt;
    return *std::next(ranks->begin(), *raw->second.cuda_dev);
}

// Local rank L of a node's stream, where a launcher's mapping lists that node's ranks (DeepSpeed's
// global_rank_mapping, numbered in local-rank order): the L-th of them. The node is the group's one host, or the only
// host the mapping names (a single-node job whose lines name no host: 'localhost').
std::optional<int> ProcessTable::rank_of_local_on_mapped_host(std::uint32_t group, int local) const {
    const std::set<int>* ranks = nullptr;
    if (const auto hosts = group_host(group); hosts.size() == 1) ranks = ranks_on_host(*hosts.begin());
    if (!ranks) {
        int mapped = 0;
        for (const auto& [host, listed] : t_.topology.host_ranks)
            if (!listed.empty()) {
                ++mapped;
                ranks = &listed;
            }
        if (mapped != 1) return std::nullopt;
    }
    if (local < 0 || static_cast<std::size_t>(local) >= ranks->size()) return std::nullopt;
    return *std::next(ranks->begin(), local);
}

// The rank torchrun's summary gives the worker with this pid in this group; a pid seen in two records with
// different ranks (several nodes' agents in one file) needs the line's host to tell them apart.
std::optional<int> ProcessTable::rank_of_summary_pid(std::uint32_t group, long pid,
                                                     const std::optional<std::string>& host) const {
    std::optional<int> found;
    for (const ExitRecord& x : t_.exits) {
        if (x.group != group || !x.pid || *x.pid != pid || !x.rank) continue;
        if (host && x.host && short_host_name(*host) != short_host_name(*x.host)) continue;
        if (found && *found != *x.rank) return std::nullopt;
        found = x.rank;
    }
    return found;
}

Process& ProcessTable::process_for(const RawKey& k, const std::optional<std::string>& host) {
    std::optional<int> rank, local;
    std::optional<long> pid;
    std::string inference;
    bool guessed = false;
    std::string key = key_of(k, host, rank, local, pid, &inference, &guessed);
    auto it = index_.find(key);
    if (it != index_.end()) {
        Process& p = processes_[it->second];
        if (!p.local_rank && local) p.local_rank = local;
        if (!p.pid && pid) p.pid = pid;
        // A rank read from a line somewhere beats the same rank inferred elsewhere.
        if (inference.empty()) p.rank_inference.clear();
        if (inference.empty() || !guessed) p.rank_guessed = false;
        return p;
    }
    Process p;
    p.rank = rank;
    p.local_rank = local;
    p.pid = pid;
    p.group = k.group;
    p.group_name = t_.groups[k.group].name;
    p.rank_inference = inference;
    p.rank_guessed = guessed;
    index_.emplace(key, processes_.size());
    processes_.push_back(std::move(p));
    return processes_.back();
}

const Process* ProcessTable::by_rank(int rank) const {
    auto it = index_.find("r" + std::to_string(rank));
    return it == index_.end() ? nullptr : &processes_[it->second];
}

std::optional<std::size_t> ProcessTable::exit_index(const ExitRecord& x) const {
    RawKey k{x.group, x.rank, x.local_rank, x.rank || x.local_rank ? std::nullopt : x.pid};
    std::optional<int> rank, local;
    std::optional<long> pid;
    auto it = index_.find(key_of(k, x.host, rank, local, pid));
    if (it == index_.end()) return std::nullopt;
    return it->second;
}

const Process* ProcessTable::resolve_exit(const ExitRecord& x) const {
    auto i = exit_index(x);
    return i ? &processes_[*i] : nullptr;
}

std::optional<int> ProcessTable::world_size() const {
    // No job has a million ranks; a larger number is noise (a line number, a hash) and must not size loops.
    std::optional<int> w;
    if (t_.world_size && *t_.world_size > 0 && *t_.world_size <= kMaxWorld) w = t_.world_size;
    int highest = -1;
    for (const Process& p : processes_)
        if (p.rank && *p.rank < kMaxWorld) highest = std::max(highest, *p.rank);
    for (int r : t_.ranks_named)
        if (r < kMaxWorld) highest = std::max(highest, r);
    // A launcher's rank mapping (DeepSpeed's global_rank_mapping) lists every rank of the world.
    for (const auto& [host, ranks] : t_.topology.host_ranks)
        if (!ranks.empty() && *ranks.rbegin() < kMaxWorld) highest = std::max(highest, *ranks.rbegin());
    // Tasks srun lists are ranks when it started one worker per task.
    if (listed_tasks_are_workers_)
        for (const auto& [task, host] : t_.topology.task_hosts)
            if (task < kMaxWorld) highest = std::max(highest, task);
    if (highest >= 0) w = std::max(w.value_or(0), highest + 1);
    return w;
}

std::vector<int> ProcessTable::unseen_ranks(std::optional<int> world) const {
    std::vector<int> out;
    if (!world) return out;
    for (int r = 0; r < *world; ++r) {
        const Process* p = by_rank(r);
        if (!p || p->own_lines == 0) out.push_back(r);
    }
    return out;
}

std::vector<int> ProcessTable::seen_ranks() const {
    std::vector<int> out;
    for (const Process& p : processes_)
        if (p.rank && p.own_lines > 0) out.push_back(*p.rank);
    std::sort(out.begin(), out.end());
    return out;
}

}  // namespace denpex

namespace denpex {

bool ProcessTable::has_shared_stream() const {
    std::map<std::uint32_t, std::set<int>> ranks;
    for (const Process& p : processes_)
        if (p.rank && p.own_lines > 0) ranks[p.group].insert(*p.rank);
    return std::any_of(ranks.begin(), ranks.end(), [](const auto& kv) { return kv.second.size() >= 2; });
}

bool ProcessTable::has_unclaimed_sigterm_pid() const {
    for (std::size_t g = 0; g < t_.groups.size(); ++g)
        for (long pid : t_.groups[g].sigterm_pids)
            if (!pid_rank_.count(pid) && !pid_to_local_[g].count(pid)) return true;
    return false;
}

bool ProcessTable::has_unclaimed_worker_output() const {
    for (const Process& p : processes_)
        // Job output besides its errors; prose pasted around an excerpt ("copied only this part") is nobody's.
        if (!p.rank && !p.local_rank && p.job_lines > p.events.size()) return true;
    for (std::size_t g = 0; g < t_.groups.size(); ++g)
        for (long pid : t_.groups[g].sigterm_pids)
            if (!pid_rank_.count(pid) && !pid_to_local_[g].count(pid)) return true;
    return false;
}

}  // namespace denpex
