// Attribution: each case is a real-world prefix shape (or a stack of them) and what it must, and must not,
// say about the writer.
#include "engine/attribution.hpp"

#include <doctest/doctest.h>

#include <chrono>
#include <string>
#include <string_view>

using denpex::attribute;
using denpex::parse_timestamp;

namespace {

// Seconds since the epoch for a UTC civil time, computed independently of the code under test.
double epoch(int y, unsigned m, unsigned d, int hh, int mi, double ss) {
    using namespace std::chrono;
    const sys_days days{year{y} / month{m} / day{d}};
    return static_cast<double>(days.time_since_epoch().count()) * 86400.0 + hh * 3600.0 + mi * 60.0 + ss;
}

// Seconds since the start of the (non-leap) reference year used for glog times.
double yearless(int days_before_month, int d, int hh, int mi, double ss) {
    return (days_before_month + d - 1) * 86400.0 + hh * 3600.0 + mi * 60.0 + ss;
}

std::string_view body(std::string_view line) { return line.substr(denpex::attribute(line).body_offset); }

}  // namespace

TEST_CASE("attribution: torchrun tee, excerpthook rank and c10 glog header stack") {
    const std::string_view line =
        "[default3]:[rank3]:[E1109 16:13:20.222288244 ProcessGroupNCCL.cpp:616] [Rank 3] Watchdog caught ...";
    const auto a = attribute(line);
    CHECK(a.local_rank == 3);
    CHECK(a.rank == 3);
    REQUIRE(a.time);
    CHECK_FALSE(a.time->has_date);
    CHECK(a.time->seconds == doctest::Approx(yearless(304, 9, 16, 13, 20.222288244)));
    CHECK(body(line) == "[Rank 3] Watchdog caught ...");
    CHECK_FALSE(a.pg_rank);
    CHECK_FALSE(a.host);
}

TEST_CASE("attribution: pdsh, role prefix, rank and glog header all stack") {
    const std::string_view line =
        "worker-1: [trainer0]:[rank12]:[E0903 04:12:58.641 ProcessGroupNCCL.cpp:1515] [PG 0 Rank 12] boom";
    const auto a = attribute(line);
    CHECK(a.host == "worker-1");
    CHECK(a.local_rank == 0);
    CHECK(a.rank == 12);
    REQUIRE(a.time);
    CHECK(a.time->seconds == doctest::Approx(yearless(243, 3, 4, 12, 58.641)));
    CHECK(body(line) == "[PG 0 Rank 12] boom");

    // kubectl logs --timestamps in front of torchrun's prefix.
    const auto k = attribute("2024-10-23T14:02:03.5Z [default2]:[rank10]: Traceback (most recent call last):");
    CHECK(k.local_rank == 2);
    CHECK(k.rank == 10);
    REQUIRE(k.time);
    CHECK(k.time->has_date);
}

TEST_CASE("attribution: doubled [rankN]: and the 2.5+ PG prefix of the default group") {
    const auto a = attribute(
        "[rank0]:[rank0]:[E211 09:46:37.998161248 ProcessGroupNCCL.cpp:1897] [PG ID 0 PG GUID 0(default_pg) Rank 0] "
        "Process group watchdog thread terminated");
    CHECK(a.rank == 0);
    CHECK_FALSE(a.pg_rank);
    REQUIRE(a.time);
    CHECK(a.time->seconds == doctest::Approx(yearless(31, 11, 9, 46, 37.998161248)));
}

TEST_CASE("attribution: a non-default PG gives pg_rank; the prefix gives the rank; no time in [E file:line]") {
    const auto a = attribute("[rank14]:[E ProcessGroupNCCL.cpp:1537] [PG 1 Rank 14] Timeout at NCCL work: 21907");
    CHECK(a.rank == 14);
    CHECK(a.pg_rank == 14);
    CHECK_FALSE(a.time);

    const auto b = attribute("[E ProcessGroupNCCL.cpp:1537] [PG ID 2 PG GUID 3 Rank 5] Timeout at NCCL work: 1");
    CHECK_FALSE(b.rank);
    CHECK(b.pg_rank == 5);
}

