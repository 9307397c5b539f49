// The PyTorch version a launch script or container spec pins, when it says so.
//
// Contract. `find_torch_pin(text)` looks for, in this order of trust: a pip requirement (`torch==1.12.1`,
// `torch~=2.1`, `torch>=2.2` as a lower bound), a conda spec (`pytorch=1.13`), an official image tag
// (`pytorch/pytorch:2.3.1-cuda12.1-...`), an NGC image (`nvcr.io/nvidia/pytorch:23.10-py3`, mapped to the
// PyTorch line it ships), and an environment module (`module load pytorch/1.12`). The first kind found wins;
// within a kind the first occurrence. `source` quotes what was found, for messages.
// Only what matters for TORCH_NCCL_ASYNC_ERROR_HANDLING is classified: before 2.0 (default 0 without
// torchrun), 2.0-2.1 (default 1, old variable name), 2.2 and later (default 3, TORCH_ prefix).
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace denpex::server {

struct TorchPin {
    int major = 0, minor = 0;
    bool lower_bound = false;   // ">=": the version is at least this
    std::string source;         // e.g. "torch==1.12.1", "nvcr.io/nvidia/pytorch:23.10"
    std::string version;        // for messages: "1.12", "2.0-2.1 (NGC 23.10)"
};

enum class TorchEra { unknown, before_2_0, v2_0_to_2_1, v2_2_or_later };

std::optional<TorchPin> find_torch_pin(std::string_view text);
TorchEra torch_era(const std::optional<TorchPin>& pin);

}  // namespace denpex::server
