// gen_interleaved — deterministic generator of ONE log in which many processes interleave, for the denpex benchmark.
//
//   gen_interleaved OUT_FILE SIZE_MB [RANKS]        (RANKS defaults to 64: 8 hosts x 8 GPUs)
//
// The shape of a job's output gathered by a log collector into one stream: every rank's lines, in random order,
// each with its own identity. Most of it is NCCL INFO chatter (`host:pid:tid [dev] NCCL INFO ...`, with
// NCCL_DEBUG_SUBSYS=COLL's per-collective lines), the rest Python logging prefixed by torchrun's
// `[default<l>]:[rank<r>]:` and c10's glog lines. Every (host, pid) is distinct, so the reader keeps state for
// RANKS writers at once. The run ends in a failure: rank 37 (or the last rank) runs out of GPU memory, every other
// rank then times out in the NCCL watchdog. Output depends only on the arguments (fixed seed, own PRNG).

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "gen_common.hpp"

namespace {

using bench::Out;
using bench::Rng;

constexpr int kGpusPerNode = 8;

struct Proc {
    int rank = 0, local = 0;
    std::uint32_t pid = 0, tid = 0;
    std::string host, pfx;
};

std::vector<Proc> make_procs(int ranks) {
    std::vector<Proc> out;
    for (int r = 0; r < ranks; ++r) {
        Proc p;
        p.rank = r;
        p.local = r % kGpusPerNode;
        p.pid = 20011 + static_cast<std::uint32_t>(r) * 97;
        p.tid = p.pid + 311;
        p.host = "gpu-node-" + std::to_string(r / kGpusPerNode);
        p.pfx = "[default" + std::to_string(p.local) + "]:[rank" + std::to_string(r) + "]:";
        out.push_back(std::move(p));
    }
    return out;
}

void hms(Out& o, std::uint32_t secs) {
    o.u(secs / 3600 % 24, 2).c(':').u(secs / 60 % 60, 2).c(':').u(secs % 60, 2);
}

void nccl(Out& o, const Proc& p) {
    o.s(p.host).c(':').u(p.pid).c(':').u(p.tid).s(" [").u(static_cast<std::uint64_t>(p.local)).s("] NCCL INFO ");
}

// One line of steady-state chatter from process p at time `secs`.
void chatter(Out& o, const Proc& p, Rng& rng, std::uint32_t secs, std::uint64_t op, int ranks) {
    const std::uint32_t pick = rng.below(100);
    if (pick < 45) {   // NCCL_DEBUG_SUBSYS=COLL: one line per collective
        nccl(o, p);
        o.s(pick < 30 ? "AllReduce" : "AllGather").s(": opCount ").hex(op).s(" sendbuff 0x7f").hex(rng.next() >> 28)
            .s(" recvbuff 0x7f").hex(rng.next() >> 28).s(" count ").u(1u << (16 + rng.below(8)))
            .s(" datatype 7 op 0 root 0 comm 0x55d1c3a").hex(static_cast<std::uint64_t>(p.rank) * 0x1f40)
            .s(" [nranks=").u(static_cast<std::uint64_t>(ranks)).s("] stream 0x5601").hex(rng.next() >> 40).nl();
    } else if (pick < 60) {   // channel and proxy chatter
        nccl(o, p);
        o.s("Channel ").u(rng.below(32), 2).s("/0 : ").u(static_cast<std::uint64_t>(p.rank)).s("[")
            .u(static_cast<std::uint64_t>(p.local)).s("] -> ").u(static_cast<std::uint64_t>((p.rank + 1) % ranks))
            .s(" via NET/IB/").u(rng.below(8)).s("/GDRDMA/Shared").nl();
    } else if (pick < 85) {   // a training step
        o.s(p.pfx).s("2024-10-23 ");
        hms(o, secs);
        o.c(',').u(rng.below(1000), 3).s(" - trainer - INFO - step ").u(op).s(" | loss ").fx(20000 + rng.below(9000), 4)
            .s(" | tokens/s ").u(118000 + rng.below(9000)).s(" | mem ").fx(6000 + rng.below(300), 2).s(" GiB").nl();
    } else if (pick < 95) {   // c10's glog chatter
        o.s(p.pfx).s("[I1023 ");
        hms(o, secs);
        o.c('.').u(rng.below(1000000), 6).s(" ").u(p.pid).s(" ProcessGroupNCCL.cpp:2171] [PG 0 (default_pg) Rank ")
            .u(static_cast<std::uint64_t>(p.rank)).s("] ProcessGroupNCCL broadcast unique ID through store took ")
            .fx(rng.below(90000), 3).s(" ms").nl();
    } else {   // benign warning
        o.s(p.pfx).s("2024-10-23 ");
        hms(o, secs);
        o.s(",000 - data - WARNING - slow data loader worker ").u(rng.below(8)).s(": batch took ")
            .fx(1200 + rng.below(3000), 3).s(" s").nl();
    }
}

void oom(Out& o, const Proc& p) {
    o.s(p.pfx).s("Traceback (most recent call last):").nl();
    o.s(p.pfx).s("  File \"/workspace/llm/train.py\", line 221, in train_step").nl();
    o.s(p.pfx).s("    outputs = model(**batch)").nl();
    o.s(p.pfx).s("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU ")
        .u(static_cast<std::uint64_t>(p.local)).s(" has a total capacity of 79.11 GiB of which 1.02 GiB is free. Process ")
        .u(p.pid).s(" has 78.08 GiB memory in use.").nl();
}

void watchdog(Out& o, const Proc& p, std::uint32_t secs) {
    o.s(p.pfx).s("[E1023 ");
    hms(o, secs);
    o.s(".123456789 ProcessGroupNCCL.cpp:629] [Rank ").u(static_cast<std::uint64_t>(p.rank))
        .s("] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1234, OpType=ALLREDUCE, NumelIn=1, "
           "NumelOut=1, Timeout(ms)=600000) ran for 600071 milliseconds before timing out.")
        .nl();
}

bool parse_u(const char* s, unsigned long long& out) {
    if (s == nullptr || *s == '\0' || *s == '-') return false;
    char* end = nullptr;
    out = std::strtoull(s, &end, 10);
    return *end == '\0';
}

}  // namespace

