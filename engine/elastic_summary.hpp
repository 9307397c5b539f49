// ElasticSummaryReader: torchrun's own account of which workers exited, and how.
//
// Contract. Fed the body of every line of one source (after attribution stripped the prefixes), in order, it
// recognises torch.distributed.elastic's output:
//   - the ChildFailedError summary block (`Failures:` / `Root Cause (first observed failure):`, records of
//     `time`, `host`, `rank : R (local_rank: L)`, `exitcode : C (pid: P)`, `error_file`, `traceback`);
//   - the agent's `failed (exitcode: C) local_rank: L (pid: P) of binary: ...`;
//   - the agent's `Sending process P closing signal SIGTERM` (the worker that failed is the one NOT signalled);
//   - the agent's `Received Signals.SIGTERM death signal, shutting down workers` (it was stopped from outside).
// While inside a summary record after its `rank :` field, `current_rank()` names the record's rank, so the
// record's other lines (exitcode, traceback, an error file's call stack) are attributed to that worker, and
// `current_time()` gives the record's `time` field (dated, to the whole second: when the agent saw that worker
// fail), so that records of different nodes' summaries can be ordered.
// The summary's "Root Cause" is kept as what it is — the smallest timestamp one agent saw, at one-second
// resolution — and never treated as the verdict.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "engine/attribution.hpp"

namespace denpex {

struct ElasticLine {
    enum class Kind { none, summary_exit, agent_failed, sigterm, death_signal } kind = Kind::none;
    std::optional<int> rank, local_rank, exitcode;
    std::optional<long> pid;
    std::optional<std::string> host;
    bool root_cause_section = false;
};

class ElasticSummaryReader {
public:
    ElasticLine feed(std::string_view body);
    std::optional<int> current_rank() const { return in_record_ ? rank_ : std::nullopt; }
    std::optional<int> current_local_rank() const { return in_record_ ? local_rank_ : std::nullopt; }
    std::optional<Timestamp> current_time() const { return in_record_ ? time_ : std::nullopt; }
    bool saw_elastic() const { return saw_elastic_; }

private:
    bool in_block_ = false, in_record_ = false, root_section_ = false, saw_elastic_ = false;
    std::optional<int> rank_, local_rank_;
    std::optional<std::string> host_;
    std::optional<Timestamp> time_;
};

}  // namespace denpex
