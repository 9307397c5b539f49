#include "engine/job_topology.hpp"

#include <algorithm>

#include <re2/re2.h>

namespace denpex {
namespace {

bool has(std::string_view text, std::string_view needle) { return text.find(needle) != std::string_view::npos; }

}  // namespace

SrunSubject read_topology_line(std::string_view body, JobTopology& out) {
    // Launch and environment lines are short; a 10 MB tensor dump need not be searched six times.
    body = body.substr(0, 4096);
    re2::StringPiece text(body.data(), body.size());
    if (has(body, "MASTER_ADDR=")) {
        static const RE2 re(R"(MASTER_ADDR=["']?([A-Za-z0-9][A-Za-z0-9.-]*))");
        std::string host;
        if (RE2::PartialMatch(text, re, &host) && host != "localhost" && host != "127.0.0.1") {
            out.masters.insert(host);
            out.host_ranks[host];
        }
    }
    if (has(body, "global_rank_mapping") || has(body, "WORLD INFO DICT")) {
        // {'worker-0': [0, 1, 2], 'worker-1': [3, 4, 5]}: the global form names ranks, WORLD INFO DICT names
        // local GPU slots, so only the former gives ranks.
        static const RE2 pair(R"('([A-Za-z0-9][A-Za-z0-9.-]*)': \[([0-9, ]*)\])");
        const bool global = has(body, "global_rank_mapping");
        re2::StringPiece rest = text;
        std::string host, list;
        while (RE2::FindAndConsume(&rest, pair, &host, &list)) {
            auto& ranks = out.host_ranks[host];
            if (!global) continue;
            int v = -1;
            for (char c : list) {
                if (c >= '0' && c <= '9') v = (v < 0 ? 0 : v * 10) + (c - '0');
                else if (v >= 0) { ranks.insert(v); v = -1; }
            }
            if (v >= 0) ranks.insert(v);
        }
    }
    if ((has(body, "NNODES") || has(body, "nnodes")) && (has(body, "NPROC_PER_NODE") || has(body, "nproc"))) {
        static const RE2 nodes(R"((?i)(?:\bNNODES=|--nnodes[= ])(\d+)\b)");
        static const RE2 procs(R"((?i)(?:\bNPROC_PER_NODE=|--nproc[_-]per[_-]node[= ])(\d+)\b)");
        int n = 0, p = 0;
        if (RE2::PartialMatch(text, nodes, &n) && RE2::PartialMatch(text, procs, &p) && n > 0 && p > 0 &&
            n <= 100000 && p <= 1024)
            out.world_size = std::max(out.world_size.value_or(0), n * p);
    }
    if (has(body, "dist_world_size=")) {
        // DeepSpeed's launcher on every node: `[launch.py:163:main] dist_world_size=24`.
        static const RE2 re(R"(\bdist_world_size=(\d+)\b)");
        int n = 0;
        if (RE2::PartialMatch(text, re, &n) && n > 0 && n <= 1 << 20)
            out.world_size = std::max(out.world_size.value_or(0), n);
    }
    if (body.rfind("Num processes: ", 0) == 0) {
        // Accelerate's state banner (`Distributed environment: MULTI_GPU ... Num processes: 16`), one field per line.
        static const RE2 re(R"(^Num processes: (\d+)\s*$)");
        int n = 0;
        if (RE2::FullMatch(text, re, &n) && n > 0 && n <= 1 << 20) out.world_size = std::max(out.world_size.value_or(0), n);
    }
    if (body.rfind("srun: error: ", 0) == 0) {
        static const RE2 re(R"(^srun: error: ([A-Za-z0-9][A-Za-z0-9.-]*): tasks? (\d+)(?:-(\d+))?: )");
        std::string host;
        int first = 0;
        std::string last;
        if (RE2::PartialMatch(text, re, &host, &first, &last)) {
            int end = last.empty() ? first : std::stoi(last);
            for (int t = first; t <= end && t - first < 4096; ++t) out.task_hosts[t] = host;
            out.host_ranks[host];
            return {host, end == first ? std::optional<int>(first) : std::nullopt};
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

}  // namespace denpex