int main(int argc, char** argv) {
    unsigned long long size_mb = 0, ranks = 64;
    if ((argc != 3 && argc != 4) || !parse_u(argv[2], size_mb) || (argc == 4 && !parse_u(argv[3], ranks)) ||
        size_mb == 0 || size_mb > (1ULL << 24) || ranks == 0 || ranks > 100000) {
        std::fprintf(stderr, "usage: gen_interleaved OUT_FILE SIZE_MB [RANKS]\n");
        return 2;
    }
    std::FILE* f = std::fopen(argv[1], "wb");
    if (f == nullptr) {
        std::fprintf(stderr, "gen_interleaved: cannot write %s: %s\n", argv[1], std::strerror(errno));
        return 1;
    }
    const int n = static_cast<int>(ranks);
    const std::vector<Proc> procs = make_procs(n);
    const int oom_rank = n > 37 ? 37 : n - 1;
    Rng rng(0x1e7e41ea7edULL);
    const std::uint64_t target = size_mb * 1024ULL * 1024ULL;
    std::uint64_t written = 0;
    {
        Out o(f);
        const std::uint32_t start = 12 * 3600;
        for (std::uint64_t op = 1; o.written() < target; ++op) {
            const Proc& p = procs[rng.below(static_cast<std::uint32_t>(n))];
            const auto secs = start + static_cast<std::uint32_t>(o.written() * 8000 / target);
            chatter(o, p, rng, secs, op, n);
        }
        oom(o, procs[static_cast<std::size_t>(oom_rank)]);
        for (const Proc& p : procs)
            if (p.rank != oom_rank) watchdog(o, p, start + 8000 + 600);
        o.flush();
        written = o.written();
    }
    if (std::fclose(f) != 0) return 1;
    std::fprintf(stderr, "gen_interleaved: wrote %llu bytes, %d ranks, to %s\n",
                 static_cast<unsigned long long>(written), n, argv[1]);
    return 0;
}