TEST_CASE("attribution: PG prefix variants that name the default group") {
    CHECK(attribute("[PG 0 Rank 3] x").rank == 3);
    CHECK(attribute("[PG 0 (default_pg) Rank 4] x").rank == 4);
    CHECK(attribute("[PG GUID 0 Rank 5] x").rank == 5);
    const auto sub = attribute("[PG 2 (tp_group) Rank 1] x");
    CHECK_FALSE(sub.rank);
    CHECK(sub.pg_rank == 1);
}

TEST_CASE("attribution: old glog header without [rankN]: and without time") {
    const std::string_view line = "[E ProcessGroupNCCL.cpp:475] [Rank 1] Watchdog caught";
    const auto a = attribute(line);
    CHECK(a.rank == 1);
    CHECK_FALSE(a.time);
    CHECK(body(line) == "[Rank 1] Watchdog caught");
}

TEST_CASE("attribution: NCCL host:pid:tid [dev] is a device, never a rank") {
    const std::string_view line =
        "pt-k7x2q-train-w-0:20873:21747 [2] NCCL INFO [Service thread] Connection closed by localRank 2";
    const auto a = attribute(line);
    CHECK(a.host == "pt-k7x2q-train-w-0");
    CHECK(a.pid == 20873);
    CHECK(a.cuda_dev == 2);
    CHECK_FALSE(a.rank);
    CHECK_FALSE(a.local_rank);
    CHECK(body(line).substr(0, 9) == "NCCL INFO");
}

TEST_CASE("attribution: pdsh host, then an NCCL header") {
    const auto a = attribute("gpu-pool-worker-1: gpu-pool-worker-1:3307:4872 [7] NCCL INFO Setting affinity");
    CHECK(a.host == "gpu-pool-worker-1");
    CHECK(a.pid == 3307);
    CHECK(a.cuda_dev == 7);
    CHECK_FALSE(a.rank);
}

TEST_CASE("attribution: pdsh host, then the excepthook rank") {
    const std::string_view line = "worker-1: [rank18]: RuntimeError: CUDA error: invalid device ordinal";
    const auto a = attribute(line);
    CHECK(a.host == "worker-1");
    CHECK(a.rank == 18);
    CHECK(body(line) == "RuntimeError: CUDA error: invalid device ordinal");
}

TEST_CASE("attribution: srun --label is a task, not a rank") {
    const auto a = attribute("1: gpu-st-p4de24xlarge-7:5310:7384 [4] bootstrap.cc:77 NCCL WARN Message truncated");
    CHECK(a.srun_task == 1);
    CHECK(a.host == "gpu-st-p4de24xlarge-7");
    CHECK(a.pid == 5310);
    CHECK(a.cuda_dev == 4);
    CHECK_FALSE(a.rank);

    const auto b = attribute("2: [rank18]:[W ProcessGroupNCCL.cpp:2302] Warning");
    CHECK(b.srun_task == 2);
    CHECK(b.rank == 18);

    CHECK(attribute(" 7: [rank3]: x").srun_task == 7);   // right-aligned when there are >= 10 tasks
}

TEST_CASE("attribution: mpirun --tag-output") {
    const std::string_view line = "[1,6]<stderr>:Traceback (most recent call last):";
    CHECK(attribute(line).rank == 6);
    CHECK(body(line) == "Traceback (most recent call last):");
}

TEST_CASE("attribution: Ray worker prefix") {
    const auto a = attribute("(RayTrainWorker pid=2841, ip=10.0.3.7) [rank1]: RuntimeError: boom");
    CHECK(a.pid == 2841);
    CHECK(a.host == "10.0.3.7");
    CHECK(a.rank == 1);
    CHECK(attribute("(pid=77) hello").pid == 77);
}

TEST_CASE("attribution: DeepSpeed launcher header") {
    const std::string_view line =
        "[2024-02-09 09:09:15,164] [INFO] [launch.py:315:sigkill_handler] Killing subprocess 3404";
    const auto a = attribute(line);
    REQUIRE(a.time);
    CHECK(a.time->has_date);
    CHECK(a.time->seconds == doctest::Approx(epoch(2024, 2, 9, 9, 9, 15.164)));
    CHECK(body(line) == "Killing subprocess 3404");
    CHECK_FALSE(a.pid);   // 3404 is the child being killed
}

