// Views of a Report: the human text report (verdict first) and the JSON contract.
//
// The JSON is a public contract used by the server, the client and CI:
//   {"diagnoses": [{"failure": {"id", "title", "category", "severity"}, "confidence",
//                   "initiating": {"rank", "process", "host", "time", "evidence": [{"file", "line", "text"}]},
//                   "undetermined", "rank_not_applicable", "affected_ranks", "strategies", "reasoning",
//                   "collateral": [{"rank", "process", "host", "failure_id", "evidence"}],
//                   "fix": [{"text", "env", "applies", "why"}],
//                   "stack_fixes": [{"stack", "names", "snippet", "versions", "source", "in_logs"}],
//                   "verify", "missing": [...], "notes": [...]}],
//    "ranks": [{"rank", "process", "host", "state", "last_line"}],
//    "inputs": [...], "torch_versions", "torchrun", "stacks": ["deepspeed", "torchrun"], "world_size", "bytes",
//    "lines", "warnings"}
// `stacks` are the training stacks the logs show, most specific first; `stack_fixes` puts theirs first
// (`in_logs`: the logs show that fix's stack).
// `initiating.rank` is null when undetermined, and `missing` is then non-empty.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "engine/diagnosis.hpp"

namespace denpex {

nlohmann::json to_json(const Report& report);
// The text report; its warnings are not part of it (the CLI prints them on stderr, found or not).
std::string to_text(const Report& report);

}  // namespace denpex
