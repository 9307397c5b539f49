#include "engine/elastic_summary.hpp"

#include <re2/re2.h>

#include "engine/bounded_number.hpp"

namespace denpex {
namespace {

struct Patterns {
    RE2 failures{R"(^\s*Failures:\s*$)"};
    RE2 root{R"(^\s*Root Cause \(first observed failure\):)"};
    RE2 record{R"(^\s*\[\d+\]:\s*$)"};
    RE2 border{R"(^\s*={20,}\s*$)"};
    RE2 host{R"(^\s*host\s*:\s*(\S+))"};
    RE2 time{R"(^\s*time\s*:\s*(\d{4}-\d\d-\d\d_\d\d:\d\d:\d\d)\s*$)"};
    RE2 rank{R"(^\s*rank\s*:\s*(-?\d+)\s*\(local_rank:\s*(\d+)\))"};
    RE2 exitcode{R"(^\s*exitcode\s*:\s*(-?\d+)\s*\(pid:\s*(\d+)\))"};
    RE2 agent_failed{R"(failed \(exitcode: (-?\d+)\) local_rank: (\d+) \(pid: (\d+)\))"};
    RE2 sigterm{R"(Sending process (\d+) closing signal SIGTERM)"};
};

constexpr int kMaxRank = 1 << 24;
constexpr long kMaxPid = 1L << 32;

const Patterns& patterns() {
    static const Patterns p;
    return p;
}

}  // namespace

ElasticLine ElasticSummaryReader::feed(std::string_view body) {
    const Patterns& p = patterns();
    ElasticLine out;
    re2::StringPiece text(body.data(), body.size());
    // Only short lines can be summary fields; this keeps 10 MB lines cheap.
    if (body.size() > 512) {
        in_record_ = false;
        return out;
    }
    // Numbers are captured as text and read by the bounded parser: a number that does not fit reads as absent.
    std::string code, local, rank, pid;
    std::string host;
    // Every log line passes here: a substring test decides whether any pattern can apply before one runs.
    auto has = [&](std::string_view needle) { return body.find(needle) != std::string_view::npos; };
    if (!in_block_ && !has("failed (exitcode") && !has("closing signal") && !has("Failures:") && !has("death signal"))
        return out;
    if (has("death signal, shutting down workers")) {
        saw_elastic_ = true;
        out.kind = ElasticLine::Kind::death_signal;
        return out;
    }
    if (has("failed (exitcode") && RE2::PartialMatch(text, p.agent_failed, &code, &local, &pid)) {
        saw_elastic_ = true;
        out.kind = ElasticLine::Kind::agent_failed;
        out.exitcode = to_number<int>(code);
        out.local_rank = parse_bounded<int>(local, 0, kMaxRank);
        out.pid = parse_bounded<long>(pid, 0, kMaxPid);
        return out;
    }
    if (has("closing signal") && RE2::PartialMatch(text, p.sigterm, &pid)) {
        saw_elastic_ = true;
        out.kind = ElasticLine::Kind::sigterm;
        out.pid = parse_bounded<long>(pid, 0, kMaxPid);
        return out;
    }
    if (RE2::PartialMatch(text, p.failures)) {
        in_block_ = true;
        saw_elastic_ = true;
        root_section_ = false;
        in_record_ = false;
        return out;
    }
    if (!in_block_) return out;
    if (RE2::PartialMatch(text, p.root)) {
        root_section_ = true;
        in_record_ = false;
        return out;
    }
    if (RE2::PartialMatch(text, p.record)) {
        in_record_ = true;
        rank_.reset();
        local_rank_.reset();
        host_.reset();
        time_.reset();
        return out;
    }
    if (RE2::PartialMatch(text, p.border)) {
        in_block_ = in_record_ = root_section_ = false;
        return out;
    }
    if (!in_record_) return out;
    std::string when;
    if (RE2::PartialMatch(text, p.host, &host)) {
        host_ = host;
    } else if (RE2::PartialMatch(text, p.time, &when)) {
        time_ = parse_timestamp(when);
    } else if (RE2::PartialMatch(text, p.rank, &rank, &local)) {
        rank_ = parse_bounded<int>(rank, -1, kMaxRank);
        local_rank_ = parse_bounded<int>(local, 0, kMaxRank);
    } else if (RE2::PartialMatch(text, p.exitcode, &code, &pid)) {
        out.kind = ElasticLine::Kind::summary_exit;
        out.rank = rank_;
        out.local_rank = local_rank_;
        out.exitcode = to_number<int>(code);
        out.pid = parse_bounded<long>(pid, 0, kMaxPid);
        out.host = host_;
        out.root_cause_section = root_section_;
    }
    return out;
}

}  // namespace denpex