TEST_CASE("attribution: Python logging after the tee prefix, and the store markers") {
    const auto a = attribute(
        "[default1]:2026-11-29 18:40:17,422 INFO torch.distributed.distributed_c10d: Added key: "
        "store_based_barrier_key:1 to store for rank: 1");
    CHECK(a.local_rank == 1);
    CHECK(a.rank == 1);
    REQUIRE(a.time);
    CHECK(a.time->has_date);
    CHECK(a.time->seconds == doctest::Approx(epoch(2026, 11, 29, 18, 40, 17.422)));
    CHECK_FALSE(a.host);   // `distributed_c10d: ` is text, not a pdsh host

    const auto b = attribute(
        "[default0]:2026-11-29 18:41:34,965 INFO torch.distributed.distributed_c10d: Rank 2: Completed "
        "store-based barrier for key:store_based_barrier_key:1 with 4 nodes.");
    CHECK(b.local_rank == 0);
    CHECK(b.rank == 2);
    CHECK(b.world_size == 4);
}

TEST_CASE("attribution: elastic agent's glog-style Python logger sets time (no date) and pid") {
    const std::string_view line =
        "E0311 19:04:26.517000 913402 site-packages/torch/distributed/elastic/multiprocessing/api.py:732] Traceback";
    const auto a = attribute(line);
    REQUIRE(a.time);
    CHECK_FALSE(a.time->has_date);
    CHECK(a.time->seconds == doctest::Approx(yearless(59, 11, 19, 4, 26.517)));
    CHECK(a.pid == 913402);
    CHECK(body(line) == "Traceback");

    const auto b = attribute(
        "W0616 00:37:22.884000 4015698 torch/distributed/elastic/multiprocessing/api.py:900] Sending process "
        "4015793 closing signal SIGTERM");
    CHECK(b.pid == 4015698);
    CHECK_FALSE(b.rank);
}

TEST_CASE("attribution: NCCL Init COMPLETE gives the communicator's rank, world size and bus id") {
    const auto a = attribute(
        "host-a:1234:1300 [0] NCCL INFO comm 0x55df01b24dd0 rank 24 nranks 32 cudaDev 0 nvmlDev 0 busId 7000 "
        "commId 0x2114bc51af4fb978 - Init COMPLETE");
    // Rank 24 of this communicator: the global rank only if it is the world's, which the Timeline decides.
    CHECK(a.comm_rank == 24);
    CHECK_FALSE(a.rank);
    CHECK(a.world_size == 32);
    CHECK(a.bus_id == "7000");
    CHECK(a.host == "host-a");
    CHECK(a.pid == 1234);
    CHECK(a.cuda_dev == 0);

    const auto b = attribute("h:1:2 [1] NCCL INFO comm 0x1 rank 1 nranks 2 cudaDev 1 busId 00A000 - Init COMPLETE");
    CHECK(b.bus_id == "a000");
    // Without "Init COMPLETE" the same numbers are not trusted (other NCCL lines reuse the words).
    CHECK_FALSE(attribute("h:1:2 [1] NCCL INFO comm 0x1 rank 1 nranks 2 cudaDev 1 busId 7000").comm_rank);
}

TEST_CASE("attribution: NCCL's newest timestamp prefix") {
    const auto a = attribute("[2025-01-01 10:00:00] host-a:1:2 [0] misc/socket.cc:50 NCCL WARN ...");
    REQUIRE(a.time);
    CHECK(a.time->has_date);
    CHECK(a.time->seconds == doctest::Approx(epoch(2025, 1, 1, 10, 0, 0)));
    CHECK(a.host == "host-a");
    CHECK(a.pid == 1);
    CHECK(a.cuda_dev == 0);
}

TEST_CASE("attribution: elastic summary lines") {
    const auto a = attribute("  rank      : 3 (local_rank: 1)");
    CHECK(a.rank == 3);
    CHECK(a.local_rank == 1);
    CHECK(a.body_offset == 0);
    CHECK_FALSE(a.host);
    CHECK(attribute("world_size=2 master_addr=x").world_size == 2);
}

