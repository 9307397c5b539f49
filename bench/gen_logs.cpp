// gen_logs — deterministic generator of realistic torchrun / NCCL training logs for the denpex benchmark.
//
//   gen_logs OUT_DIR SIZE_MB RANKS
//
// Writes OUT_DIR/rank_<r>.log for r in [0, RANKS), together SIZE_MB MiB (to within one line per file).
// Every file looks like the tee'd output of one torchrun worker (8 GPUs per node):
//   * NCCL INFO start-up lines                 "[default3]:node-0:40111:40111 [3] NCCL INFO ..."
//   * Python logging lines with timestamps     "[default3]:[rank3]:2024-10-23 12:00:01,234 - trainer - INFO - ..."
//   * progress lines, some with ANSI colour, some tqdm bars rewritten with '\r'
//   * occasional very long lines (100 KiB tensor dumps)
// and the run ends in a failure: one rank (rank 5, or the last rank when there are fewer) raises a
// CUDA out-of-memory error, every other rank later dies in the NCCL watchdog with a collective timeout.
//
// No dependencies beyond the standard library; the output depends only on the arguments (fixed seed,
// own PRNG, no locale-dependent formatting), so two runs produce byte-identical files.

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <string_view>
#include <utility>

#include "gen_common.hpp"

namespace {

using bench::Out;
using bench::Rng;

// ---- the simulated job -------------------------------------------------------------------------------------
constexpr int kGpusPerNode = 8;
constexpr std::uint32_t kRunStart = 12 * 3600;        // 2024-10-23 12:00:00
constexpr std::uint32_t kTrainSeconds = 2 * 3600 + 22 * 60;  // training ends (OOM) at 14:22:00
constexpr std::uint64_t kLongLine = 100 * 1024;       // bytes in one "long" line, newline included

struct Rank {
  int r;
  int nranks;
  int local;
  int node;
  std::uint32_t pid;
  std::string host;
  std::string pfx;       // "[default<l>]:[rank<r>]:"  (Python side)
  std::string tee;       // "[default<l>]:"            (torchrun tee prefix only)
  std::string nccl;      // "[default<l>]:host:pid:tid [l] NCCL INFO "
};

Rank make_rank(int r, int nranks) {
  Rank k;
  k.r = r;
  k.nranks = nranks;
  k.local = r % kGpusPerNode;
  k.node = r / kGpusPerNode;
  k.pid = 40111 + static_cast<std::uint32_t>(r) * 137;
  k.host = "gpu-node-" + std::to_string(k.node);
  k.tee = "[default" + std::to_string(k.local) + "]:";
  k.pfx = k.tee + "[rank" + std::to_string(r) + "]:";
  return k;
}

void clock_hms(Out& o, std::uint32_t secs) {
  o.u(secs / 3600 % 24, 2).c(':').u(secs / 60 % 60, 2).c(':').u(secs % 60, 2);
}

// "2024-10-23 12:00:01,234"
void py_ts(Out& o, std::uint32_t secs, std::uint32_t ms) {
  o.s("2024-10-23 ");
  clock_hms(o, secs);
  o.c(',').u(ms, 3);
}

// glog-style c10 prefix "[E1023 14:32:03.123456789 "
void c10_ts(Out& o, char sev, std::uint32_t secs, std::uint32_t ns) {
  o.c('[').c(sev).s("1023 ");
  clock_hms(o, secs);
  o.c('.').u(ns, 9).c(' ');
}

void nccl_line(Out& o, const Rank& k, std::uint32_t tid) {
  o.s(k.tee).s(k.host).c(':').u(k.pid).c(':').u(tid).s(" [").u(static_cast<std::uint64_t>(k.local)).s("] NCCL INFO ");
}

void startup(Out& o, const Rank& k, Rng& rng) {
  const std::uint32_t t0 = kRunStart;
  auto py = [&](std::uint32_t dt, std::string_view level, std::string_view where) -> Out& {
    o.s(k.pfx);
    py_ts(o, t0 + dt, rng.below(1000));
    return o.s(" - ").s(where).s(" - ").s(level).s(" - ");
  };
  py(0, "INFO", "train").s("Starting run 'llama-8b-pretrain' with world_size=").u(static_cast<std::uint64_t>(k.nranks))
      .s(" local_rank=").u(static_cast<std::uint64_t>(k.local)).s(" rank=").u(static_cast<std::uint64_t>(k.r)).nl();
  py(0, "INFO", "train").s("torch 2.4.1+cu124, CUDA 12.4, cuDNN 90100, NCCL (2, 20, 5)").nl();
  py(1, "INFO", "train").s("Initializing process group backend=nccl init_method=env:// MASTER_ADDR=gpu-node-0 MASTER_PORT=29500").nl();

  const std::uint32_t tid2 = k.pid + 211;
  nccl_line(o, k, k.pid);
  o.s("Bootstrap : Using eth0:10.1.0.").u(static_cast<std::uint64_t>(10 + k.node)).s("<0>").nl();
  nccl_line(o, k, k.pid);
  o.s("NET/Plugin : dlerror=libnccl-net.so: cannot open shared object file: No such file or directory "
      "No plugin found (libnccl-net.so), using internal implementation").nl();
  nccl_line(o, k, k.pid);
  o.s("cudaDriverVersion 12040").nl();
  if (k.r == 0) {
    o.s(k.tee).s(k.host).c(':').u(k.pid).c(':').u(k.pid).s(" [0] NCCL INFO NCCL version 2.20.5+cuda12.4").nl();
  }
  nccl_line(o, k, tid2);
  o.s("NCCL_SOCKET_IFNAME set by environment to eth0").nl();
  nccl_line(o, k, tid2);
  o.s("NCCL_IB_HCA set to mlx5_0,mlx5_1,mlx5_2,mlx5_3,mlx5_4,mlx5_5,mlx5_6,mlx5_7").nl();
  nccl_line(o, k, tid2);
  o.s("NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_1:1/IB [2]mlx5_2:1/IB [3]mlx5_3:1/IB [4]mlx5_4:1/IB [5]mlx5_5:1/IB "
      "[6]mlx5_6:1/IB [7]mlx5_7:1/IB [RO]; OOB eth0:10.1.0.")
      .u(static_cast<std::uint64_t>(10 + k.node)).s("<0>").nl();
  nccl_line(o, k, tid2);
  o.s("Using non-device net plugin version 0").nl();
  nccl_line(o, k, tid2);
  o.s("Using network IB").nl();
  const std::uint64_t comm = 0x55d1c3a00000ULL + static_cast<std::uint64_t>(k.r) * 0x1f40ULL;
  const std::uint64_t comm_id = 0x7f3c1e2b9a8d4c11ULL;
  const std::uint64_t bus = 0x18000 + static_cast<std::uint64_t>(k.local) * 0x11000;
  nccl_line(o, k, tid2);
  o.s("comm 0x").hex(comm).s(" rank ").u(static_cast<std::uint64_t>(k.r)).s(" nranks ").u(static_cast<std::uint64_t>(k.nranks))
      .s(" cudaDev ").u(static_cast<std::uint64_t>(k.local)).s(" nvmlDev ").u(static_cast<std::uint64_t>(k.local))
      .s(" busId ").hex(bus).s(" commId 0x").hex(comm_id).s(" - Init START").nl();
  nccl_line(o, k, tid2);
  o.s("Setting affinity for GPU ").u(static_cast<std::uint64_t>(k.local))
      .s(k.local < 4 ? " to ffffffff,00000000,ffffffff" : " to ffffffff,00000000,ffffffff,00000000").nl();
  nccl_line(o, k, tid2);
  o.s("comm 0x").hex(comm).s(" rank ").u(static_cast<std::uint64_t>(k.r)).s(" nRanks ").u(static_cast<std::uint64_t>(k.nranks))
      .s(" nNodes ").u(static_cast<std::uint64_t>((k.nranks + kGpusPerNode - 1) / kGpusPerNode))
      .s(" localRanks ").u(static_cast<std::uint64_t>(std::min(kGpusPerNode, k.nranks)))
      .s(" localRank ").u(static_cast<std::uint64_t>(k.local)).s(" MNNVL 0").nl();
  const int prev = (k.r + k.nranks - 1) % k.nranks;
  const int next = (k.r + 1) % k.nranks;
  nccl_line(o, k, tid2);
  o.s("Trees");
  for (int ch = 0; ch < 8; ++ch) {
    o.s(" [").u(static_cast<std::uint64_t>(ch)).s("] ").i(next).s("/-1/-1->").i(k.r).s("->").i(k.r == 0 ? -1 : prev);
  }
  o.nl();
  nccl_line(o, k, tid2);
  o.s("P2P Chunksize set to 524288").nl();
  for (int ch = 0; ch < 16; ++ch) {
    nccl_line(o, k, tid2);
    o.s("Channel ").u(static_cast<std::uint64_t>(ch), 2).s("/0 : ").i(k.r).c('[').i(k.local).s("] -> ").i(next).c('[')
        .i(next % kGpusPerNode).s("] via ")
        .s(next / kGpusPerNode == k.node ? "P2P/IPC" : "NET/IB/0/GDRDMA").nl();
  }
  nccl_line(o, k, tid2);
  o.s("Connected all rings").nl();
  nccl_line(o, k, tid2);
  o.s("Connected all trees").nl();
  nccl_line(o, k, tid2);
  o.s("threadThresholds 8/8/64 | 128/8/64 | 512 | 512").nl();
  nccl_line(o, k, tid2);
  o.s("24 coll channels, 24 collnet channels, 0 nvls channels, 32 p2p channels, 32 p2p channels per peer").nl();
  nccl_line(o, k, tid2);
  o.s("comm 0x").hex(comm).s(" rank ").u(static_cast<std::uint64_t>(k.r)).s(" nranks ").u(static_cast<std::uint64_t>(k.nranks))
      .s(" cudaDev ").u(static_cast<std::uint64_t>(k.local)).s(" nvmlDev ").u(static_cast<std::uint64_t>(k.local))
      .s(" busId ").hex(bus).s(" commId 0x").hex(comm_id).s(" - Init COMPLETE").nl();

  o.s(k.pfx);
  c10_ts(o, 'W', t0 + 3, 512000000 + rng.below(1000000));
  o.s("ProcessGroupNCCL.cpp:4115] [PG 0 (default_pg) Rank ").i(k.r).s("]  using GPU ").i(k.local)
      .s(" to perform barrier as devices used by this process are currently unknown. This can potentially cause a "
         "hang if this rank to GPU mapping is incorrect.Specify device_ids in barrier() to force use of a particular "
         "device,or call init_process_group() with a device_id.")
      .nl();
  py(4, "INFO", "model").s("Building LlamaForCausalLM(hidden=4096, layers=32, heads=32, kv_heads=8, vocab=128256)").nl();
  py(9, "INFO", "model").s("Model has 8030261248 parameters (1003782656 per FSDP shard)").nl();
  o.s(k.pfx).s("/usr/local/lib/python3.10/dist-packages/torch/utils/checkpoint.py:1399: FutureWarning: "
               "`torch.cpu.amp.autocast(args...)` is deprecated. Please use `torch.amp.autocast('cpu', args...)` instead.")
      .nl();
  o.s(k.pfx).s("  with device_autocast_ctx, torch.cpu.amp.autocast(**cpu_autocast_kwargs), recompute_context:  # type: ignore[attr-defined]").nl();
  py(11, "INFO", "data").s("Dataset: 256 shards under /data/tokenized/fineweb-edu, seq_len=8192, micro_batch=2, grad_accum=4").nl();
}

// One 100 KiB line: a debug dump of an activation tensor.
void long_line(Out& o, const Rank& k, Rng& rng, std::uint32_t secs) {
  const std::size_t start = o.pending();
  o.s(k.pfx);
  py_ts(o, secs, rng.below(1000));
  o.s(" - hooks - DEBUG - activation stats layers.17.mlp.down_proj: tensor([[");
  const std::string tail =
      "]], device='cuda:" + std::to_string(k.local) + "', dtype=torch.bfloat16, grad_fn=<MmBackward0>)";
  const std::size_t budget = kLongLine - 1 - tail.size();
  while (o.pending() - start + 10 < budget) {
    const std::int64_t v = static_cast<std::int64_t>(rng.below(20000)) - 10000;
    if (v >= 0) o.c(' ');
    o.fx(v, 4).s(", ");
  }
  while (o.pending() - start < budget) o.c(' ');
  o.s(tail).nl();
}

// A tqdm bar as it lands in a tee'd log: several '\r'-separated redraws on one physical line.
void tqdm_line(Out& o, const Rank& k, Rng& rng, std::uint32_t step) {
  o.s(k.pfx);
  constexpr std::uint32_t total = 10000;
  std::uint32_t done = step % total;
  const int updates = 3 + static_cast<int>(rng.below(6));
  for (int n = 0; n < updates; ++n) {
    const std::uint32_t pct = done * 100 / total;
    o.s("Epoch 0: ").s(pct < 10 ? "  " : pct < 100 ? " " : "").u(pct).s("%|");
    const std::uint32_t cells = done * 10 / total;
    for (std::uint32_t c = 0; c < 10; ++c) o.s(c < cells ? "\xe2\x96\x88" : " ");  // U+2588 FULL BLOCK
    const std::uint32_t elapsed = done * 3;
    const std::uint32_t left = (total - done) * 3;
    o.s("| ").u(done).c('/').u(total).s(" [").u(elapsed / 3600).c(':').u(elapsed / 60 % 60, 2).c(':').u(elapsed % 60, 2)
        .c('<').u(left / 3600).c(':').u(left / 60 % 60, 2).c(':').u(left % 60, 2).s(", ").fx(280 + rng.below(40), 2)
        .s("s/it, loss=").fx(200 + rng.below(100), 2).s("]");
    done = std::min(total, done + 1 + rng.below(3));
    if (n + 1 < updates) o.c('\r');
  }
  o.nl();
}

void body(Out& o, const Rank& k, Rng& rng, std::uint64_t target) {
  const std::uint64_t begin = o.written();
  const std::uint64_t span = target > begin ? target - begin : 1;
  std::uint32_t step = 0;
  std::uint64_t next_long = o.written() + 512 * 1024 + rng.below(1u << 20);
  std::uint32_t shard = 0;

  while (o.written() < target) {
    const std::uint64_t pos = o.written() - begin;
    const double frac = static_cast<double>(pos) / static_cast<double>(span);
    const std::uint32_t secs = kRunStart + 12 + static_cast<std::uint32_t>(frac * (kTrainSeconds - 13));
    const std::uint32_t ms = rng.below(1000);

    if (o.written() >= next_long && target - o.written() > 2 * kLongLine) {
      long_line(o, k, rng, secs);
      next_long = o.written() + (1u << 20) + rng.below(2u << 20);
      continue;
    }

    const std::uint32_t pick = rng.below(100);
    if (pick < 55) {  // training step
      ++step;
      const std::int64_t loss = 110000 - static_cast<std::int64_t>(frac * 88000) + static_cast<std::int64_t>(rng.below(3000));
      const std::uint32_t lr_h = 1000 - static_cast<std::uint32_t>(frac * 900.0);  // 1.00e-04 .. 1.00e-05
      o.s(k.pfx);
      py_ts(o, secs, ms);
      o.s(" - trainer - INFO - step ").u(step).s(" | loss ").fx(loss, 4).s(" | lr ");
      if (lr_h >= 1000) {
        o.s("1.00e-04");
      } else {
        o.fx(lr_h, 2).s("e-05");
      }
      o.s(" | grad_norm ").fx(600 + rng.below(700), 3).s(" | tokens/s ").u(118000 + rng.below(9000))
          .s(" | mfu ").fx(4100 + rng.below(300), 2).s("% | mem ").fx(6000 + rng.below(300), 2).s(" GiB").nl();
    } else if (pick < 68) {  // data loader / misc info
      o.s(k.pfx);
      py_ts(o, secs, ms);
      if (rng.below(2) == 0) {
        shard = (shard + 1) % 256;
        o.s(" - data - INFO - Loaded shard ").u(shard).s("/256 (/data/tokenized/fineweb-edu/shard_").u(shard, 5)
            .s(".bin, ").u(4000000 + rng.below(400000)).s(" tokens)").nl();
      } else {
        o.s(" - trainer - INFO - throughput: ").fx(38000 + rng.below(2000), 2).s(" TFLOPs/GPU, step time ")
            .fx(2600 + rng.below(300), 3).s(" s, data wait ").fx(rng.below(90), 3).s(" s").nl();
      }
    } else if (pick < 80) {  // tqdm with '\r' rewrites
      tqdm_line(o, k, rng, step);
    } else if (pick < 89) {  // loguru-style ANSI colour
      o.s(k.pfx).s("\x1b[32m2024-10-23 ");
      clock_hms(o, secs);
      o.c('.').u(ms, 3).s("\x1b[0m | \x1b[1mINFO    \x1b[0m | \x1b[36mmetrics\x1b[0m:\x1b[36mlog_step\x1b[0m:\x1b[36m212\x1b[0m - "
                         "\x1b[1mtrain/loss=")
          .fx(22000 + rng.below(5000), 4).s(" train/ppl=").fx(900 + rng.below(400), 2).s("\x1b[0m").nl();
    } else if (pick < 93) {  // evaluation
      o.s(k.pfx);
      py_ts(o, secs, ms);
      o.s(" - evaluate - INFO - eval at step ").u(step).s(": val_loss ").fx(23000 + rng.below(4000), 4).s(" val_ppl ")
          .fx(1000 + rng.below(400), 2).nl();
    } else if (pick < 96) {  // benign warnings
      o.s(k.pfx);
      py_ts(o, secs, ms);
      if (rng.below(2) == 0) {
        o.s(" - trainer - WARNING - grad_norm ").fx(1100 + rng.below(4000), 3).s(" exceeds clip threshold 1.0; clipping").nl();
      } else {
        o.s(" - data - WARNING - slow data loader worker 3: batch took ").fx(1200 + rng.below(3000), 3).s(" s").nl();
      }
    } else if (pick < 97) {  // checkpointing
      o.s(k.pfx);
      py_ts(o, secs, ms);
      o.s(" - checkpoint - INFO - Saved checkpoint shard ").u(static_cast<std::uint64_t>(k.r)).s(" to /checkpoints/llama-8b/step_")
          .u(step, 6).s(" in ").fx(800 + rng.below(900), 1).s(" s").nl();
    } else {  // debug
      o.s(k.pfx);
      py_ts(o, secs, ms);
      o.s(" - fsdp - DEBUG - all_gather bucket ").u(rng.below(64)).s(" numel=").u(1u << (18 + rng.below(6)))
          .s(" took ").fx(rng.below(5000), 3).s(" ms").nl();
    }
  }
}

void oom_tail(Out& o, const Rank& k) {
  const std::uint32_t t = kRunStart + kTrainSeconds;  // 14:22:00
  o.s(k.pfx);
  py_ts(o, t + 1, 17);
  o.s(" - trainer - INFO - switching to long-context phase: seq_len 8192 -> 16384, micro_batch 2").nl();
  static constexpr std::string_view kTrace[] = {
      " Traceback (most recent call last):",
      "   File \"/workspace/llm/train.py\", line 412, in <module>",
      "     main()",
      "   File \"/workspace/llm/train.py\", line 398, in main",
      "     loss = train_step(model, batch, optimizer, scaler)",
      "   File \"/workspace/llm/train.py\", line 221, in train_step",
      "     outputs = model(**batch)",
      "   File \"/usr/local/lib/python3.10/dist-packages/torch/nn/modules/module.py\", line 1553, in _wrapped_call_impl",
      "     return self._call_impl(*args, **kwargs)",
      "   File \"/usr/local/lib/python3.10/dist-packages/torch/nn/modules/module.py\", line 1562, in _call_impl",
      "     return forward_call(*args, **kwargs)",
      "   File \"/usr/local/lib/python3.10/dist-packages/torch/distributed/fsdp/fully_sharded_data_parallel.py\", line 863, in forward",
      "     output = self._fsdp_wrapped_module(*args, **kwargs)",
      "   File \"/workspace/llm/modeling_llama.py\", line 688, in forward",
      "     logits = self.lm_head(hidden_states).float()",
  };
  for (auto line : kTrace) o.s(k.pfx).s(line).nl();
  o.s(k.pfx).s(" torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU ").u(static_cast<std::uint64_t>(k.local))
      .s(" has a total capacity of 79.11 GiB of which 1.02 GiB is free. Process ").u(k.pid)
      .s(" has 78.08 GiB memory in use. Of the allocated memory 74.52 GiB is allocated by PyTorch, and 2.31 GiB is "
         "reserved by PyTorch but unallocated. If reserved but unallocated memory is large try setting "
         "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See documentation for Memory "
         "Management  (https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)")
      .nl();
}

void watchdog_tail(Out& o, const Rank& k) {
  const std::uint32_t t = kRunStart + kTrainSeconds + 603;  // 14:32:03
  const std::uint32_t ns = 123453789 + static_cast<std::uint32_t>(k.r) * 1000;  // rank 3: .123456789
  const std::uint64_t ran_ms = 600060 + static_cast<std::uint64_t>(k.r) * 7;
  auto work = [&]() -> Out& {
    return o.s("[Rank ").i(k.r).s("] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1234, OpType=ALLREDUCE, "
                                  "NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for ")
        .u(ran_ms).s(" milliseconds before timing out.");
  };
  o.s(k.pfx);
  c10_ts(o, 'E', t, ns);
  o.s("ProcessGroupNCCL.cpp:629] ");
  work().nl();
  o.s(k.pfx);
  c10_ts(o, 'E', t, ns + 90112);
  o.s("ProcessGroupNCCL.cpp:1664] [PG 0 (default_pg) Rank ").i(k.r)
      .s("] Exception (either an error or timeout) detected by watchdog at work: 1234, last enqueued NCCL work: 1234, "
         "last completed NCCL work: 1233.")
      .nl();
  o.s(k.pfx);
  c10_ts(o, 'E', t, ns + 101337);
  o.s("ProcessGroupNCCL.cpp:1709] [PG 0 (default_pg) Rank ").i(k.r)
      .s("] Timeout at NCCL work: 1234, last enqueued NCCL work: 1234, last completed NCCL work: 1233.").nl();
  o.s(k.pfx);
  c10_ts(o, 'E', t, ns + 110002);
  o.s("ProcessGroupNCCL.cpp:643] [Rank ").i(k.r)
      .s("] Some NCCL operations have failed or timed out. Due to the asynchronous nature of CUDA kernels, subsequent "
         "GPU operations might run on corrupted/incomplete data.")
      .nl();
  o.s(k.pfx);
  c10_ts(o, 'E', t, ns + 113500);
  o.s("ProcessGroupNCCL.cpp:649] [Rank ").i(k.r).s("] To avoid data inconsistency, we are taking the entire process down.").nl();
  o.s(k.pfx);
  c10_ts(o, 'E', t, ns + 161200);
  o.s("ProcessGroupNCCL.cpp:1521] [PG 0 (default_pg) Rank ").i(k.r)
      .s("] Process group watchdog thread terminated with exception: ");
  work().nl();
  o.s(k.tee).s("terminate called after throwing an instance of 'c10::DistBackendError'").nl();
  o.s(k.tee).s("  what():  [PG 0 (default_pg) Rank ").i(k.r).s("] Process group watchdog thread terminated with exception: ");
  work().nl();
  o.s(k.tee).s("Exception raised from checkTimeout at ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:609 (most recent call first):").nl();
  static constexpr std::string_view kFrames[] = {
      "c10::Error::Error(c10::SourceLocation, std::string) + 0x96 (0x7f2b8c7b6f86 in /usr/local/lib/python3.10/dist-packages/torch/lib/libc10.so)",
      "c10d::ProcessGroupNCCL::WorkNCCL::checkTimeout(std::optional<std::chrono::duration<long, std::ratio<1l, 1000l> > >) + 0x1d2 (0x7f2b3d1a15a2 in /usr/local/lib/python3.10/dist-packages/torch/lib/libtorch_cuda.so)",
      "c10d::ProcessGroupNCCL::watchdogHandler() + 0x233 (0x7f2b3d1a8a13 in /usr/local/lib/python3.10/dist-packages/torch/lib/libtorch_cuda.so)",
      "c10d::ProcessGroupNCCL::ncclCommWatchdog() + 0x10c (0x7f2b3d1aa0bc in /usr/local/lib/python3.10/dist-packages/torch/lib/libtorch_cuda.so)",
      "<unknown function> + 0xd6df4 (0x7f2b8c0d6df4 in /lib/x86_64-linux-gnu/libstdc++.so.6)",
      "<unknown function> + 0x8609 (0x7f2b8f0b8609 in /lib/x86_64-linux-gnu/libpthread.so.0)",
      "clone + 0x43 (0x7f2b8ee61353 in /lib/x86_64-linux-gnu/libc.so.6)",
  };
  int n = 0;
  for (auto f : kFrames) o.s(k.tee).s("frame #").i(n++).s(": ").s(f).nl();
  o.s(k.tee).nl();
  o.s(k.tee).s("Fatal Python error: Aborted").nl();
}

bool parse_u(const char* s, unsigned long long& out) {
  if (s == nullptr || *s == '\0') return false;
  char* end = nullptr;
  errno = 0;
  out = std::strtoull(s, &end, 10);
  return errno == 0 && *end == '\0' && s[0] != '-';
}

}  // namespace

