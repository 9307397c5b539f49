#include "engine/stack_banner.hpp"

#include <algorithm>
#include <array>
#include <utility>

#include "engine/literal_find.hpp"

namespace denpex {
namespace {

// Each needle is a fixed string its stack prints and no other stack does. DeepSpeed's launcher logs as
// `[2024-01-08 21:30:02,118] [INFO] [launch.py:145:main] ...`; torch.distributed.launch's own warnings name
// `torch/distributed/launch.py`, never `] [launch.py:`.
// Searched by their rarest byte (engine/literal_find.hpp): every line is tested against all of them.
constexpr std::array<std::pair<Literal, Stack>, 11> kBanners = {{
    {Literal("***** Running training *****"), Stack::hf_trainer},
    {Literal("] [launch.py:"), Stack::deepspeed},
    {Literal("deepspeed.launcher"), Stack::deepspeed},
    {Literal("DeepSpeed info: version="), Stack::deepspeed},
    {Literal("------------------------ arguments ------------------------"), Stack::megatron},
    {Literal("LOCAL_RANK: 0 - CUDA_VISIBLE_DEVICES"), Stack::lightning},
    {Literal("accelerate launch"), Stack::accelerate},
    {Literal("accelerate/commands/launch.py"), Stack::accelerate},
    {Literal("LLM engine (v"), Stack::vllm},
    {Literal("(RayTrainWorker pid="), Stack::ray},
    {Literal("Started a local Ray instance"), Stack::ray},
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
        if (needle.in(body)) return stack;
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