TEST_CASE("attribution: a log collector's bare clock in front of the line is passed over") {
    const auto a = attribute("20:18:17.476 [rank0]:[W317 20:18:18.172384015 ProcessGroupNCCL.cpp:1538] Warning: x");
    CHECK(a.rank == 0);
    REQUIRE(a.time);   // the worker's own glog time, year-less
    CHECK_FALSE(a.time->has_date);
    // A collector's stream tag, after an optional name.
    CHECK(attribute("dinov2.node-7 [stderr] [rank3]: FileNotFoundError: x").rank == 3);
    CHECK(attribute("[stdout] [rank1]: step 5").rank == 1);
    // Without millis a clock is too ambiguous to skip.
    CHECK_FALSE(attribute("12:30:00 [rank3]: foo").rank);
}

TEST_CASE("attribution: a torchrun command line echoed into the log states the world") {
    CHECK(attribute("$ torchrun --nproc_per_node=4 bug.py").world_size == 4);
    CHECK(attribute("+ torchrun --standalone --nnodes=1 --nproc-per-node=3 eval.py").world_size == 3);
    CHECK(attribute("srun python -m torch.distributed.run --nnodes 2 --nproc_per_node 8 train.py").world_size == 16);
    // An elastic node range, `gpu`, or a flag without the launcher states no number.
    CHECK_FALSE(attribute("torchrun --nnodes=1:4 --nproc_per_node=8 train.py").world_size);
    const auto elastic = attribute("torchrun --nnodes=1:4 --nproc_per_node=8 train.py");   // bounds only
    CHECK(elastic.min_nodes == std::optional<int>(1));
    CHECK(elastic.max_nodes == std::optional<int>(4));
    CHECK_FALSE(attribute("torchrun --nnodes=4:1 --nproc_per_node=8 train.py").max_nodes);   // no range
    CHECK_FALSE(attribute("torchrun --nproc_per_node=gpu train.py").world_size);
    CHECK_FALSE(attribute("python train.py --nproc_per_node=4").world_size);
    CHECK_FALSE(attribute("torchrun --nnodes=99999999999 --nproc_per_node=8 x.py").world_size);
}

TEST_CASE("attribution: a log viewer's line number is skipped, never a rank") {
    const std::string_view line = "[1803] [rank3]: foo";
    const auto a = attribute(line);
    CHECK(a.rank == 3);
    CHECK(body(line) == "foo");
    const auto b = attribute("[42] something");
    CHECK_FALSE(b.rank);
    CHECK_FALSE(b.local_rank);
}

TEST_CASE("attribution: dmesg times are uptimes") {
    const auto a = attribute("[  +0.000291] pcieport 0000:00:01.0: AER: Corrected error received");
    REQUIRE(a.time);
    CHECK(a.time->uptime);
    CHECK(a.time->relative);
    CHECK_FALSE(a.time->has_date);
    CHECK(a.time->seconds == doctest::Approx(0.000291));
    CHECK_FALSE(a.host);

    const std::string_view line = "[12345.678901] NVRM: Xid (PCI:0000:3b:00): 79, GPU has fallen off the bus.";
    const auto b = attribute(line);
    REQUIRE(b.time);
    CHECK(b.time->uptime);
    CHECK_FALSE(b.time->relative);
    CHECK(b.time->seconds == doctest::Approx(12345.678901));
    CHECK(body(line).substr(0, 5) == "NVRM:");

    // Kernel subsystems with a dash are not pdsh hosts once the kernel's own time has been seen.
    CHECK_FALSE(attribute("[  123.456789] nvidia-nvlink: Nvlink Core is being initialized").host);

    const auto c = attribute("[Mon Oct 23 14:02:03 2024] NVRM: Xid");
    REQUIRE(c.time);
    CHECK(c.time->has_date);
    CHECK(c.time->seconds == doctest::Approx(epoch(2024, 10, 23, 14, 2, 3)));
}

TEST_CASE("attribution: ISO 8601 with zone") {
    auto a = attribute("2024-10-23T14:02:03.123Z worker started");
    REQUIRE(a.time);
    CHECK(a.time->has_date);
    CHECK(a.time->seconds == doctest::Approx(epoch(2024, 10, 23, 14, 2, 3.123)));
    a = attribute("2024-10-23T14:02:03+02:00 x");
    REQUIRE(a.time);
    CHECK(a.time->seconds == doctest::Approx(epoch(2024, 10, 23, 12, 2, 3)));
}

