#include "engine/timeline_merge.hpp"

#include <algorithm>

namespace denpex {
namespace {

void keep_max(std::optional<int>& into, const std::optional<int>& from) {
    if (from) into = std::max(into.value_or(0), *from);
}

// Sources, groups, events, exits and process summaries: appended, their indices moved past `into`'s.
void append_indexed(Timeline& into, Timeline&& from) {
    const auto source_base = static_cast<std::uint32_t>(into.sources.size());
    const auto group_base = static_cast<std::uint32_t>(into.groups.size());
    // The Collector's reading order counts every event recorded, and the latest one is always kept, so the
    // next order after `into`'s is its largest + 1, as one reader would have numbered `from`'s first event.
    std::uint64_t order_base = 0;
    for (const Event& e : into.events) order_base = std::max(order_base, e.order + 1);

    for (auto& s : from.sources) into.sources.push_back(std::move(s));
    into.job_output_lines.insert(into.job_output_lines.end(), from.job_output_lines.begin(), from.job_output_lines.end());
    for (auto& g : from.groups) into.groups.push_back(std::move(g));
    // No reserve(size + n) here: called once per partial, it would reallocate every time (quadratic in partials);
    // push_back's geometric growth keeps a thousand merges linear.
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
    for (GpuSnapshot& g : from.gpu_snapshots) {
        g.source += source_base;
        into.gpu_snapshots.push_back(std::move(g));
    }
    for (auto& [key, summary] : from.raw_processes) {
        RawKey k = key;
        k.group += group_base;
        into.raw_processes.emplace_hint(into.raw_processes.end(), k, std::move(summary));
    }
}

void merge_topology(JobTopology& into, JobTopology&& from) {
    for (auto& [host, ranks] : from.host_ranks) into.host_ranks[host].insert(ranks.begin(), ranks.end());
    into.masters.insert(from.masters.begin(), from.masters.end());
    for (const auto& [task, host] : from.task_hosts) into.task_hosts[task] = host;   // read_topology_line: last wins
    keep_max(into.world_size, from.world_size);
    if (!into.loopback_rendezvous) into.loopback_rendezvous = std::move(from.loopback_rendezvous);
}

// Message formats imply version ranges; the intersection is taken whatever it is (an empty one is concluded
// as "unknown" only once every input is in, so that merging stays associative).
void merge_versions(Timeline& into, const Timeline& from) {
    if (from.torch_known) {
        into.torch = into.torch_known ? into.torch.intersect(from.torch) : from.torch;
        into.torch_known = true;
    }
    into.torch_stated.insert(from.torch_stated.begin(), from.torch_stated.end());
}

}  // namespace

void merge_timeline(Timeline& into, Timeline&& from) {
    for (const auto& [host_pid, rank_n] : from.host_pid_to_rank)
        into.note_communicator_rank(host_pid, rank_n.first, rank_n.second);
    for (const auto& [bus, rank] : from.bus_to_rank) into.bus_to_rank.try_emplace(bus, rank);
    into.ranks_named.insert(from.ranks_named.begin(), from.ranks_named.end());
    keep_max(into.world_size, from.world_size);
    keep_max(into.nodes_stated, from.nodes_stated);
    keep_max(into.min_nodes, from.min_nodes);
    keep_max(into.max_nodes, from.max_nodes);
    merge_topology(into.topology, std::move(from.topology));
    merge_versions(into, from);
    into.stacks.insert(from.stacks.begin(), from.stacks.end());
    into.torchrun = into.torchrun || from.torchrun;
    into.rendezvous_on_loopback = into.rendezvous_on_loopback || from.rendezvous_on_loopback;
    into.deduplicated = into.deduplicated || from.deduplicated;
    into.bytes += from.bytes;
    into.lines += from.lines;
    into.truncated_lines += from.truncated_lines;
    for (auto& w : from.warnings) into.warnings.push_back(std::move(w));
    append_indexed(into, std::move(from));
}

}  // namespace denpex
