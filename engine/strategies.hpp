// Strategies: independent ways of naming the initiating rank, each returning a candidate with its evidence.
//
//   initiating-event  the process with an initiating-class error (OOM, Xid, ECC, segfault, SIGKILL, a Python
//                     exception) — the earliest when several, comparing times only where comparable; the same
//                     error on several ranks at once (or a failure the knowledge marks as the whole job's) is
//                     not one rank's failure;
//   silent-rank       every rank reports collateral errors but one, which is silent (present, or absent from a
//                     shared console where it should have written);
//   sequence-lag      the rank whose last enqueued NCCL work is below the SeqNum the others timed out on;
//   desync-report     the lagging rank named by TORCH_NCCL_DESYNC_DEBUG;
//   agent-first-exit  the worker torchrun's agent saw fail first and did not SIGTERM, when it shows no
//                     collateral error of its own (weak: supporting evidence, or the only clue there is).
// Strengths: 3 strong, 2 medium, 1 weak. The reasoner combines them; no strategy names an entry id.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "engine/process_table.hpp"
#include "engine/timeline.hpp"

namespace denpex {

struct Candidate {
    const Process* process = nullptr;  // null when the rank is named but wrote nothing here
    std::optional<int> rank;           // set when process is null
    std::string strategy;
    int strength = 0;                  // 3 strong, 2 medium, 1 weak
    std::vector<const Event*> evidence;
    std::string reason;
};

struct InitiatingResult {
    std::optional<Candidate> candidate;
    std::vector<const Process*> systemic;     // the same error on several ranks at once, or a job-wide failure
    std::vector<const Process*> unordered;    // several failures whose order the logs cannot tell
    std::vector<const Process*> unranked;     // the failing process has no rank
};

InitiatingResult initiating_event_strategy(const ProcessTable& table);
std::optional<Candidate> silent_rank_strategy(const ProcessTable& table, const Timeline& t, std::optional<int> world);
std::optional<Candidate> sequence_lag_strategy(const ProcessTable& table);
std::optional<Candidate> desync_strategy(const ProcessTable& table);
std::optional<Candidate> agent_first_exit_strategy(const ProcessTable& table, const Timeline& t);

}  // namespace denpex