TEST_CASE("attribution: parse_timestamp styles") {
    auto t = parse_timestamp("2026-11-29_18:40:22");
    REQUIRE(t);
    CHECK(t->has_date);
    CHECK(t->seconds == doctest::Approx(epoch(2026, 11, 29, 18, 40, 22)));

    t = parse_timestamp("E1023 14:02:03.123456");
    REQUIRE(t);
    CHECK_FALSE(t->has_date);
    CHECK(t->seconds == doctest::Approx(yearless(273, 23, 14, 2, 3.123456)));

    t = parse_timestamp("[2024-10-23 14:02:03,123] rest");
    REQUIRE(t);
    CHECK(t->seconds == doctest::Approx(epoch(2024, 10, 23, 14, 2, 3.123)));

    t = parse_timestamp("E211 09:46:37");   // c10 does not pad the month
    REQUIRE(t);
    CHECK(t->seconds == doctest::Approx(yearless(31, 11, 9, 46, 37)));

    t = parse_timestamp("0229 00:00:00");   // no level letter: not glog
    CHECK_FALSE(t);
    t = parse_timestamp("I0229 00:00:01");   // a leap year's 29 February is accepted
    REQUIRE(t);
    CHECK(t->seconds == doctest::Approx(yearless(59, 1, 0, 0, 1)));

    CHECK_FALSE(parse_timestamp("2024-13-01 00:00:00"));
    CHECK_FALSE(parse_timestamp("2023-02-29 00:00:00"));
    CHECK_FALSE(parse_timestamp("2024-01-01 25:00:00"));
    CHECK_FALSE(parse_timestamp("E1399 00:00:00"));
    CHECK_FALSE(parse_timestamp("[2024-01-01 00:00:00"));
    CHECK_FALSE(parse_timestamp(""));
    CHECK_FALSE(parse_timestamp("time"));
}

TEST_CASE("attribution: Slurm and prose before ': ' are not pdsh hosts") {
    for (std::string_view line : {
             "slurmstepd: error: *** STEP 7218.0 ON HPC2301N014 CANCELLED AT 2024-05-14T09:42:51 ***",
             "srun: error: node3: task 1: Exited with exit code 1",
             "Traceback (most recent call last):",
             "RuntimeError: CUDA error: an illegal memory access was encountered",
             "torch.cuda.OutOfMemoryError: CUDA out of memory.",
             "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ",
             "WARNING: something",
             "INFO: something",
             "ERROR: something",
             "Note: the rest",
             "1.5: not a host",
             "12345: not a host either",
         }) {
        CAPTURE(line);
        CHECK_FALSE(attribute(line).host);
    }
    const auto ip = attribute("10.0.3.7: hello");
    CHECK(ip.host == "10.0.3.7");
    CHECK(attribute("HPC2301N014: hello").host == "HPC2301N014");
}

TEST_CASE("attribution: a traceback line gets nothing") {
    const std::string_view line = "  File \"/x.py\", line 3, in <module>";
    const auto a = attribute(line);
    CHECK_FALSE(a.rank);
    CHECK_FALSE(a.local_rank);
    CHECK_FALSE(a.srun_task);
    CHECK_FALSE(a.host);
    CHECK_FALSE(a.pid);
    CHECK_FALSE(a.time);
    CHECK(a.body_offset == 0);
}

TEST_CASE("attribution: [Rank N] glued behind a progress bar is still found") {
    const auto a = attribute(
        "Epoch 0:  58%|#####     | 7/12 [00:05<00:04]P[E ProcessGroupNCCL.cpp:475] [Rank 1] Watchdog caught");
    CHECK(a.rank == 1);
    CHECK_FALSE(a.host);
}

TEST_CASE("attribution: the excepthook's single space is part of its prefix") {
    // A traceback keeps its own two-space indentation in the body.
    CHECK(body("[rank0]:   File \"/x.py\", line 3") == "  File \"/x.py\", line 3");
    // torchrun's role prefix is glued, so nothing after it is dropped.
    CHECK(body("[default0]:  File \"/x.py\"") == "  File \"/x.py\"");
}

