#include "engine/stack_banner.hpp"

#include <algorithm>
#include <array>
#include <utility>

namespace denpex {
namespace {

// Each needle is a fixed string its stack prints and no other stack does. DeepSpeed's launcher logs as
// `[2024-01-08 21:30:02,118] [INFO] [launch.py:145:main] ...`; torch.distributed.launch's own warnings name
// `torch/distributed/launch.py`, never `] [launch.py:`.
constexpr std::array<std::pair<std::string_view, Stack>, 11> kBanners = {{
    {"***** Running training *****", Stack::hf_trainer},
    {"] [launch.py:", Stack::deepspeed},
    {"deepspeed.launcher", Stack::deepspeed},
    {"DeepSpeed info: version=", Stack::deepspeed},
    {"------------------------ arguments ------------------------", Stack::megatron},
    {"LOCAL_RANK: 0 - CUDA_VISIBLE_DEVICES", Stack::lightning},
    {"accelerate launch", Stack::accelerate},
    {"accelerate/commands/launch.py", Stack::accelerate},
    {"LLM engine (v", Stack::vllm},
    {"(RayTrainWorker pid=", Stack::ray},
    {"Started a local Ray instance", Stack::ray},
}};

// Lower is more specific: the framework a user configures, then the launcher, then the library under both.
int specificity(Stack s) {
    switch (s) {
        case Stack::hf_trainer: return 0;
        case Stack::megatron: return 0;
        case Stack::lightning: return 0;
        case Stack::vllm: return 0;
        case Stack::deepspeed: return 1;
        case Stack::accelerate: return 1;
        case Stack::ray: return 2;
        case Stack::torchrun: return 3;
        case Stack::pytorch: return 4;
    }
    return 4;
}

}  // namespace

std::optional<Stack> stated_stack(std::string_view body) {
    body = body.substr(0, kBannerBytes);
    for (const auto& [needle, stack] : kBanners)
        if (body.find(needle) != std::string_view::npos) return stack;
    return std::nullopt;
}

std::vector<Stack> ordered_stacks(const std::vector<Stack>& seen) {
    std::vector<Stack> out;
    for (Stack s : seen)
        if (std::find(out.begin(), out.end(), s) == out.end()) out.push_back(s);
    std::stable_sort(out.begin(), out.end(), [](Stack a, Stack b) {
        return specificity(a) != specificity(b) ? specificity(a) < specificity(b) : a < b;
    });
    return out;
}

}  // namespace denpex