int main(int argc, char** argv) {
  unsigned long long size_mb = 0;
  unsigned long long ranks = 0;
  if (argc != 4 || !parse_u(argv[2], size_mb) || !parse_u(argv[3], ranks) || size_mb == 0 || ranks == 0 ||
      ranks > 100000 || size_mb > (1ULL << 24)) {
    std::fprintf(stderr,
                 "usage: gen_logs OUT_DIR SIZE_MB RANKS\n"
                 "  writes OUT_DIR/rank_<r>.log for r in [0,RANKS), SIZE_MB MiB in total\n");
    return 2;
  }
  const std::filesystem::path dir(argv[1]);
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) {
    std::fprintf(stderr, "gen_logs: cannot create %s: %s\n", argv[1], ec.message().c_str());
    return 1;
  }

  const int nranks = static_cast<int>(ranks);
  const int oom_rank = nranks > 5 ? 5 : nranks - 1;
  const std::uint64_t total = size_mb * 1024ULL * 1024ULL;
  std::uint64_t written_total = 0;

  for (int r = 0; r < nranks; ++r) {
    const std::uint64_t share = total / ranks + (static_cast<std::uint64_t>(r) < total % ranks ? 1 : 0);
    const std::filesystem::path file = dir / ("rank_" + std::to_string(r) + ".log");
    std::FILE* f = std::fopen(file.c_str(), "wb");
    if (f == nullptr) {
      std::fprintf(stderr, "gen_logs: cannot open %s: %s\n", file.c_str(), std::strerror(errno));
      return 1;
    }
    const Rank k = make_rank(r, nranks);
    Rng rng(0x64656e706578ULL ^ (static_cast<std::uint64_t>(r) * 0x100000001B3ULL));  // "denpex" ^ rank
    {
      // Render the failure tail first so the body can stop where the file reaches its share.
      Out tail_out(nullptr);
      if (r == oom_rank) {
        oom_tail(tail_out, k);
      } else {
        watchdog_tail(tail_out, k);
      }
      const std::string tail = tail_out.take();

      Out o(f);
      startup(o, k, rng);
      body(o, k, rng, share > tail.size() ? share - tail.size() : 0);
      o.s(tail);
      o.flush();
      written_total += o.written();
    }
    if (std::fclose(f) != 0) {
      std::fprintf(stderr, "gen_logs: cannot write %s: %s\n", file.c_str(), std::strerror(errno));
      return 1;
    }
  }
  std::fprintf(stderr, "gen_logs: wrote %d files, %llu bytes, to %s\n", nranks,
               static_cast<unsigned long long>(written_total), argv[1]);
  return 0;
}
