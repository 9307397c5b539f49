#include "engine/process_table.hpp"

#include <algorithm>

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

std::optional<std::string> Process::host() const {
    if (hosts.size() == 1) return *hosts.begin();
    return std::nullopt;
}

ProcessTable::ProcessTable(const Timeline& t) : t_(t) {
    // Per group: pid -> local rank from the agent, plus one pairing by elimination (the SIGTERM'd pid nobody
    // claimed, and the local rank nobody's pid points to).
    pid_to_local_.resize(t.groups.size());
    for (std::size_t g = 0; g < t.groups.size(); ++g) {
        const Group& group = t.groups[g];
        auto& map = pid_to_local_[g];
        map = group.pid_to_local;
        std::set<int> locals;
        for (const auto& [key, ps] : t.raw_processes)
            if (key.group == g && key.local_rank) locals.insert(*key.local_rank);
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

    sole_rank_.resize(t.groups.size());
    {
        std::vector<std::set<int>> ranks(t.groups.size());
        std::vector<bool> has_local(t.groups.size(), false);
        for (const auto& [key, ps] : t.raw_processes) {
            if (key.rank && ps.lines > ps.launcher_lines) ranks[key.group].insert(*key.rank);
            if (key.local_rank) has_local[key.group] = true;
        }
        for (std::size_t g = 0; g < t.groups.size(); ++g)
            if (ranks[g].size() == 1 && !has_local[g]) sole_rank_[g] = *ranks[g].begin();
    }

    for (const auto& [key, ps] : t.raw_processes) {
        Process& p = process_for(key, ps.host);
        p.summary.lines += ps.lines;
        p.summary.launcher_lines += ps.launcher_lines;
        p.own_lines += ps.lines - ps.launcher_lines;
        if (ps.lines > ps.launcher_lines &&
            (p.summary.last_line.text.empty() || ps.last_line.line > p.summary.last_line.line ||
             ps.last_line.file != p.summary.last_line.file))
            p.summary.last_line = ps.last_line;
        if (ps.last_time) p.summary.last_time = ps.last_time;
        if (ps.host) p.hosts.insert(*ps.host);
        if (ps.cuda_dev) p.summary.cuda_dev = ps.cuda_dev;
    }
    for (const Event& e : t.events) {
        Process& p = process_for(e.key, e.host);
        p.events.push_back(&e);
        if (e.host) p.hosts.insert(*e.host);
    }
    for (Process& p : processes_) {
        std::sort(p.events.begin(), p.events.end(), [](const Event* a, const Event* b) { return a->order < b->order; });
        for (const Event* e : p.events) {
            if (e->role == Role::collateral) {
                p.collateral.push_back(e);
                if (!e->from_launcher) p.direct_collateral.push_back(e);
            } else if (e->role == Role::initiating) {
                (e->signature->fallback ? p.generic_initiating : p.specific_initiating).push_back(e);
            }
        }
        // An uncaught exception next to a collateral error of the same worker is that error's wrapper.
        if (!p.direct_collateral.empty()) p.generic_initiating.clear();
        // A worker's lines without a host of their own run on the one host their group names, if only one.
        if (p.hosts.empty()) {
            std::set<std::string> group_hosts = t.groups[p.group].hosts;
            group_hosts.erase("localhost");
            if (group_hosts.size() == 1) p.hosts = group_hosts;
        }
        if (p.pid && t.groups[p.group].sigterm_pids.count(*p.pid)) p.sigterm_by_agent = true;
    }
}

std::string ProcessTable::key_of(const RawKey& k, const std::optional<std::string>& host, std::optional<int>& rank,
                                 std::optional<int>& local, std::optional<long>& pid) const {
    const Group& g = t_.groups[k.group];
    rank = k.rank;
    local = k.local_rank;
    pid = k.pid;
    if (!local && pid) {
        const auto& map = pid_to_local_[k.group];
        if (auto it = map.find(*pid); it != map.end()) local = it->second;
    }
    if (!rank && local)
        if (auto it = g.local_to_rank.find(*local); it != g.local_to_rank.end()) rank = it->second;
    if (!rank && pid) {
        auto try_host = [&](const std::string& h) {
            if (auto it = t_.host_pid_to_rank.find({h, *pid}); it != t_.host_pid_to_rank.end()) rank = it->second.first;
        };
        if (host) try_host(*host);
        for (const auto& h : g.hosts)
            if (!rank) try_host(h);
    }
    if (!rank && !local && g.path_rank) rank = g.path_rank;
    if (!rank && !local && sole_rank_[k.group]) rank = sole_rank_[k.group];
    if (rank) return "r" + std::to_string(*rank);
    if (local) return "g" + std::to_string(k.group) + "l" + std::to_string(*local);
    if (pid) return "g" + std::to_string(k.group) + "p" + std::to_string(*pid);
    return "g" + std::to_string(k.group);
}

Process& ProcessTable::process_for(const RawKey& k, const std::optional<std::string>& host) {
    std::optional<int> rank, local;
    std::optional<long> pid;
    std::string key = key_of(k, host, rank, local, pid);
    auto it = index_.find(key);
    if (it != index_.end()) {
        Process& p = processes_[it->second];
        if (!p.local_rank && local) p.local_rank = local;
        if (!p.pid && pid) p.pid = pid;
        return p;
    }
    Process p;
    p.rank = rank;
    p.local_rank = local;
    p.pid = pid;
    p.group = k.group;
    p.group_name = t_.groups[k.group].name;
    index_.emplace(key, processes_.size());
    processes_.push_back(std::move(p));
    return processes_.back();
}

const Process* ProcessTable::by_rank(int rank) const {
    auto it = index_.find("r" + std::to_string(rank));
    return it == index_.end() ? nullptr : &processes_[it->second];
}

const Process* ProcessTable::resolve_exit(const ExitRecord& x) const {
    RawKey k{x.group, x.rank, x.local_rank, x.rank || x.local_rank ? std::nullopt : x.pid};
    std::optional<int> rank, local;
    std::optional<long> pid;
    auto it = index_.find(key_of(k, x.host, rank, local, pid));
    return it == index_.end() ? nullptr : &processes_[it->second];
}

std::optional<int> ProcessTable::world_size() const {
    std::optional<int> w = t_.world_size;
    int highest = -1;
    for (const Process& p : processes_)
        if (p.rank) highest = std::max(highest, *p.rank);
    for (int r : t_.ranks_named) highest = std::max(highest, r);
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
