// StackBanner: a log line that shows which training stack ran the job, from the banners and launcher lines each
// stack prints, so a report can put the fix for that stack first.
//
// Contract. `stated_stack(line)` returns the stack a whole normalized line (prefixes included) shows, and
// nothing for any other line. Only the first kBannerBytes of a line are looked at, with plain substring searches
// (no pattern), so the cost per ordinary line is a few memchr scans:
//   Hugging Face Trainer   `***** Running training *****`
//   DeepSpeed              its launcher's `] [launch.py:NNN:` records, `deepspeed.launcher`, `DeepSpeed info: version=`
//   Megatron-LM            the arguments dump `------------------------ arguments ------------------------`
//   PyTorch Lightning      `LOCAL_RANK: 0 - CUDA_VISIBLE_DEVICES: [...]`
//   Accelerate             `accelerate launch` (an echoed command line), `accelerate/commands/launch.py`
//   vLLM                   `Initializing a V1 LLM engine (v...)` / `Initializing an LLM engine (v...)`
//   Ray                    Ray Train's `(RayTrainWorker pid=` prefix, `Started a local Ray instance`
// torchrun is not a banner here: the collector knows it from torchrun's own lines (Timeline::torchrun).
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>
#include <vector>

#include "engine/entry_depth.hpp"

namespace denpex {

inline constexpr std::size_t kBannerBytes = 256;

std::optional<Stack> stated_stack(std::string_view body);

// The stacks a job shows, most specific first (a framework before the launcher under it before plain PyTorch), so
// the first one is the stack whose fix a report shows first.
std::vector<Stack> ordered_stacks(const std::vector<Stack>& seen);

}  // namespace denpex
