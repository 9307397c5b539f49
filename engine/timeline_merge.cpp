#include "engine/timeline_merge.hpp"

#include <algorithm>

namespace denpex {

void merge_timeline(Timeline& into, Timeline&& from) {
    const auto source_base = static_cast<std::uint32_t>(into.sources.size());
    const auto group_base = static_cast<std::uint32_t>(into.groups.size());
    std::uint64_t order_base = 0;
    for (const Event& e : into.events) order_base = std::max(order_base, e.order + 1);

    for (auto& s : from.sources) into.sources.push_back(std::move(s));
    into.job_output_lines.insert(into.job_output_lines.end(), from.job_output_lines.begin(), from.job_output_lines.end());
    for (auto& g : from.groups) into.groups.push_back(std::move(g));
    for (Event& e : from.events) {
        e.source += source_base;
        e.key.group += group_base;
        e.order += order_base;
        into.events.push_back(std::move(e));
    }
    for (ExitRecord& x : from.exits) {
        x.group += group_base;
        into.exits.push_back(std::move(x));
    }
    for (auto& [key, summary] : from.raw_processes) {
        RawKey k = key;
        k.group += group_base;
        into.raw_processes.emplace(k, std::move(summary));
    }
    for (const auto& [host_pid, rank_n] : from.host_pid_to_rank)
        into.note_communicator_rank(host_pid, rank_n.first, rank_n.second);
    for (const auto& [bus, rank] : from.bus_to_rank) into.bus_to_rank.try_emplace(bus, rank);
    into.ranks_named.insert(from.ranks_named.begin(), from.ranks_named.end());
    if (from.world_size) into.world_size = std::max(into.world_size.value_or(0), *from.world_size);

    for (auto& [host, ranks] : from.topology.host_ranks) into.topology.host_ranks[host].insert(ranks.begin(), ranks.end());
    into.topology.masters.insert(from.topology.masters.begin(), from.topology.masters.end());
    for (const auto& [task, host] : from.topology.task_hosts) into.topology.task_hosts.try_emplace(task, host);
    if (from.topology.world_size)
        into.topology.world_size = std::max(into.topology.world_size.value_or(0), *from.topology.world_size);

    if (from.torch_known) {
        into.torch = into.torch_known ? into.torch.intersect(from.torch) : from.torch;
        into.torch_known = true;
    }
    into.torch_stated.insert(from.torch_stated.begin(), from.torch_stated.end());
    into.stacks.insert(from.stacks.begin(), from.stacks.end());
    if (into.torch_stated.size() > 1) into.torch_known = false;   // inputs from different releases
    into.torchrun = into.torchrun || from.torchrun;
    into.deduplicated = into.deduplicated || from.deduplicated;
    // Two inputs whose formats imply disjoint versions say nothing about the version.
    if (into.torch_known && into.torch.empty()) into.torch_known = false;
    into.bytes += from.bytes;
    into.lines += from.lines;
    into.truncated_lines += from.truncated_lines;
    for (auto& w : from.warnings) into.warnings.push_back(std::move(w));
}

}  // namespace denpex