TEST_CASE("attribution: never crashes and stays bounded on hostile input") {
    CHECK(attribute("").body_offset == 0);

    const char raw[] = "[rank5]:\0\xff\xfe[Rank 9]";
    const std::string nul(raw, sizeof raw - 1);
    const auto a = attribute(nul);
    CHECK(a.rank == 5);

    std::string bad_utf8 = "\xc3\x28\xa0\xa1[default2]:\xe2\x82";
    CHECK_NOTHROW(attribute(bad_utf8));
    CHECK(attribute("[default2]:\xe2\x82\xff [Rank 4]").local_rank == 2);

    // 10 MB of repeated prefixes: the walk stops after a bounded number of them.
    std::string repeated;
    while (repeated.size() < 10'000'000) repeated += "[rank0]:";
    const auto r = attribute(repeated);
    CHECK(r.rank == 0);
    CHECK(r.body_offset < 4096);

    // 10 MB body with a marker far past the search window: not found, and quick.
    std::string big = "[default1]:" + std::string(10'000'000, 'x') + " [Rank 7] late";
    const auto b = attribute(big);
    CHECK(b.local_rank == 1);
    CHECK_FALSE(b.rank);

    // 10 MB of brackets, digits and colons: every parser fails fast.
    std::string noise;
    while (noise.size() < 10'000'000) noise += "[1:2 [3] a-b: ";
    CHECK_NOTHROW(attribute(noise));

    // Overflowing numbers are dropped, not wrapped.
    const auto o = attribute("[rank99999999999999999999]: x");
    CHECK_FALSE(o.rank);
}

TEST_CASE("attribution: syslog / journald header gives host, year-less time and the program's pid") {
    auto a = denpex::attribute("Mar 12 04:17:33 dgx-a08 kernel: NVRM: Xid (PCI:0000:4e:00): 48, pid='<unknown>'");
    REQUIRE(a.host);
    CHECK(*a.host == "dgx-a08");
    REQUIRE(a.time);
    CHECK_FALSE(a.time->has_date);
    CHECK_FALSE(a.pid);
    auto b = denpex::attribute("Oct  3 11:02:09 gpu-node-7 python3[31873]: Traceback (most recent call last):");
    REQUIRE(b.host);
    CHECK(*b.host == "gpu-node-7");
    REQUIRE(b.pid);
    CHECK(*b.pid == 31873);
    // Prose that starts with a month name is not a syslog header.
    auto c = denpex::attribute("Mar 12 was the day the job failed: see below");
    CHECK_FALSE(c.host);
}

TEST_CASE("attribution: a user's [${rank}]: template prefix is stepped over, not read as a rank or a local rank") {
    const auto a = attribute("[6]:[rank6]: torch.OutOfMemoryError: CUDA out of memory.");
    CHECK(a.rank == std::optional<int>(6));
    CHECK_FALSE(a.local_rank);
    CHECK(body("[6]:[rank6]: torch.OutOfMemoryError: CUDA out of memory.") == "torch.OutOfMemoryError: CUDA out of memory.");
    const auto alone = attribute("[13]:epoch 3 step 200 loss 2.1");
    CHECK_FALSE(alone.rank);
    CHECK_FALSE(alone.local_rank);
    // torchrun's summary opens each record with `[N]:` on a line of its own: that line stays as it is.
    CHECK(body("[0]:") == "[0]:");
}

TEST_CASE("attribution: kubectl describe's Key-Words: are not pdsh host prefixes") {
    CHECK_FALSE(attribute("Node-Selectors:              <none>").host);
    CHECK_FALSE(attribute("Termination-Message-Path: /dev/termination-log").host);
    CHECK(attribute("DESKTOP-7QK2M: RuntimeError: boom").host == std::optional<std::string>("DESKTOP-7QK2M"));
    CHECK(attribute("worker-1: RuntimeError: boom").host == std::optional<std::string>("worker-1"));
}

TEST_CASE("attribution: [rank0]:[rank8]: is torchrun's --role rank prefix (local rank 0) before the global rank") {
    const auto a = attribute("[rank0]:[rank8]:[E1021 04:12:07.318000311 ProcessGroupNCCL.cpp:632] [Rank 8] Watchdog caught collective operation timeout");
    CHECK(a.rank == std::optional<int>(8));
    CHECK(a.local_rank == std::optional<int>(0));
    const auto doubled = attribute("[rank3]:[rank3]: RuntimeError: boom");
    CHECK(doubled.rank == std::optional<int>(3));
    CHECK_FALSE(doubled.local_rank);
}

