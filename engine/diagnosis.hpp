// Diagnosis: the verdict model behind every surface (the CLI's text and --json, the server's results).
//
// A Report holds one Diagnosis per independent failure found (usually one) and the state of every process
// the logs show. `initiating.rank` is empty when the logs cannot decide; `missing` then says, in a sentence
// each, which fact would decide it. `rank_not_applicable` marks failures that are not one rank's (the same
// misconfiguration on every rank): no initiating rank, yet nothing is missing.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "engine/knowledge.hpp"
#include "engine/timeline.hpp"

namespace denpex {

struct FixAdvice {
    std::string text;
    std::map<std::string, std::string> env;
    std::string applies;     // "yes", "if <condition>", "not needed here"
    std::string why;
};

struct CollateralRank {
    std::optional<int> rank;
    std::string process;     // "rank 3", or "local rank 1 of node1.log" when no global rank is known
    std::optional<std::string> host;
    const Entry* failure = nullptr;
    std::vector<Evidence> evidence;
};

struct Diagnosis {
    const Entry* failure = nullptr;
    std::string confidence;            // high | medium | low
    std::optional<int> initiating_rank;
    std::string initiating_process;    // how the initiator is named when it has no global rank
    std::optional<std::string> initiating_host;
    std::optional<std::string> initiating_time;
    std::vector<Evidence> evidence;
    std::vector<std::string> strategies;   // which strategies decided, strongest first
    std::vector<std::string> reasoning;    // one sentence per fact that decided (or weakened) the verdict
    bool undetermined = false;
    bool rank_not_applicable = false;
    std::vector<int> affected_ranks;
    std::vector<CollateralRank> collateral;
    std::vector<FixAdvice> fix;
    std::string verify;
    std::vector<std::string> missing;
    std::vector<std::string> notes;        // e.g. torchrun's Root Cause names another rank
};

struct RankState {
    std::optional<int> rank;
    std::string process;
    std::optional<std::string> host;
    std::string state;                 // initiating | collateral | silent | ok | affected
    Evidence last_line;
};

struct Report {
    std::vector<Diagnosis> diagnoses;
    std::vector<RankState> ranks;
    std::vector<std::string> inputs;
    std::optional<std::string> torch_versions;   // what the message formats imply, e.g. ">=2.2"
    bool torchrun = false;
    // The training stacks the logs show (banners, torchrun's lines), most specific first: the first one's stack
    // fixes lead in the text report, and the panel shows only the fixes for the stacks named here.
    std::vector<Stack> stacks;
    std::optional<int> world_size;
    std::uint64_t bytes = 0, lines = 0;
    std::vector<std::string> warnings;
};

}  // namespace denpex
