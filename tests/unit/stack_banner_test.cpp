// The training stack a job ran under, from the banners each stack prints (engine/stack_banner), and the order in
// which a report shows their fixes.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "engine/stack_banner.hpp"

using namespace denpex;

TEST_CASE("stack banner: each stack's own banner names it, ordinary lines name none") {
    CHECK(stated_stack("***** Running training *****") == Stack::hf_trainer);
    CHECK(stated_stack("[2024-01-08 21:30:02,118] [INFO] [launch.py:145:main] WORLD INFO DICT: {'worker-0': [0, 1]}") ==
          Stack::deepspeed);
    CHECK(stated_stack("------------------------ arguments ------------------------") == Stack::megatron);
    CHECK(stated_stack("LOCAL_RANK: 0 - CUDA_VISIBLE_DEVICES: [0,1,2,3]") == Stack::lightning);
    CHECK(stated_stack("+ accelerate launch --num_processes 8 train.py") == Stack::accelerate);
    CHECK(stated_stack("INFO 05-02 10:11:45 llm_engine.py:98] Initializing an LLM engine (v0.4.0) with config: ...") ==
          Stack::vllm);
    CHECK(stated_stack("(RayTrainWorker pid=4182, ip=10.0.0.3) loss 2.1") == Stack::ray);
    CHECK_FALSE(stated_stack("step 10 loss 2.0"));
    CHECK_FALSE(stated_stack("[rank3]: RuntimeError: CUDA error: out of memory"));
    // torch.distributed.launch's own path is not DeepSpeed's launcher.
    CHECK_FALSE(stated_stack("  File \"/opt/conda/lib/python3.8/site-packages/torch/distributed/launch.py\", line 253, in main"));
    // Only the start of a long line is looked at.
    CHECK_FALSE(stated_stack(std::string(kBannerBytes, 'x') + "***** Running training *****"));
}

TEST_CASE("stack banner: the framework a user configures leads, then its launcher, then plain PyTorch") {
    CHECK(ordered_stacks({Stack::torchrun, Stack::hf_trainer}) == std::vector<Stack>{Stack::hf_trainer, Stack::torchrun});
    CHECK(ordered_stacks({Stack::torchrun, Stack::deepspeed, Stack::megatron, Stack::torchrun}) ==
          std::vector<Stack>{Stack::megatron, Stack::deepspeed, Stack::torchrun});
    CHECK(ordered_stacks({}).empty());
}