TEST_CASE("attribution: a logging format with the rank after the level") {
    const auto a = attribute("2024-05-02 19:43:12,623 ERROR [rank5] __main__: step 7339 failed");
    CHECK(a.rank == std::optional<int>(5));
    CHECK(attribute("[default1]:2024-06-11T14:20:05.512+02:00 [ERROR] [rank9] trainer: exception in step 1201").rank ==
          std::optional<int>(9));
    // Python's "%(asctime)s - %(levelname)s - %(message)s" with a "[rank N]" message prefix.
    CHECK(attribute("2024-04-17 10:22:31,602 - ERROR - [rank 2] generation failed: CUDA error").rank ==
          std::optional<int>(2));
    CHECK(attribute("[2024-01-14 07:08:58,240] [ERROR] rank 11: OSError: [Errno 122] Disk quota exceeded").rank ==
          std::optional<int>(11));
    // Mentioned inside a message, it names nobody.
    CHECK_FALSE(attribute("2024-05-02 19:43:12,623 INFO __main__: waiting for [rank5] to finish").rank);
    CHECK_FALSE(attribute("2024-05-02 19:43:12,623 INFO finetune: rank 3: tokenized 1300 samples").rank);
    CHECK_FALSE(attribute("2024-05-02 19:43:12,623 rank 3: tokenized 1300 samples").rank);
    CHECK_FALSE(attribute("2024-05-02 19:43:12,623 - INFO - waiting for [rank 5] to finish").rank);
}

TEST_CASE("attribution: times written to the whole second say so") {
    CHECK(attribute("[Thu Mar  7 14:22:51 2024] NVRM: Xid (PCI:0000:b7:00): 79").time->whole_seconds);
    CHECK(attribute("2024-05-02T19:44:12Z rank 3 failed").time->whole_seconds);
    CHECK_FALSE(attribute("2024-05-02 19:44:12,118 INFO step").time->whole_seconds);
}

TEST_CASE("attribution: Open MPI's own prefix names the writer's host and pid") {
    const auto a = attribute("[dgx-b3:18843] Signal: Segmentation fault (11)");
    CHECK(a.host == std::optional<std::string>("dgx-b3"));
    CHECK(a.pid == std::optional<long>(18843));
    CHECK(body("[dgx-b3:18843] Signal: Segmentation fault (11)") == "Signal: Segmentation fault (11)");
    // Behind mpirun's tag too.
    CHECK(attribute("[1,2]<stderr>:[dgx-b3:18843] *** Process received signal ***").pid == std::optional<long>(18843));
    // UCX's banner: host, pid left-justified in a field of five, thread, tid.
    const auto ucx = attribute("[gpu-h07:345  :0:345] Caught signal 11 (Segmentation fault: address not mapped to object at address 0x20)");
    CHECK(ucx.host == std::optional<std::string>("gpu-h07"));
    CHECK(ucx.pid == std::optional<long>(345));
    CHECK(body("[gpu-h07:61204:0:61298]  Caught signal 11 (Segmentation fault)").find("Caught signal 11") == 1);
}

TEST_CASE("attribution: a test harness's stream label is skipped, the child's own prefixes are read") {
    // accelerate's / transformers' execute_subprocess_async: print("stderr:", line).
    const auto a = attribute("stderr: [rank1]:[E ProcessGroupNCCL.cpp:461] To avoid data inconsistency");
    CHECK(a.rank == 1);
    CHECK(body("stderr:   rank      : 0 (local_rank: 0)") == "  rank      : 0 (local_rank: 0)");
    CHECK(body("stdout: epoch 3 done") == "epoch 3 done");
    CHECK(body("stderr:") == "");
    // Not a label: a word that only begins like one, and the label not at the line's start.
    CHECK(body("stderrs: x") == "stderrs: x");
    CHECK(body("error in stderr: x") == "error in stderr: x");
    // A job service's merged log marks each line with its stream, glued to it.
    CHECK(body("[stderr]  rank      : 1 (local_rank: 1)") == "  rank      : 1 (local_rank: 1)");
    CHECK(attribute("[stderr][rank3]: RuntimeError: boom").rank == 3);
    CHECK(body("[stdout]Job exited with code 1") == "Job exited with code 1");
}
