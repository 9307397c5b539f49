#include "engine/job_topology.hpp"

#include <algorithm>

#include <re2/re2.h>

#include "engine/bounded_number.hpp"
#include "engine/literal_find.hpp"
#include "engine/process_table.hpp"

namespace denpex {
namespace {

// srun names tasks 0..N-1; a range wider than this is not a job's (and is never expanded task by task).
constexpr std::uint64_t kMaxTasksInRange = 4096;
constexpr int kMaxTask = 1 << 24;

// Every line's body is tested for these: searched by their rarest byte (engine/literal_find.hpp).
constexpr Literal kMasterAddr("MASTER_ADDR="), kGlobalRankMapping("global_rank_mapping"),
    kWorldInfo("WORLD INFO DICT"), kNnodesUpper("NNODES"), kNnodes("nnodes"), kNprocUpper("NPROC_PER_NODE"),
    kNproc("nproc"), kDistWorldSize("dist_world_size="), kLightningMember(", MEMBER: "),
    kLightningRegistered("processes registered. Starting with "), kTcpLoopback("tcp://127.0.0.1:"),
    kTcpLocalhost("tcp://localhost:"), kWorldSizeColon("World size: "), kUnderscoreRank("_rank"), kDashRank("-rank"),
    kUnderscoreRankUpper("_RANK=");

bool has(std::string_view text, const Literal& needle) { return needle.in(text); }

// srun's task list, items `N` or `N-M` joined by commas; nullopt when an item is malformed or the whole names more
// tasks than a job can have.
std::optional<std::vector<int>> task_list(std::string_view list) {
    std::vector<int> tasks;
    std::uint64_t budget = kMaxTasksInRange;
    while (!list.empty()) {
        const std::size_t comma = list.find(',');
        const std::string_view item = list.substr(0, comma);
        list = comma == std::string_view::npos ? std::string_view() : list.substr(comma + 1);
        const std::size_t dash = item.find('-');
        const std::string_view first = item.substr(0, dash);
        const std::string_view last = dash == std::string_view::npos ? first : item.substr(dash + 1);
        const auto span = bounded_span<int>(first, last, 0, kMaxTask, budget);
        if (!span) return std::nullopt;
        budget -= static_cast<std::uint64_t>(span->second - span->first) + 1;
        for (int t = span->first; t <= span->second; ++t) tasks.push_back(t);
    }
    if (tasks.empty()) return std::nullopt;
    return tasks;
}

}  // namespace

SrunSubject read_topology_line(std::string_view body, JobTopology& out) {
    // Launch and environment lines are short; a 10 MB tensor dump need not be searched six times.
    body = body.substr(0, 4096);
    re2::StringPiece text(body.data(), body.size());
    if (has(body, kMasterAddr)) {
        static const RE2 re(R"(MASTER_ADDR=["']?([A-Za-z0-9][A-Za-z0-9.-]*))");
        std::string host;
        if (RE2::PartialMatch(text, re, &host) && host != "localhost" && host != "127.0.0.1") {
            out.masters.insert(host);
            out.host_ranks[host];
        } else if (!host.empty() && !out.loopback_rendezvous) {
            out.loopback_rendezvous = std::string(body.substr(0, 200));
        }
    }
    if (has(body, kGlobalRankMapping) || has(body, kWorldInfo)) {
        // {'worker-0': [0, 1, 2], 'worker-1': [3, 4, 5]}: the global form names ranks. WORLD INFO DICT names each
        // host's GPU slots; DeepSpeed's launcher numbers ranks through the hosts in that order, a host's slots
        // consecutive, so the slot counts give the same ranks.
        static const RE2 pair(R"('([A-Za-z0-9][A-Za-z0-9.-]*)': \[([0-9, ]*)\])");
        const bool global = has(body, kGlobalRankMapping);
        re2::StringPiece rest = text;
        std::string host, list;
        int next_rank = 0;
        while (RE2::FindAndConsume(&rest, pair, &host, &list)) {
            auto& ranks = out.host_ranks[host];
            std::string_view rest_of_list = list;
            while (!rest_of_list.empty()) {
                const std::size_t start = rest_of_list.find_first_of("0123456789");
                if (start == std::string_view::npos) break;
                rest_of_list.remove_prefix(start);
                std::size_t end = rest_of_list.find_first_not_of("0123456789");
                if (end == std::string_view::npos) end = rest_of_list.size();
                const auto n = parse_bounded<int>(rest_of_list.substr(0, end), 0, kMaxWorld - 1);
                if (n && global) ranks.insert(*n);
                if (n && !global && next_rank < kMaxWorld) ranks.insert(next_rank++);
                rest_of_list.remove_prefix(end);
            }
        }
    }
    if ((has(body, kNnodesUpper) || has(body, kNnodes)) && (has(body, kNprocUpper) || has(body, kNproc))) {
        static const RE2 nodes(R"((?i)(?:\bNNODES=|--nnodes[= ])(\d+)\b)");
        static const RE2 procs(R"((?i)(?:\bNPROC_PER_NODE=|--nproc[_-]per[_-]node[= ])(\d+)\b)");
        std::string n_text, p_text;
        if (RE2::PartialMatch(text, nodes, &n_text) && RE2::PartialMatch(text, procs, &p_text)) {
            const auto n = parse_bounded<int>(n_text, 1, 100000), p = parse_bounded<int>(p_text, 1, 1024);
            if (n && p && *n * *p <= kMaxWorld) out.world_size = std::max(out.world_size.value_or(0), *n * *p);
        }
    }
    if (has(body, kDistWorldSize)) {
        // DeepSpeed's launcher on every node: `[launch.py:163:main] dist_world_size=24`.
        static const RE2 re(R"(\bdist_world_size=(\d+)\b)");
        std::string n_text;
        if (RE2::PartialMatch(text, re, &n_text))
            if (auto n = parse_bounded<int>(n_text, 1, kMaxWorld)) out.world_size = std::max(out.world_size.value_or(0), *n);
    }
    if ((has(body, kTcpLoopback) || has(body, kTcpLocalhost)) && !out.loopback_rendezvous)
        // init_process_group's init_method / a dist_url on this host's loopback: `dist_url=tcp://127.0.0.1:23456`.
        out.loopback_rendezvous = std::string(body.substr(0, 200));
    if (has(body, kLightningMember) || has(body, kLightningRegistered)) {
        // Lightning's _init_dist_connection: `Initializing distributed: GLOBAL_RANK: 3, MEMBER: 4/16` on every rank,
        // then rank 0's `All distributed processes registered. Starting with 16 processes`.
        static const RE2 re(R"((?:GLOBAL_RANK: \d+, MEMBER: \d+/|All distributed processes registered\. Starting with )(\d+)\b)");
        std::string n_text;
        if (RE2::PartialMatch(text, re, &n_text))
            if (auto n = parse_bounded<int>(n_text, 1, kMaxWorld)) out.world_size = std::max(out.world_size.value_or(0), *n);
    }
    if (body.rfind("Num processes: ", 0) == 0) {
        // Accelerate's state banner (`Distributed environment: MULTI_GPU ... Num processes: 16`), one field per line.
        static const RE2 re(R"(^Num processes: (\d+)\s*$)");
        std::string n_text;
        if (RE2::FullMatch(text, re, &n_text))
            if (auto n = parse_bounded<int>(n_text, 1, kMaxWorld)) out.world_size = std::max(out.world_size.value_or(0), *n);
    }
    if (has(body, kWorldSizeColon)) {
        // detectron2's default_setup on every rank: `Rank of current process: 3. World size: 16`.
        static const RE2 re(R"(\bRank of current process: \d+\. World size: (\d+)\b)");
        std::string n_text;
        if (RE2::PartialMatch(text, re, &n_text))
            if (auto n = parse_bounded<int>(n_text, 1, kMaxWorld)) out.world_size = std::max(out.world_size.value_or(0), *n);
    }
    if (body.rfind("srun: error: ", 0) == 0) {
        // srun lists a node's tasks in one line: `task 5`, `tasks 2-3`, `tasks 0,2,6`, `tasks 9-10,12-15`.
        static const RE2 re(R"(^srun: error: ([A-Za-z0-9][A-Za-z0-9.-]*): tasks? ([0-9][0-9,-]*): )");
        std::string host, list;
        if (RE2::PartialMatch(text, re, &host, &list)) {
            out.host_ranks[host];
            const auto tasks = task_list(list);
            // A list too wide, or a task number no job has, names no task: the host is still known.
            if (!tasks) return {host, std::nullopt, {}};
            for (int t : *tasks) out.task_hosts[t] = host;
            if (tasks->size() == 1) return {host, tasks->front(), {}};
            return {host, std::nullopt, *tasks};
        }
    }
    return {};
}

std::string host_of_peer(std::string_view peer) {
    static const RE2 re(R"(^\[?([A-Za-z0-9][A-Za-z0-9.:-]*?[A-Za-z0-9])\]?(?:<\d+>|:\d+)?$)");
    std::string host;
    re2::StringPiece text(peer.data(), peer.size());
    if (!RE2::FullMatch(text, re, &host)) return {};
    // A bare number is a rank or a local rank, not a host; loopback names no other machine.
    if (host.find_first_not_of("0123456789") == std::string::npos) return {};
    if (host.rfind("127.", 0) == 0 || host == "::1" || host == "localhost") return {};
    return host;
}

std::string_view short_host_name(std::string_view h) {
    const bool ip = h.find_first_not_of("0123456789.") == std::string_view::npos;
    return ip ? h : h.substr(0, h.find('.'));
}

std::optional<LaunchPosition> read_launch_position(std::string_view body) {
    body = body.substr(0, 4096);
    // One search per spelling of the rank's separator (node_rank, machine-rank, NODE_RANK=) rather than per name.
    if (!has(body, kUnderscoreRank) && !has(body, kDashRank) && !has(body, kUnderscoreRankUpper)) return std::nullopt;
    re2::StringPiece text(body.data(), body.size());
    static const RE2 node(R"((?i)(?:--|\b)(?:node|machine)[_-]rank(?:[= ]+|=)(\d+)\b)");
    static const RE2 per_node(R"((?i)(?:--nproc[_-]per[_-]node[= ]|\bNPROC_PER_NODE=|--num[_-]gpus[= ]|\bnum_gpus=)(\d+)\b)");
    static const RE2 processes(R"((?i)(?:--num[_-]processes[= ]|\bnum_processes=)(\d+)\b)");
    static const RE2 machines(R"((?i)(?:--num[_-]machines[= ]|\bnum_machines=)(\d+)\b)");
    std::string n_text, p_text, total_text, machines_text;
    if (!RE2::PartialMatch(text, node, &n_text)) return std::nullopt;
    const auto n = parse_bounded<int>(n_text, 0, 100000);
    std::optional<int> p;
    if (RE2::PartialMatch(text, per_node, &p_text)) {
        p = parse_bounded<int>(p_text, 1, 1024);
    } else if (RE2::PartialMatch(text, processes, &total_text) && RE2::PartialMatch(text, machines, &machines_text)) {
        // Accelerate counts processes over all machines.
        const auto total = parse_bounded<int>(total_text, 1, kMaxWorld), m = parse_bounded<int>(machines_text, 1, 100000);
        if (total && m && *total % *m == 0) p = *total / *m;
    }
    if (!n || !p || static_cast<long long>(*n) * *p >= kMaxWorld) return std::nullopt;
    return LaunchPosition{*n, *p};
}

}  // namespace denpex
