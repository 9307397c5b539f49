// The reasoner on small synthetic logs, one mechanism per test: each log is written so that exactly one
// strategy can decide (or none can), and the test checks the verdict, the strategy and the wording a user sees.
#include <doctest/doctest.h>

#include "embedded_engine.hpp"

#include <string>

#include "engine/engine.hpp"
#include "engine/report.hpp"

using namespace denpex;

namespace {

Report run(std::vector<std::pair<std::string, std::string>> texts) {
    DiagnoseInput in;
    in.texts = std::move(texts);
    return engine().diagnose(in);
}

const Diagnosis& only(const Report& r) {
    REQUIRE(r.diagnoses.size() == 1);
    return r.diagnoses.front();
}

bool has_strategy(const Diagnosis& d, const std::string& s) {
    return std::find(d.strategies.begin(), d.strategies.end(), s) != d.strategies.end();
}

std::string watchdog(int rank, int seq = 77) {
    return "[rank" + std::to_string(rank) + "]:[E1023 14:32:0" + std::to_string(rank % 10) +
           ".123456789 ProcessGroupNCCL.cpp:629] [Rank " + std::to_string(rank) +
           "] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=" + std::to_string(seq) +
           ", OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600081 milliseconds before timing out.\n";
}

}  // namespace

TEST_CASE("reasoner: the OOM rank initiates; the master's timeouts are collateral") {
    std::string master, worker;
    for (int r = 0; r < 4; ++r) master += watchdog(r);
    worker = "[rank5]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 1 has a total "
             "capacity of 79.11 GiB of which 1.02 GiB is free.\n";
    for (int r = 4; r < 8; ++r)
        if (r != 5) worker += watchdog(r);
    Report r = run({{"master.log", master}, {"worker.log", worker}});
    const Diagnosis& d = only(r);
    REQUIRE(d.initiating_rank);
    CHECK(*d.initiating_rank == 5);
    REQUIRE(d.failure);
    CHECK(d.failure->id == "watchdog-timeout-silent-oom");   // the scenario, chosen over its OOM part
    CHECK(d.confidence == "high");
    CHECK(has_strategy(d, "initiating-event"));
    CHECK(d.collateral.size() == 7);
    for (const auto& c : d.collateral) CHECK(c.failure->id == "nccl-watchdog-timeout");
    REQUIRE(!d.evidence.empty());
    CHECK(d.evidence.front().file == "worker.log");
    CHECK(d.evidence.front().line == 1);
    CHECK(d.missing.empty());
}

TEST_CASE("reasoner: torchrun's Root Cause names the wrong rank and the report says so") {
    std::string log =
        "[default1]:2026-11-29 18:40:17,422 INFO torch.distributed.distributed_c10d: Added key: store_based_barrier_key:1 to store for rank: 1\n"
        "[default0]:2026-11-29 18:40:17,413 INFO torch.distributed.distributed_c10d: Added key: store_based_barrier_key:1 to store for rank: 0\n"
        "[default0]:RuntimeError: [./gloo/transport/tcp/pair.cc:589] Read error [127.0.0.1]:24226: Connection reset by peer\n"
        "Failures:\n[1]:\n  time      : 2026-11-29_18:40:22\n  host      : localhost\n  rank      : 1 (local_rank: 1)\n"
        "  exitcode  : -9 (pid: 16973)\n  error_file: <N/A>\n  traceback : Signal 9 (SIGKILL) received by PID 16973\n"
        "------------------------------------------------------------\nRoot Cause (first observed failure):\n[0]:\n"
        "  time      : 2026-11-29_18:40:22\n  host      : localhost\n  rank      : 0 (local_rank: 0)\n"
        "  exitcode  : 1 (pid: 16972)\n  error_file: <N/A>\n"
        "============================================================\n";
    const Report r = run({{"combined.log", log}});
    const Diagnosis& d = only(r);
    REQUIRE(d.initiating_rank);
    CHECK(*d.initiating_rank == 1);
    CHECK(d.failure->id == "process-killed-sigkill");
    bool noted = false;
    for (const auto& n : d.notes)
        if (n.find("Root Cause") != std::string::npos && n.find("rank 0") != std::string::npos) noted = true;
    CHECK(noted);
}

TEST_CASE("reasoner: a present rank that stays silent while every other rank times out is the straggler") {
    std::string log;
    for (int r = 0; r < 4; ++r)
        log += "[rank" + std::to_string(r) + "]:2024-01-01 10:00:00,000 INFO train: rank " + std::to_string(r) +
               " entering step 9 (world_size=4)\n";
    for (int r : {0, 1, 3}) log += watchdog(r);
    const Report r = run({{"console.log", log}});
    const Diagnosis& d = only(r);
    REQUIRE(d.initiating_rank);
    CHECK(*d.initiating_rank == 2);
    CHECK(has_strategy(d, "silent-rank"));
    CHECK(d.failure->id == "rank-hang-straggler");
    CHECK(d.evidence.front().text.find("rank 2 entering step 9") != std::string::npos);
}

TEST_CASE("reasoner: the rank that never enqueued the timed-out SeqNum is the laggard") {
    std::string log;
    for (int r : {0, 1, 2})
        log += "[rank" + std::to_string(r) + "]:[E ProcessGroupNCCL.cpp:1537] [PG 0 Rank " + std::to_string(r) +
               "] Timeout at NCCL work: 1203, last enqueued NCCL work: 1203, last completed NCCL work: 1202.\n";
    // Rank 3 completed 1202 with the others and never issued 1203: it stalled before the collective.
    log += "[rank3]:[I ProcessGroupNCCL.cpp:1890] [PG 0 Rank 3] NCCL Work update periodically: last enqueued NCCL "
           "work: 1202, last completed NCCL work: 1202.\n";
    const Report r = run({{"all.log", log}});
    const Diagnosis& d = only(r);
    REQUIRE(d.initiating_rank);
    CHECK(*d.initiating_rank == 3);
    CHECK(has_strategy(d, "sequence-lag"));
}

TEST_CASE("reasoner: a rank behind that waits in a work another rank completed is no laggard: the paths diverged") {
    // Rank 1 timed out in work 313, which rank 0 completed (it timed out in 315, last completed 314): a collective
    // completes only when every rank runs it, so the two ran different collectives under 313. Being behind names no
    // one; which rank's code path differs is the missing fact.
    const std::string log =
        "[rank1]:[E ProcessGroupNCCL.cpp:563] [Rank 1] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=313, "
        "OpType=_ALLGATHER_BASE, NumelIn=262668288, NumelOut=525336576, Timeout(ms)=600000) ran for 600010 milliseconds "
        "before timing out.\n"
        "[rank0]:[E ProcessGroupNCCL.cpp:563] [Rank 0] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=315, "
        "OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600095 milliseconds before timing out.\n"
        "[rank0]:[E ProcessGroupNCCL.cpp:1537] [PG 0 Rank 0] Timeout at NCCL work: 315, last enqueued NCCL work: 315, "
        "last completed NCCL work: 314.\n";
    const Report r = run({{"console.log", log}});
    const Diagnosis& d = only(r);
    CHECK_FALSE(d.initiating_rank);
    CHECK(d.undetermined);
    CHECK_FALSE(has_strategy(d, "sequence-lag"));
    REQUIRE_FALSE(d.missing.empty());
    CHECK(d.missing.front().find("TORCH_DISTRIBUTED_DEBUG=DETAIL") != std::string::npos);
    CHECK(d.missing.front().find("work 313") != std::string::npos);
    // A third rank, silent: rank 0 completed 313, so every rank took part in it; the silence shows no stall.
    const Report three = run({{"console.log", "[rank0]: world_size=3 backend=nccl\n" + log}});
    CHECK_FALSE(only(three).initiating_rank);
    CHECK(only(three).undetermined);
    // The same numbers in different groups say nothing of each other: rank 1's wait in PG 3 is no divergence.
    const std::string other_group =
        "[rank1]:[E ProcessGroupNCCL.cpp:563] [PG 3 Rank 0] Watchdog caught collective operation timeout: "
        "WorkNCCL(SeqNum=313, OpType=ALLGATHER, NumelIn=1, NumelOut=2, Timeout(ms)=600000) ran for 600010 milliseconds "
        "before timing out.\n" + log.substr(log.find("[rank0]"));
    const Report gr = run({{"console.log", other_group}});
    const Diagnosis& g = only(gr);
    REQUIRE_FALSE(g.missing.empty());
    CHECK(g.missing.front().find("TORCH_DISTRIBUTED_DEBUG=DETAIL") == std::string::npos);
}

TEST_CASE("reasoner: srun's exit report for tasks whose [rankN] output shows each one's error is no unexplained exit") {
    // No `N: ` labels: the tasks are known by the ranks their lines carry. Each printed its error, so srun's report
    // adds nothing, and every rank failing to reach one peer (its own host's ranks too) is the whole job's.
    std::string log = "Initializing distributed: GLOBAL_RANK: 0, MEMBER: 1/2\n";
    for (int r = 0; r < 2; ++r)
        log += "[rank" + std::to_string(r) + "]: socketPollConnect: connect to 10.4.0.9<41233> returned Connection "
               "refused, exceeded error retry count after 35 attempts\n";
    log += "srun: error: gpu-c03: tasks 0-1: Exited with exit code 1\n";
    const Report r = run({{"slurm.out", log}});
    const Diagnosis& d = only(r);
    REQUIRE(d.failure);
    CHECK(d.failure->id != "worker-exit-unexplained");
    CHECK(d.rank_not_applicable);
    CHECK(d.confidence == "low");
    // One rank alone failing to reach it says nothing of the others: undetermined.
    const Report one = run({{"slurm.out", "Initializing distributed: GLOBAL_RANK: 0, MEMBER: 1/2\n[rank0]: "
                                          "socketPollConnect: connect to 10.4.0.9<41233> returned Connection refused, "
                                          "exceeded error retry count after 35 attempts\n"}});
    CHECK(only(one).undetermined);
}

TEST_CASE("reasoner: only collateral from half the world is undetermined, with the missing ranks named") {
    std::string log = "[default0]:INFO Rank 4: Completed store-based barrier for key:store_based_barrier_key:1 with 8 nodes.\n";
    for (int r = 4; r < 8; ++r) log += watchdog(r);
    const Report r = run({{"node1.log", log}});
    const Diagnosis& d = only(r);
    CHECK_FALSE(d.initiating_rank);
    CHECK(d.undetermined);
    CHECK(d.confidence == "low");
    REQUIRE(d.missing.size() >= 1);
    CHECK(d.missing.front().find("ranks 0-3") != std::string::npos);
    // what to look for in the absent logs: the initiator's signs, not more timeouts
    CHECK(d.missing.front().find("CUDA out of memory") != std::string::npos);
    CHECK(d.failure->id == "nccl-watchdog-timeout");
}

TEST_CASE("reasoner: in per-rank files, a rank whose file is absent is a missing fact, not a straggler") {
    std::vector<std::pair<std::string, std::string>> files;
    for (int r : {0, 1, 3}) files.push_back({"rank_" + std::to_string(r) + ".log", watchdog(r)});
    files[0].second = "INFO world_size=4\n" + files[0].second;
    const Report r = run(files);
    const Diagnosis& d = only(r);
    CHECK_FALSE(d.initiating_rank);
    CHECK(d.undetermined);
    REQUIRE(!d.missing.empty());
    CHECK(d.missing.front().find("rank 2") != std::string::npos);
}

TEST_CASE("reasoner: the same error on several ranks at once is not one rank's failure") {
    std::string log;
    for (int r : {0, 1, 2, 3})
        log += "[rank" + std::to_string(r) + "]: RuntimeError: CUDA error: uncorrectable ECC error encountered\n";
    const Report r = run({{"node.log", log}});
    const Diagnosis& d = only(r);
    CHECK_FALSE(d.initiating_rank);
    CHECK(d.rank_not_applicable);
    CHECK_FALSE(d.undetermined);
    CHECK(d.affected_ranks == std::vector<int>{0, 1, 2, 3});
}

TEST_CASE("reasoner: an error no line ties to a rank leaves the rank undetermined and says how to get it") {
    std::string log = "gpu-a7:5310:7384 [4] bootstrap.cc:77 NCCL WARN Cuda failure 'out of memory'\n";
    const Report r = run({{"node.log", log}});
    const Diagnosis& d = only(r);
    CHECK_FALSE(d.initiating_rank);
    CHECK(d.undetermined);
    REQUIRE(d.initiating_host);
    CHECK(*d.initiating_host == "gpu-a7");
    REQUIRE(!d.missing.empty());
    CHECK(d.missing.front().find("Init COMPLETE") != std::string::npos);
}

TEST_CASE("reasoner: the kernel's OOM killer victim is tied to its rank by pid") {
    std::string log =
        "[default2]:RuntimeError: [../third_party/gloo/gloo/transport/tcp/pair.cc:598] Connection closed by peer [10.0.0.5]:4010\n"
        "Failures:\n[1]:\n  time      : 2026-11-29_18:40:22\n  host      : bigmem-05\n  rank      : 3 (local_rank: 3)\n"
        "  exitcode  : 1 (pid: 61880)\n"
        "============================================================\n";
    std::string dmesg = "[1834021.554498] Out of memory: Killed process 61879 (python) total-vm:98301244kB\n";
    std::string nccl = "bigmem-05:61879:61900 [0] NCCL INFO comm 0x1 rank 1 nranks 4 cudaDev 0 busId 1b000 - Init COMPLETE\n";
    const Report r = run({{"combined.log", log + nccl}, {"dmesg.log", dmesg}});
    const Diagnosis& d = only(r);
    REQUIRE(d.initiating_rank);
    CHECK(*d.initiating_rank == 1);
}

TEST_CASE("reasoner: fix advice follows the PyTorch version and launcher the logs show") {
    // torchrun (elastic summary) and 2.5+ OOM wording: async error handling is already on, so that fix is
    // "not needed here"; expandable segments applies.
    std::string log =
        "[default1]:[rank1]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 1 has a total capacity of 79.11 GiB of which 1.02 GiB is free.\n" +
        watchdog(0) + "Failures:\n  <NO_OTHER_FAILURES>\n";
    const Report r = run({{"node.log", log}});
    const Diagnosis& d = only(r);
    REQUIRE(d.initiating_rank);
    bool async_not_needed = false, expandable_applies = false;
    for (const auto& f : d.fix) {
        if (f.env.count("TORCH_NCCL_ASYNC_ERROR_HANDLING") && f.env.at("TORCH_NCCL_ASYNC_ERROR_HANDLING") == "1")
            async_not_needed = f.applies == "not needed here" && f.why.find("torchrun") != std::string::npos;
        if (f.env.count("PYTORCH_CUDA_ALLOC_CONF") && f.env.at("PYTORCH_CUDA_ALLOC_CONF") == "expandable_segments:True")
            expandable_applies = f.applies == "yes";
    }
    CHECK(async_not_needed);
    CHECK(expandable_applies);

    // The fix of the cause leads: advice that applies keeps the entry's authored order, and what is not
    // needed here comes after everything that is.
    REQUIRE(d.failure);
    REQUIRE(!d.fix.empty());
    CHECK(d.fix.front().text == d.failure->fix.front().text);
    bool seen_not_needed = false;
    for (const auto& f : d.fix) {
        if (f.applies == "not needed here") seen_not_needed = true;
        else CHECK_FALSE(seen_not_needed);
    }
    CHECK(seen_not_needed);
}

TEST_CASE("reasoner: healthy logs give no diagnosis") {
    Report r = run({{"ok.log", "[rank0]: step 1 loss 2.0\n[rank1]: step 1 loss 2.0\n"}});
    CHECK(r.diagnoses.empty());
    CHECK(r.ranks.size() == 2);
}

TEST_CASE("reasoner: JSON contract has the fields clients rely on") {
    Report r = run({{"n.log", watchdog(4)}});
    nlohmann::json j = to_json(r);
    const auto& d = j["diagnoses"][0];
    CHECK(d["initiating"]["rank"].is_null());
    CHECK(d["undetermined"] == true);
    CHECK(!d["missing"].empty());
    for (const char* k : {"failure", "confidence", "collateral", "fix", "verify", "notes", "strategies"}) CHECK(d.contains(k));
    CHECK(j["ranks"][0]["state"] == "collateral");
}

TEST_CASE("reasoner: a failure report naming its subject in indented field lines is tied to that worker's rank") {
    std::string log =
        "(RayTrainWorker pid=5512, ip=10.1.0.5) Setting up process group for: env:// [rank=2, world_size=4]\n"
        "(RayTrainWorker pid=5513, ip=10.1.0.5) Setting up process group for: env:// [rank=3, world_size=4]\n"
        "ray.exceptions.RayActorError: The actor died unexpectedly before finishing this task.\n"
        "\tclass_name: RayTrainWorker\n"
        "\tpid: 5512\n"
        "\tip: 10.1.0.5\n";
    const Report r = run({{"driver.log", log}});
    const Diagnosis& d = only(r);
    REQUIRE(d.initiating_rank);
    CHECK(*d.initiating_rank == 2);
    REQUIRE(d.initiating_host);
    CHECK(*d.initiating_host == "10.1.0.5");
}

TEST_CASE("reasoner: a quoted line in the missing fact is cut on a word boundary and stays valid UTF-8") {
    // 117 ASCII bytes, then two-byte characters: a byte cut at 120 would split one of them.
    std::string line = "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB. GPU 0 has a total "
                       "capacity of 23.64 GiB of w\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9 is free.";
    const Report r = run({{"pasted.txt", line + "\n"}});
    const Diagnosis& d = only(r);
    REQUIRE(d.missing.size() == 1);
    CHECK(d.missing.front().find("of w\xC3\xA9") == std::string::npos);
    CHECK(d.missing.front().find("capacity of 23.64 GiB of…\"") != std::string::npos);
    CHECK_NOTHROW((void)to_json(r).dump());
}

TEST_CASE("reasoner: the agent's SIGTERM lines make the named workers collateral, not the agent") {
    // torch 2.4+ agent lines carry the agent's own pid (7001) in their glog header.
    std::string log =
        "[rank1]:[rank1]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 1 has a total capacity of 79.11 GiB of which 1.02 GiB is free.\n"
        "W1023 14:02:03.552000 7001 torch/distributed/elastic/multiprocessing/api.py:897] Sending process 8100 closing signal SIGTERM\n"
        "W1023 14:02:03.555000 7001 torch/distributed/elastic/multiprocessing/api.py:897] Sending process 8102 closing signal SIGTERM\n"
        "E1023 14:02:04.101000 7001 torch/distributed/elastic/multiprocessing/api.py:869] failed (exitcode: 1) local_rank: 1 (pid: 8101) of binary: /usr/bin/python\n";
    const Report r = run({{"node.log", log}});
    const Diagnosis& d = only(r);
    REQUIRE(d.initiating_rank);
    CHECK(*d.initiating_rank == 1);
    std::vector<std::string> named;
    for (const auto& c : d.collateral) named.push_back(c.process);
    REQUIRE(named.size() == 2);
    CHECK(named[0].find("pid 8100") == 0);
    CHECK(named[1].find("pid 8102") == 0);
    for (const auto& n : named) CHECK(n.find("7001") == std::string::npos);
}

TEST_CASE("reasoner: the kernel's reason for a SIGKILL leads, even below torchrun's summary in the file") {
    std::string log =
        "[2024-03-05 10:41:09,118] torch.distributed.elastic.multiprocessing.api: [WARNING] Sending process 30316 closing signal SIGTERM\n"
        "[2024-03-05 10:41:10,551] torch.distributed.elastic.multiprocessing.api: [ERROR] failed (exitcode: -9) local_rank: 1 (pid: 30317) of binary: /usr/bin/python\n"
        "Failures:\n  <NO_OTHER_FAILURES>\nRoot Cause (first observed failure):\n[0]:\n  time      : 2024-03-05_10:41:09\n"
        "  host      : srv-a\n  rank      : 1 (local_rank: 1)\n  exitcode  : -9 (pid: 30317)\n"
        "  traceback : Signal 9 (SIGKILL) received by PID 30317\n"
        "=======================================================\n"
        "[Tue Mar  5 10:41:07 2024] Out of memory: Killed process 30317 (python) total-vm:131894532kB, anon-rss:101442816kB\n";
    const Report r = run({{"pasted.txt", log}});
    const Diagnosis& d = only(r);
    REQUIRE(d.initiating_rank);
    CHECK(*d.initiating_rank == 1);
    REQUIRE(d.failure);
    CHECK(d.failure->id == "host-oom-killer");
    REQUIRE(!d.evidence.empty());
    CHECK(d.evidence.front().text.find("Killed process 30317") != std::string::npos);
}

TEST_CASE("reasoner: in one file holding two agents' output, a pid names its worker through that agent's summary") {
    // Local rank 1 is rank 1 on node-a and rank 3 on node-b: the local rank alone names nobody here, the
    // pid in NCCL's header does (the summary ties 7311 to rank 3).
    auto record = [](const std::string& host, int rank, int local, long pid, int code) {
        return "[" + std::to_string(local) + "]:\n  time      : 2024-06-11_10:02:40\n  host      : " + host +
               "\n  rank      : " + std::to_string(rank) + " (local_rank: " + std::to_string(local) +
               ")\n  exitcode  : " + std::to_string(code) + " (pid: " + std::to_string(pid) + ")\n";
    };
    std::string log =
        "node-b:7311:7311 [1] include/alloc.h:48 NCCL WARN Cuda failure 'out of memory'\n"
        "node-a:5101:5201 [1] NCCL INFO [Service thread] Connection closed by localRank 1\n" +
        std::string("Failures:\n") + record("node-a", 0, 0, 5100, -15) + record("node-a", 1, 1, 5101, 1) +
        "Root Cause (first observed failure):\n" + record("node-a", 1, 1, 5101, 1) +
        "============================================================\n"
        "Failures:\n" + record("node-b", 2, 0, 7310, -15) +
        "Root Cause (first observed failure):\n" + record("node-b", 3, 1, 7311, 1) +
        "============================================================\n";
    const Report r = run({{"slurm-1.out", log}});
    const Diagnosis& d = only(r);
    REQUIRE(d.initiating_rank);
    CHECK(*d.initiating_rank == 3);
    CHECK(d.initiating_host == std::optional<std::string>("node-b"));
}

TEST_CASE("reasoner: MASTER_ADDR alone does not place the initiating rank on that host") {
    std::string log =
        "$ mpirun -np 16 -H g01:8,g02:8 -x MASTER_ADDR=g01 -x MASTER_PORT=29500 python train.py\n"
        "[1,13]<stderr>:RuntimeError: CUDA out of memory. Tried to allocate 1.50 GiB (GPU 5; 39.59 GiB total capacity; 36.10 GiB already allocated; 1.12 GiB free; 37.02 GiB reserved in total by PyTorch)\n"
        "[1,2]<stderr>:RuntimeError: [../third_party/gloo/gloo/transport/tcp/pair.cc:598] Connection closed by peer [10.0.0.12]:4010\n";
    const Report r = run({{"mpirun.log", log}});
    const Diagnosis& d = only(r);
    REQUIRE(d.initiating_rank);
    CHECK(*d.initiating_rank == 13);
    CHECK_FALSE(d.initiating_host);
}

TEST_CASE("reasoner: Ray's report that an actor died does not make a timed-out worker the initiator") {
    // pid 11823 is rank 5, whose own lines show only the watchdog timeout that took it down.
    std::string log =
        "(RayTrainWorker pid=11823, ip=10.0.5.21) [rank5]:[E ProcessGroupNCCL.cpp:563] [Rank 5] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=8812, OpType=ALLREDUCE, NumelIn=1024, NumelOut=1024, Timeout(ms)=600000) ran for 600043 milliseconds before timing out.\n"
        "(RayTrainWorker pid=9812, ip=10.0.5.11) [rank1]:[E ProcessGroupNCCL.cpp:563] [Rank 1] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=8812, OpType=ALLREDUCE, NumelIn=1024, NumelOut=1024, Timeout(ms)=600000) ran for 600051 milliseconds before timing out.\n"
        "ray.exceptions.ActorDiedError: The actor died unexpectedly before finishing this task.\n"
        "\tclass_name: RayTrainWorker\n\tpid: 11823\n\tip: 10.0.5.21\n"
        "ray.train.base_trainer.TrainingFailedError: The Ray Train run failed. Please inspect the previous error messages for a cause.\n";
    const Report r = run({{"driver.log", log}});
    const Diagnosis& d = only(r);
    CHECK_FALSE(d.initiating_rank);
    CHECK(d.undetermined);
    REQUIRE(d.failure);
    CHECK(d.failure->id != "ray-actor-died");
    CHECK(d.failure->id != "python-exception");
}

TEST_CASE("reasoner: exceptions a process survived are not failures") {
    // Python's unraisable-exception and thread-exception reports, and an exception named in a WARNING record.
    std::string log =
        "[default0]:Exception in thread NetStatThr:\n"
        "[default0]:Traceback (most recent call last):\n"
        "[default0]:  File \"/opt/conda/lib/python3.10/site-packages/wandb/sdk/lib/sock_client.py\", line 130, in _sendall_with_error_handle\n"
        "[default0]:    sent = self._sock.send(data)\n"
        "[default0]:BrokenPipeError: [Errno 32] Broken pipe\n"
        "[default0]:{'loss': 1.2, 'epoch': 0.9}\n"
        "[default0]:03/02/2024 11:27:16 - WARNING - s3_sync - upload failed: botocore.exceptions.ReadTimeoutError: Read timeout\n"
        "[default1]:Exception ignored in: <function _MultiProcessingDataLoaderIter.__del__ at 0x7f3a1c9e5a20>\n"
        "[default1]:Traceback (most recent call last):\n"
        "[default1]:  File \"/opt/conda/lib/python3.10/multiprocessing/process.py\", line 160, in is_alive\n"
        "[default1]:    assert self._parent_pid == os.getpid(), 'can only test a child process'\n"
        "[default1]:AssertionError: can only test a child process\n"
        "[default1]:{'train_runtime': 5120.3, 'train_loss': 1.1}\n";
    CHECK(run({{"train.log", log}}).diagnoses.empty());

    // The same process failing for real after a survived report is still seen.
    const Report r = run({{"train.log", log + "[default1]:Traceback (most recent call last):\n"
                                                "[default1]:  File \"train.py\", line 9, in <module>\n"
                                                "[default1]:ValueError: bad config key 'lr_sched'\n"}});
    const Diagnosis& d = only(r);
    REQUIRE(d.failure);
    CHECK(d.failure->id == "python-exception");
    REQUIRE(!d.evidence.empty());
    CHECK(d.evidence.front().text.find("ValueError") != std::string::npos);
}

TEST_CASE("reasoner: srun's error line about one task names that task's rank when each task is one worker") {
    std::string log;
    for (int task = 0; task < 4; ++task) log += std::to_string(task) + ": step 900 loss 2.1\n";
    for (int task : {0, 1, 3})
        log += std::to_string(task) + ": [rank" + std::to_string(task) + "]:[E1023 14:32:01.123456789 ProcessGroupNCCL.cpp:629] [Rank " +
               std::to_string(task) + "] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=77, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600001 milliseconds before timing out.\n";
    log += "srun: error: node-b07: task 2: Out Of Memory\n";
    const Report r = run({{"slurm-884213.out", log}});
    const Diagnosis& d = only(r);
    REQUIRE(d.initiating_rank);
    CHECK(*d.initiating_rank == 2);
    CHECK(d.initiating_host == std::optional<std::string>("node-b07"));
    REQUIRE(d.failure);
    CHECK(d.failure->id == "host-oom-killer");
    REQUIRE(d.collateral.size() == 3);
    CHECK(d.collateral[0].rank == std::optional<int>(0));
    CHECK(d.collateral[2].rank == std::optional<int>(3));
}

TEST_CASE("reasoner: mp.spawn's parent re-raising a child's traceback names that child") {
    std::string log =
        "spawning 4 processes\n"
        "Traceback (most recent call last):\n"
        "  File \"main.py\", line 210, in <module>\n"
        "    mp.spawn(run, args=(cfg,), nprocs=4, join=True)\n"
        "torch.multiprocessing.spawn.ProcessRaisedException: \n"
        "\n"
        "-- Process 2 terminated with the following error:\n"
        "Traceback (most recent call last):\n"
        "  File \"/opt/conda/lib/python3.10/site-packages/torch/multiprocessing/spawn.py\", line 74, in _wrap\n"
        "    fn(i, *args)\n"
        "  File \"main.py\", line 88, in run\n"
        "    batch = next(it)\n"
        "KeyError: 'mask'\n";
    const Report r = run({{"terminal.txt", log}});
    const Diagnosis& d = only(r);
    REQUIRE(d.initiating_rank);
    CHECK(*d.initiating_rank == 2);
    REQUIRE(!d.evidence.empty());
    CHECK(d.evidence.front().text == "KeyError: 'mask'");
    // Process 2 is a local index: taken as rank 2 only because one node's output is all there is, and said so.
    CHECK(d.confidence == "medium");
}

TEST_CASE("reasoner: of two agents' first exits, the one that is a timed-out survivor is not the cause") {
    auto agent = [](int base, int first_local, long first_pid) {
        return "[2024-05-02 19:44:12,101] torch.distributed.elastic.multiprocessing.api: [ERROR] failed (exitcode: 1) local_rank: " +
               std::to_string(first_local) + " (pid: " + std::to_string(first_pid) + ") of binary: /usr/bin/python\n"
               "Root Cause (first observed failure):\n[0]:\n  time      : 2024-05-02_19:44:12\n  host      : node\n"
               "  rank      : " + std::to_string(base + first_local) + " (local_rank: " + std::to_string(first_local) + ")\n"
               "  exitcode  : 1 (pid: " + std::to_string(first_pid) + ")\n"
               "============================================================\n";
    };
    // Node A (ranks 0-1): rank 1 times out and is its agent's first exit. Node B (ranks 2-3): an unprefixed OOM.
    std::string a = "[E ProcessGroupNCCL.cpp:475] [Rank 1] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=9, OpType=ALLREDUCE, Timeout(ms)=1800000) ran for 1800021 milliseconds before timing out.\n" +
                    agent(0, 1, 5101);
    std::string b = "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 5.12 GiB. GPU 1 has a total capacty of 79.15 GiB of which 3.33 GiB is free.\n" +
                    agent(2, 1, 7301);
    const Report r = run({{"node-a.log", a}, {"node-b.log", b}});
    const Diagnosis& d = only(r);
    REQUIRE(d.initiating_rank);
    CHECK(*d.initiating_rank == 3);
}

TEST_CASE("reasoner: a usually job-wide error on one rank only, whose siblings were stopped for it, is that rank's") {
    const std::string ddp = "RuntimeError: Expected to have finished reduction in the prior iteration before starting a new one. "
                            "This error indicates that your module has parameters that were not used in producing loss.\n";
    std::string log = "[rank2]: " + ddp;
    for (long pid : {8100, 8101, 8103})
        log += "W0903 13:05:19.601000 7001 torch/distributed/elastic/multiprocessing/api.py:897] Sending process " +
               std::to_string(pid) + " closing signal SIGTERM\n";
    log += "E0903 13:05:20.100000 7001 torch/distributed/elastic/multiprocessing/api.py:869] failed (exitcode: 1) local_rank: 2 (pid: 8102) of binary: /usr/bin/python\n";
    const Report one_report = run({{"console.log", log}});
    const Diagnosis& one = only(one_report);
    REQUIRE(one.initiating_rank);
    CHECK(*one.initiating_rank == 2);

    // Every rank raising it is the job's failure, not a rank's.
    std::string all;
    for (int r = 0; r < 4; ++r) all += "[rank" + std::to_string(r) + "]: " + ddp;
    const Report every_report = run({{"console.log", all}});
    const Diagnosis& every = only(every_report);
    CHECK_FALSE(every.initiating_rank);
    CHECK(every.rank_not_applicable);
}

TEST_CASE("reasoner: an agent stopped from outside, by a sender the logs do not name, is no verdict; a worker's own error is") {
    const std::string killed =
        "[2024-07-08 14:22:51,400] torch.distributed.elastic.agent.server.api: [WARNING] Received Signals.SIGTERM death signal, shutting down workers\n";
    const std::string peer =
        "[rank0]: RuntimeError: [../third_party/gloo/gloo/transport/tcp/pair.cc:598] Connection closed by peer [10.244.3.17]:4010\n";
    // Who stopped it is not in these lines: the end is what the logs show, the sender is the missing fact (not a
    // verdict on the whole job: another node's worker may have failed first and the operator tore the job down).
    const Report d_report = run({{"worker-1.log", killed}, {"worker-0.log", peer}});
    const Diagnosis& d = only(d_report);
    REQUIRE(d.failure);
    CHECK(d.failure->id == "agent-killed-by-signal");
    CHECK_FALSE(d.rank_not_applicable);
    CHECK(d.undetermined);
    REQUIRE_FALSE(d.missing.empty());
    CHECK(std::any_of(d.missing.begin(), d.missing.end(),
                      [](const std::string& m) { return m.find("Who stopped the job") != std::string::npos; }));

    // Ctrl-C on a job that had already failed: the worker's error is the cause.
    const std::string oom = "[rank5]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 5 has a total capacity of 79.11 GiB of which 1.02 GiB is free.\n";
    const Report e_report = run({{"worker-1.log", killed + oom}, {"worker-0.log", peer}});
    const Diagnosis& e = only(e_report);
    REQUIRE(e.initiating_rank);
    CHECK(*e.initiating_rank == 5);
}

TEST_CASE("reasoner: a warning that quotes an error's words is no failure") {
    std::string log;
    for (int r = 0; r < 4; ++r)
        log += "[rank" + std::to_string(r) + "]: /opt/conda/lib/python3.11/site-packages/torch/autograd/graph.py:744: UserWarning: "
               "Plan failed with a cudnnException: CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR: cudnnFinalize Descriptor Failed "
               "cudnn_status: CUDNN_STATUS_NOT_SUPPORTED\n";
    log += "[rank2]: RuntimeError: CUDA error: device-side assert triggered\n";
    const Report r = run({{"console.log", log}});
    const Diagnosis& d = only(r);
    REQUIRE(d.initiating_rank);
    CHECK(*d.initiating_rank == 2);
    REQUIRE(d.failure);
    CHECK(d.failure->id == "cuda-device-side-assert");
}

TEST_CASE("reasoner: an Xid on a GPU and a process that are not the job's is left out") {
    const std::string nccl =
        "[default0]:gpu-srv-04:331021:331109 [0] NCCL INFO comm 0x1 rank 0 nranks 2 cudaDev 0 nvmlDev 0 busId 7000 commId 0x1 - Init COMPLETE\n"
        "[default1]:gpu-srv-04:331022:331110 [1] NCCL INFO comm 0x2 rank 1 nranks 2 cudaDev 1 nvmlDev 1 busId f000 commId 0x1 - Init COMPLETE\n"
        "[default0]:step 9000 loss 1.2\n";
    const std::string foreign = "[Thu Mar  7 14:22:51 2024] NVRM: Xid (PCI:0000:b7:00): 13, pid=918273, name=python3, Graphics SM Warp Exception\n";
    const Report healthy = run({{"train.log", nccl}, {"dmesg.txt", foreign}});
    CHECK(healthy.diagnoses.empty());
    REQUIRE(!healthy.warnings.empty());
    CHECK(healthy.warnings.back().find("not this job's") != std::string::npos);

    const std::string ours = "[Thu Mar  7 14:22:51 2024] NVRM: Xid (PCI:0000:0f:00): 13, pid=331022, name=python3, Graphics SM Warp Exception\n";
    const Report hit = run({{"train.log", nccl}, {"dmesg.txt", ours}});
    const Diagnosis& d = only(hit);
    REQUIRE(d.initiating_rank);
    CHECK(*d.initiating_rank == 1);
}

TEST_CASE("reasoner: a traceback a WARNING record carries while the program retries is no failure") {
    const std::string p = "[default0]:";
    std::string log = p + "2024-09-02 02:21:35,907 WARNING ckpt_uploader: upload of model_00.safetensors failed (attempt 1/5), retrying in 8.0s\n" +
                      p + "Traceback (most recent call last):\n" + p + "  File \"/opt/conda/lib/python3.11/ssl.py\", line 1166, in read\n" +
                      p + "ConnectionResetError: [Errno 104] Connection reset by peer\n" + p + "\n" +
                      p + "During handling of the above exception, another exception occurred:\n" + p + "\n" +
                      p + "Traceback (most recent call last):\n" + p + "  File \"uploader.py\", line 88, in _upload_with_retry\n" +
                      p + "botocore.exceptions.ConnectionClosedError: Connection was closed before we received a valid response\n" +
                      p + "2024-09-02 02:22:24,222 INFO ckpt_uploader: upload of model_00.safetensors succeeded (attempt 2/5)\n";
    CHECK(run({{"train.log", log}}).diagnoses.empty());
    // A plain INFO line right before a crash does not make the crash a handled one.
    const std::string crash = "2024-09-02 02:21:35,907 INFO train: step 400 loss 1.28\nTraceback (most recent call last):\n"
                              "  File \"train.py\", line 9, in <module>\nValueError: bad shape\n";
    const Report r = run({{"console.log", crash}});
    const Diagnosis& d = only(r);
    REQUIRE(d.failure);
    CHECK(d.failure->id == "python-exception");
}

TEST_CASE("reasoner: a short host name and its full name are one host") {
    std::string log =
        "[rank0]:gpu-7:5100:5100 [0] NCCL INFO Bootstrap : Using eth0:10.1.0.7<0>\n"
        "[rank1]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 1 has a total capacity of 79.11 GiB of which 1.02 GiB is free.\n"
        "Failures:\n  <NO_OTHER_FAILURES>\n"
        "Root Cause (first observed failure):\n[0]:\n  time      : 2024-10-02_11:26:04\n  host      : gpu-7.example.org\n"
        "  rank      : 0 (local_rank: 0)\n  exitcode  : -15 (pid: 5100)\n"
        "============================================================\n";
    const Report r = run({{"node.log", log}});
    const Diagnosis& d = only(r);
    REQUIRE(d.initiating_rank);
    CHECK(*d.initiating_rank == 1);
    CHECK(d.initiating_host == std::optional<std::string>("gpu-7.example.org"));
}

TEST_CASE("reasoner: a multi-node launch pointed at localhost is the job's failure") {
    auto node = [] {
        return std::string("+ torchrun --nnodes=2 --nproc-per-node=8 --rdzv-backend=c10d --rdzv-endpoint=localhost:29400 train.py\n"
                           "torch.distributed.elastic.rendezvous.api.RendezvousTimeoutError\n");
    };
    const Report r = run({{"node-a.out", node()}, {"node-b.out", node()}});
    const Diagnosis& d = only(r);
    REQUIRE(d.failure);
    CHECK(d.failure->id == "rendezvous-endpoint-local-on-multinode");
    CHECK(d.rank_not_applicable);
    CHECK_FALSE(d.undetermined);
}

TEST_CASE("reasoner: a per-rank file's unprefixed traceback is that rank's when the file's number agrees") {
    auto progress = [](int r) {
        std::string out;
        for (int i = 0; i < 3; ++i)
            out += "2024-05-02 19:43:1" + std::to_string(i) + ",623 INFO [rank" + std::to_string(r) + "] __main__: step " +
                   std::to_string(7338 + i) + " loss 2.13\n";
        return out;
    };
    std::string crash = progress(1) + "2024-05-02 19:44:03,118 ERROR [rank1] __main__: step 7342 failed\n"
                        "Traceback (most recent call last):\n";
    for (int i = 0; i < 12; ++i) crash += "  File \"/workspace/llm/train.py\", line " + std::to_string(300 + i) + ", in train_loop\n";
    crash += "RuntimeError: CUDA error: an illegal memory access was encountered\n";
    const Report r = run({{"train_0.log", progress(0)}, {"train_1.log", crash}});
    const Diagnosis& d = only(r);
    REQUIRE(d.initiating_rank);
    CHECK(*d.initiating_rank == 1);
}

TEST_CASE("reasoner: a message that arrives as a Python warning still counts when its signature says so") {
    const std::string line =
        "[rank0]: /usr/local/lib/python3.10/dist-packages/torch/cuda/__init__.py:128: UserWarning: CUDA initialization: "
        "Unexpected error from cudaGetDeviceCount(). Did you run some cuda functions before calling NumCudaDevices() that "
        "might have already set an error? Error 802: system not yet initialized\n";
    const Report r = run({{"node.log", line}});
    const Diagnosis& d = only(r);
    REQUIRE(d.failure);
    CHECK(d.failure->id == "cuda-system-not-ready");
}

TEST_CASE("reasoner: errors of one kind agree only with one message at one moment; else they are ordered") {
    auto oom = [](int rank, const char* time, const char* size) {
        return "[rank" + std::to_string(rank) + "]:2024-10-23 " + time +
               ",100 ERROR torch.OutOfMemoryError: CUDA out of memory. Tried to allocate " + size + ". GPU " +
               std::to_string(rank) + " has a total capacity of 79.11 GiB of which 1.02 GiB is free.\n";
    };
    // Different allocations ten seconds apart: two events, ordered; the first is the initiator.
    const Report ordered = run({{"a.log", oom(3, "14:31:58", "2.00 GiB")}, {"b.log", oom(6, "14:32:08", "512.00 MiB")}});
    const Diagnosis& d = only(ordered);
    REQUIRE(d.initiating_rank);
    CHECK(*d.initiating_rank == 3);
    CHECK(d.confidence != "high");   // its own error and the order: no second kind of evidence
    // The same message (only the device differs) within the same moment: one common cause, no single rank.
    const Report same = run({{"a.log", oom(3, "14:31:58", "2.00 GiB")}, {"b.log", oom(6, "14:32:08", "2.00 GiB")}});
    CHECK(only(same).rank_not_applicable);
    CHECK_FALSE(only(same).initiating_rank);
}

TEST_CASE("reasoner: each launch attempt gets its own verdict; the one that ended the job leads") {
    std::string log;
    log += "[rank1]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 1 has a total capacity "
           "of 79.11 GiB of which 1.02 GiB is free.\n";
    for (int r : {0, 2, 3}) log += watchdog(r, 500);
    log += "INFO:torch.distributed.elastic.agent.server.api:[default] Worker group FAILED. 2/3 attempts left; will "
           "restart worker group\n";
    log += "[rank2]: RuntimeError: CUDA error: an illegal memory access was encountered\n";
    for (int r : {0, 1, 3}) log += watchdog(r, 12);
    const Report r = run({{"console.log", log}});
    REQUIRE(r.diagnoses.size() == 2);
    REQUIRE(r.diagnoses[0].initiating_rank);
    CHECK(*r.diagnoses[0].initiating_rank == 2);   // the last attempt ended the job
    REQUIRE(r.diagnoses[0].failure);
    CHECK(r.diagnoses[0].failure->id.find("illegal-memory") != std::string::npos);
    REQUIRE(r.diagnoses[1].initiating_rank);
    CHECK(*r.diagnoses[1].initiating_rank == 1);   // the first attempt's own verdict
    CHECK(r.diagnoses[1].notes.front().find("attempt 0") != std::string::npos);
    // Within an attempt, the other attempt's errors are not collateral of this one.
    for (const auto& c : r.diagnoses[0].collateral) CHECK(c.rank != 2);
}

TEST_CASE("reasoner: sequence numbers are compared within one process group only") {
    // Ranks 0-2 time out on default-group work 900; rank 3's highest work is 40 in another group (PG 3): that says
    // nothing of the default group, so no rank is behind there.
    std::string log;
    for (int r = 0; r < 3; ++r) log += watchdog(r, 900);
    log += "[rank3]:[E1023 14:32:03.123456789 ProcessGroupNCCL.cpp:629] [PG 3 Rank 1] Watchdog caught collective "
           "operation timeout: WorkNCCL(SeqNum=40, OpType=ALLGATHER, NumelIn=1, NumelOut=2, Timeout(ms)=600000) ran for "
           "600081 milliseconds before timing out.\n";
    const Report r = run({{"console.log", log}});
    const Diagnosis& d = only(r);
    CHECK_FALSE(has_strategy(d, "sequence-lag"));
    CHECK_FALSE(d.initiating_rank);
    // In the same group, the rank behind is named.
    std::string same;
    for (int r = 0; r < 3; ++r) same += watchdog(r, 900);
    same += "[rank3]:[I1023 14:22:03.123456789 ProcessGroupNCCL.cpp:1890] [PG 0 Rank 3] NCCL Work update periodically: "
            "last enqueued NCCL work: 899, last completed NCCL work: 899.\n";
    const Report s = run({{"console.log", same}});
    CHECK(has_strategy(only(s), "sequence-lag"));
    REQUIRE(only(s).initiating_rank);
    CHECK(*only(s).initiating_rank == 3);
}

TEST_CASE("reasoner: a launcher's own failure before any worker error is the cause, not a report of a death") {
    // The agent cannot bind the rendezvous port, then cannot reach the store it failed to create: the port is the
    // failure (of the whole job), the store error its consequence.
    const std::string log =
        "[W socket.cpp:436] [c10d] The server socket has failed to bind to [::]:29500 (errno: 98 - Address already in use).\n"
        "[E socket.cpp:472] [c10d] The server socket has failed to listen on any local network address.\n"
        "Traceback (most recent call last):\n"
        "torch.distributed.elastic.rendezvous.api.RendezvousConnectionError: The connection to the C10d store has failed. "
        "See inner exception for details.\n";
    const Report r = run({{"launch.log", log}});
    const Diagnosis& d = only(r);
    REQUIRE(d.failure);
    CHECK(d.failure->id == "port-already-in-use");
    CHECK(d.rank_not_applicable);
}

TEST_CASE("reasoner: errors that come only after the ranks finished their work are the teardown's, no rank's") {
    std::string log;
    for (int r : {0, 1, 3})
        log += "[rank" + std::to_string(r) + "]:[W317 20:18:18.172384015 ProcessGroupNCCL.cpp:1538] Warning: WARNING: "
               "destroy_process_group() was not called before program exit, which can leak resources.\n";
    log += "[rank2]:[E317 20:28:49.594512873 ProcessGroupNCCL.cpp:1870] [PG ID 0 PG GUID 0(default_pg) Rank 2] "
           "ProcessGroupNCCL's watchdog got stuck for 480 seconds without making progress in monitoring enqueued "
           "collectives.\n";
    const Report r = run({{"console.log", log}});
    const Diagnosis& d = only(r);
    CHECK(d.rank_not_applicable);
    CHECK_FALSE(d.initiating_rank);
    REQUIRE(d.failure);
    CHECK(d.failure->id == "process-group-teardown-hang");
    // An error before the exits is a failure of its own, not a teardown.
    const Report early = run({{"console.log", "[rank2]: RuntimeError: CUDA error: an illegal memory access was encountered\n" + log}});
    REQUIRE(only(early).initiating_rank);
    CHECK(*only(early).initiating_rank == 2);
}

namespace {

// One TORCH_DISTRIBUTED_DEBUG=DETAIL report: rank `r` compared in rank order and found rank `other` first to differ.
std::string mismatch_report(int r, int other, const char* mine = "ALLREDUCE", const char* theirs = "BROADCAST") {
    const std::string p = "[rank" + std::to_string(r) + "]: ";
    return p + "Traceback (most recent call last):\n" + p +
           "RuntimeError: Detected mismatch between collectives on ranks. Rank " + std::to_string(r) +
           " is running collective: CollectiveFingerPrint(SequenceNumber=40, OpType=" + mine +
           "), but Rank " + std::to_string(other) + " is running collective: CollectiveFingerPrint(SequenceNumber=40, OpType=" +
           theirs + ").\n";
}

}  // namespace

TEST_CASE("reasoner: a DETAIL report naming a rank past the first says every rank below it agreed") {
    // A 4-rank world (rank 3 prints a line); rank 1 names rank 3: ranks 0-2 ran the same, rank 3 alone differs.
    const Report d_report = run({{"all.log", "[rank3]: evaluating early stop\n" + mismatch_report(1, 3)}});
    const Diagnosis& d = only(d_report);
    CHECK(has_strategy(d, "mismatch-named"));
    REQUIRE(d.initiating_rank);
    CHECK(*d.initiating_rank == 3);
    CHECK(d.confidence == "medium");
}

TEST_CASE("reasoner: a DETAIL report naming the first rank it compared decides nothing") {
    // Rank 3 names rank 0: it found a difference at its first comparison, so it may be the one that differs.
    const Report d_report = run({{"rank3.log", mismatch_report(3, 0)}});
    const Diagnosis& d = only(d_report);
    CHECK_FALSE(d.initiating_rank);
    CHECK(d.undetermined);
    REQUIRE_FALSE(d.missing.empty());
    CHECK(d.missing.front().find("first rank, in rank order") != std::string::npos);
}

TEST_CASE("reasoner: DETAIL reports that cannot come from one diverging rank name no one") {
    // Rank 1 says ranks 0-2 agree and 3 differs; rank 4 says rank 2 differs from it first: not one rank alone.
    const Report d_report = run({{"all.log", mismatch_report(1, 3) + mismatch_report(4, 2)}});
    const Diagnosis& d = only(d_report);
    CHECK_FALSE(has_strategy(d, "mismatch-named"));
    CHECK_FALSE(d.initiating_rank);
}

TEST_CASE("reasoner: two ranks naming each other, the whole world reporting, is an even split") {
    const Report d_report = run({{"all.log", mismatch_report(0, 1) + mismatch_report(1, 0, "BROADCAST", "ALLREDUCE")}});
    const Diagnosis& d = only(d_report);
    CHECK_FALSE(d.initiating_rank);
    CHECK_FALSE(d.undetermined);
}

TEST_CASE("reasoner: one traceback shredded into another's through the same frame is several processes failing") {
    const std::string shredded =
        "^^^  File \"/venv/lib/python3.11/site-packages/torch/nn/modules/module.py\", line 1143, in convert\n"
        "^^ ^  File \"/venv/lib/python3.11/site-packages/torch/nn/modules/module.py\", line 1143, in convert\n"
        "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB (GPU 0; 15.77 GiB total capacity)\n";
    const Report d_report = run({{"console.log", shredded}});
    const Diagnosis& d = only(d_report);
    CHECK_FALSE(d.initiating_rank);
    CHECK_FALSE(d.undetermined);
    CHECK(d.confidence == "low");
    // The same frame shredded once is one glued line, not two reports: the process is only unranked.
    const Report once_report = run({{"console.log", shredded.substr(shredded.find('\n') + 1)}});
    const Diagnosis& once = only(once_report);
    CHECK(once.undetermined);
}

TEST_CASE("reasoner: a global rank announced twice while others never are is ranks given out twice") {
    const std::string twice = "Initializing distributed: GLOBAL_RANK: 0, MEMBER: 1/4\n"
                              "Initializing distributed: GLOBAL_RANK: 1, MEMBER: 2/4\n"
                              "Initializing distributed: GLOBAL_RANK: 0, MEMBER: 1/4\n"
                              "Initializing distributed: GLOBAL_RANK: 1, MEMBER: 2/4\n"
                              "slurmstepd: error: *** JOB 7 ON n1 CANCELLED AT 2025-06-19T04:00:12 DUE TO TIME LIMIT ***\n";
    const Report report = run({{"slurm-7.out", twice}});
    const Diagnosis& d = only(report);
    REQUIRE(d.failure);
    CHECK(d.failure->id == "duplicate-global-rank");
    CHECK(d.rank_not_applicable);
    CHECK(d.confidence == "low");
    // Every rank of the world announced (twice: a second run in the same file) is no duplication: the time limit stays.
    const std::string all = "Initializing distributed: GLOBAL_RANK: 0, MEMBER: 1/2\n"
                            "Initializing distributed: GLOBAL_RANK: 1, MEMBER: 2/2\n"
                            "Initializing distributed: GLOBAL_RANK: 0, MEMBER: 1/2\n"
                            "Initializing distributed: GLOBAL_RANK: 1, MEMBER: 2/2\n"
                            "slurmstepd: error: *** JOB 7 ON n1 CANCELLED AT 2025-06-19T04:00:12 DUE TO TIME LIMIT ***\n";
    const Report covered = run({{"slurm-7.out", all}});
    REQUIRE(only(covered).failure);
    CHECK(only(covered).failure->id != "duplicate-global-rank");
}

namespace {

// One torchrun summary record, in torch 2.x's layout.
std::string summary_record(int index, const std::string& time, const std::string& host, int rank, int local,
                           int exitcode, long pid) {
    return "[" + std::to_string(index) + "]:\n  time      : " + time + "\n  host      : " + host +
           "\n  rank      : " + std::to_string(rank) + " (local_rank: " + std::to_string(local) +
           ")\n  exitcode  : " + std::to_string(exitcode) + " (pid: " + std::to_string(pid) +
           ")\n  error_file: <N/A>\n  traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html\n";
}

std::string summary(const std::string& failures, const std::string& root) {
    return "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: \n"
           "============================================================\ntrain.py FAILED\n"
           "------------------------------------------------------------\nFailures:\n" +
           (failures.empty() ? std::string("  <NO_OTHER_FAILURES>\n") : failures) +
           "------------------------------------------------------------\nRoot Cause (first observed failure):\n" + root +
           "============================================================\n";
}

}  // namespace

TEST_CASE("reasoner: the agent's first exit orders nothing when another worker's exit is just as unexplained") {
    const std::string log =
        "[default1]:RuntimeError: [../third_party/gloo/gloo/transport/tcp/pair.cc:598] Connection closed by peer [127.0.0.1]:12946\n"
        "[default3]:RuntimeError: [../third_party/gloo/gloo/transport/tcp/pair.cc:598] Connection closed by peer [127.0.0.1]:50307\n"
        "WARNING:torch.distributed.elastic.multiprocessing.api:Sending process 4108 closing signal SIGTERM\n"
        "ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: 1) local_rank: 0 (pid: 4107) of binary: /usr/bin/python\n" +
        summary(summary_record(1, "2023-01-19_15:43:49", "ws", 2, 2, 1, 4109) +
                    summary_record(2, "2023-01-19_15:43:49", "ws", 3, 3, 1, 4110),
                summary_record(0, "2023-01-19_15:43:49", "ws", 0, 0, 1, 4107));
    const Report r = run({{"console.log", log}});
    const Diagnosis& d = only(r);
    CHECK(d.undetermined);
    CHECK_FALSE(d.initiating_rank.has_value());
    CHECK_FALSE(has_strategy(d, "agent-first-exit"));
}

TEST_CASE("reasoner: a worker's end on the signal every other worker ended on is not its own") {
    std::string log;
    for (int r = 1; r < 4; ++r) log += watchdog(r);
    log += "[default0]:Exception raised from checkTimeout at ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:618 (most recent call first):\n"
           "[default0]:frame #2: c10d::ProcessGroupNCCL::watchdogHandler() + 0x233 (0x7f6a1c3fcec3 in libtorch_cuda.so)\n"
           "E1023 14:42:03.402000 20114 torch/distributed/elastic/multiprocessing/api.py:869] failed (exitcode: -6) local_rank: 0 (pid: 20151) of binary: /usr/bin/python3\n";
    std::string failures;
    for (int r = 1; r < 4; ++r) failures += summary_record(r, "2023-10-23_14:42:03", "gpu-q11", r, r, -6, 20151 + r);
    log += summary(failures, summary_record(0, "2023-10-23_14:42:03", "gpu-q11", 0, 0, -6, 20151));
    const Report r = run({{"node0.log", log}});
    const Diagnosis& d = only(r);
    CHECK(d.undetermined);
    CHECK_FALSE(has_strategy(d, "own-end"));
}

TEST_CASE("reasoner: summaries' dated times order two nodes' first failures; the earlier one is where to look") {
    const std::string node0 =
        watchdog(1, 8812) +
        "W1023 14:42:07.406000 88310 torch/distributed/elastic/multiprocessing/api.py:897] Sending process 88392 closing signal SIGTERM\n"
        "E1023 14:42:08.912000 88310 torch/distributed/elastic/multiprocessing/api.py:869] failed (exitcode: -6) local_rank: 0 (pid: 88391) of binary: /usr/bin/python3\n" +
        summary("", summary_record(0, "2024-10-23_14:42:07", "gpu-node-06", 0, 0, -6, 88391));
    const std::string node1 = summary("", summary_record(0, "2024-10-23_14:32:05", "gpu-node-07", 5, 1, 1, 51289));
    const Report r = run({{"node0.log", node0}, {"node1.log", node1}});
    const Diagnosis& d = only(r);
    CHECK(d.undetermined);
    CHECK_FALSE(d.initiating_rank.has_value());
    REQUIRE_FALSE(d.missing.empty());
    CHECK(d.missing.front().find("Start with rank 5") != std::string::npos);
    CHECK(d.missing.front().find("14:32:05") != std::string::npos);
}

TEST_CASE("reasoner: local rank taken for global rank with no world size says which fact would settle it") {
    const std::string log =
        "W0613 02:11:45.903000 88102 torch/distributed/elastic/multiprocessing/api.py:897] Sending process 88131 closing signal SIGTERM\n"
        "E0613 02:11:46.311000 88102 torch/distributed/elastic/multiprocessing/api.py:869] failed (exitcode: -4) local_rank: 1 (pid: 88130) of binary: /usr/bin/python3\n";
    const Report r = run({{"torchrun.log", log}});
    const Diagnosis& d = only(r);
    REQUIRE(d.initiating_rank.has_value());
    CHECK(*d.initiating_rank == 1);
    CHECK(d.confidence != "high");
    bool asks = false;
    for (const auto& m : d.missing) asks = asks || m.find("only on the first node") != std::string::npos;
    CHECK(asks);
}

TEST_CASE("reasoner: the agent's first exit of a silent worker whose sibling lost a peer, world unknown, orders nothing") {
    // Exit code 1 is also how a rank that lost its peer ends; the peer lost may be on a node not shown.
    const std::string log =
        "[default1]:[rank1]: RuntimeError: [../third_party/gloo/gloo/transport/tcp/pair.cc:598] Connection closed by peer [10.1.0.7]:41022\n"
        "E0522 09:14:51.208000 7711 torch/distributed/elastic/multiprocessing/api.py:869] failed (exitcode: 1) local_rank: 0 (pid: 7730) of binary: /usr/bin/python3\n" +
        summary(summary_record(1, "2025-05-22_09:14:51", "cpu-a3", 1, 1, 1, 7731),
                summary_record(0, "2025-05-22_09:14:51", "cpu-a3", 0, 0, 1, 7730));
    const Report r = run({{"node0.log", log}});
    const Diagnosis& d = only(r);
    CHECK_FALSE(has_strategy(d, "agent-first-exit"));
    CHECK(d.confidence == "low");
}

TEST_CASE("reasoner: a SIGABRT exit while a rank waited in a collective is how a waiter ends, not an end of its own") {
    // The watchdog ends a rank that waited exactly so: neither the agent's first exit nor the launcher's record of
    // the signal corroborates the silent rank; silence alone is all there is.
    const std::string log =
        "[rank0]: step 1200 loss 2.31\n" + watchdog(1) +
        "E1023 14:42:03.402000 20114 torch/distributed/elastic/multiprocessing/api.py:869] failed (exitcode: -6) local_rank: 0 (pid: 20151) of binary: /usr/bin/python3\n" +
        summary("", summary_record(0, "2023-10-23_14:42:03", "gpu-q11", 0, 0, -6, 20151));
    const Report r = run({{"node0.log", log}});
    const Diagnosis& d = only(r);
    CHECK_FALSE(has_strategy(d, "agent-first-exit"));
    CHECK_FALSE(has_strategy(d, "own-end"));
    CHECK(d.confidence != "high");
}

TEST_CASE("reasoner: a rank silent here whose launcher recorded the waiters' SIGABRT is a stream not shown, not a stall") {
    // Ranks 0, 2 and 3 time out; rank 1 writes nothing under its number, and torchrun recorded it ending on SIGABRT,
    // the watchdog's abort of a rank that waited: its own timeout is what is missing, not its taking part.
    std::string log = watchdog(0) + watchdog(2) + watchdog(3) +
                      "Exception raised from checkTimeout at ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:565 (most recent call first):\n"
                      "frame #2: c10d::ProcessGroupNCCL::watchdogHandler() + 0x233 (0x7f1893fd6313 in libtorch_cuda.so)\n"
                      "terminate called after throwing an instance of 'c10::DistBackendError'\n"
                      "[2024-05-20 03:25:12,377] torch.distributed.elastic.multiprocessing.api: [WARNING] Sending process 140771 closing signal SIGTERM\n";
    log += summary("", summary_record(0, "2024-05-20_03:25:12", "gpu-b11", 1, 1, -6, 140770));
    const Report r = run({{"node0.log", log}});
    const Diagnosis& d = only(r);
    CHECK_FALSE(has_strategy(d, "silent-rank"));
    CHECK_FALSE(d.initiating_rank.has_value());
}

TEST_CASE("reasoner: the agent's first exit on SIGABRT, no output of the worker's own and the world open, orders nothing") {
    // SIGABRT is how the watchdog ends a rank that waited, here or on a node not shown (the next attempt's rendezvous
    // was closed by another agent). Unlike SIGILL (above), the signal itself says nothing of a fault of its own.
    const std::string log =
        "ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: -6) local_rank: 0 (pid: 20744) of binary: /opt/conda/bin/python\n"
        "INFO:torch.distributed.elastic.agent.server.api:[default] Worker group FAILED. 2/2 attempts left; will restart worker group\n"
        "torch.distributed.elastic.rendezvous.api.RendezvousClosedError\n";
    const Report r = run({{"node0.log", log}});
    const Diagnosis& d = only(r);
    CHECK_FALSE(has_strategy(d, "agent-first-exit"));
    CHECK_FALSE(d.initiating_rank.has_value());
}

TEST_CASE("reasoner: a pod's log written by one process whose NCCL world rank is stated gives its unprefixed error that rank") {
    // Kubeflow PyTorchJob: one worker per pod (pid 1); nothing prefixes the lines, NCCL's Init COMPLETE of the world
    // communicator names the process's rank.
    const std::string master =
        "pytorch-dist-master-0:1:58 [0] NCCL INFO comm 0x7f2c1c002dd0 rank 0 nranks 3 cudaDev 0 busId 1e0 - Init COMPLETE\n"
        "[E ProcessGroupNCCL.cpp:566] [Rank 0] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=9, OpType=ALLREDUCE, "
        "TensorShape=[12336128], Timeout(ms)=1800000) ran for 1800316 milliseconds before timing out.\n";
    const std::string worker =
        "pytorch-dist-worker-1:1:57 [0] NCCL INFO comm 0x7fa9b4002dd0 rank 2 nranks 3 cudaDev 0 busId 1e0 - Init COMPLETE\n"
        "Traceback (most recent call last):\n"
        "  File \"run_clm.py\", line 447, in <module>\n"
        "OSError: [Errno 5] Input/output error\n";
    const Report r = run({{"pytorch-dist-master-0.log", master}, {"pytorch-dist-worker-1.log", worker}});
    const Diagnosis& d = only(r);
    REQUIRE(d.initiating_rank.has_value());
    CHECK(*d.initiating_rank == 2);
}

TEST_CASE("reasoner: another file's worker processes are another node: mp.spawn's local process is not taken as global") {
    // Node 0's NCCL processes lose their peer; node 1's parent reports its process 3's OOM. No launch line, no world
    // size: local process 3 is rank 3 only on the first node, and the first node's processes are in the other file.
    std::string node0;
    for (int gpu = 0; gpu < 4; ++gpu)
        node0 += "trn-a0:4021" + std::to_string(gpu) + ":40597 [" + std::to_string(gpu) +
                 "] include/socket.h:423 NCCL WARN Net : Connection closed by remote peer 10.8.0.22<45871>\n";
    const std::string node1 =
        "-- Process 3 terminated with the following error:\n"
        "Traceback (most recent call last):\n"
        "  File \"/usr/lib/python3/dist-packages/torch/multiprocessing/spawn.py\", line 69, in _wrap\n"
        "RuntimeError: CUDA out of memory. Tried to allocate 1.56 GiB (GPU 3; 39.59 GiB total capacity; 35.02 GiB already "
        "allocated; 1.21 GiB free; 36.88 GiB reserved in total by PyTorch)\n";
    const Report r = run({{"node0.log", node0}, {"node1.log", node1}});
    const Diagnosis& d = only(r);
    CHECK(d.initiating_rank != std::optional<int>(3));
}

namespace {

std::string heartbeat_stuck(int rank) {
    return "[rank" + std::to_string(rank) + "]:[F1023 14:30:00.402118553 ProcessGroupNCCL.cpp:1558] [PG ID 0 PG GUID "
           "0(default_pg) Rank " + std::to_string(rank) + "] ProcessGroupNCCL's watchdog got stuck for 480 seconds without "
           "making progress in monitoring enqueued collectives.\n";
}

std::string four_ranks_started() {
    std::string log;
    for (int r = 0; r < 4; ++r)
        log += "[rank" + std::to_string(r) + "]:2024-01-01 10:00:00,000 INFO train: rank " + std::to_string(r) +
               " entering step 9 (world_size=4)\n";
    return log;
}

}  // namespace

TEST_CASE("reasoner: a rank whose own watchdog got stuck while every other rank waits on a peer is the one they waited for") {
    const std::string log = four_ranks_started() + heartbeat_stuck(2) + watchdog(0) + watchdog(1) + watchdog(3);
    const Report r = run({{"console.log", log}});
    const Diagnosis& d = only(r);
    REQUIRE(d.initiating_rank);
    CHECK(*d.initiating_rank == 2);
    CHECK(has_strategy(d, "silent-rank"));
}

TEST_CASE("reasoner: a silent rank and a rank whose own watchdog got stuck: neither is named, both are the missing fact") {
    // Rank 1 reports nothing after start-up, rank 2 only its stuck watchdog; ranks 0 and 3 wait. Counting the stuck
    // rank as a waiter would single out rank 1 by elimination.
    const std::string log = four_ranks_started() + heartbeat_stuck(2) + watchdog(0) + watchdog(3);
    const Report r = run({{"console.log", log}});
    const Diagnosis& d = only(r);
    CHECK_FALSE(d.initiating_rank);
    CHECK(d.undetermined);
    REQUIRE_FALSE(d.missing.empty());
    CHECK(d.missing.front().find("rank 1 reports nothing; rank 2 reports only that its own watchdog got stuck") !=
          std::string::npos);
}

TEST_CASE("reasoner: files whose paths name two nodes: one node's local rank is not taken as the global rank") {
    // A torchrun --log-dir tree of two nodes; the part of it that is here shows only node gpu-b's local rank 1 failing.
    DiagnoseInput in;
    const std::string oom = "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 6.12 GiB. GPU 1 has a total "
                            "capacity of 79.10 GiB of which 4.91 GiB is free.\n";
    in.borrowed_texts.push_back({"gpu-a/attempt_0/0/stderr.log", "logs/gpu-a/attempt_0/0/stderr.log", ""});
    in.borrowed_texts.push_back({"gpu-b/attempt_0/1/stderr.log", "logs/gpu-b/attempt_0/1/stderr.log", oom});
    const Report r = engine().diagnose(in);
    const Diagnosis& d = only(r);
    CHECK(d.initiating_rank != std::optional<int>(1));
}

namespace {

// Ranks 0, 2, 3 time out on a broadcast; rank 1's traceback ends in an OOM inside `frame` asking for `asked`.
std::string broadcast_oom_excerpt(const std::string& frame, const std::string& asked) {
    std::string log;
    for (int r : {0, 2, 3}) log += watchdog(r);
    log += "[rank1]: Traceback (most recent call last):\n"
           "[rank1]:   File \"/srv/train/ckpt.py\", line 77, in gather_meta\n"
           "[rank1]:     dist.broadcast_object_list(meta, src=0)\n"
           "[rank1]:   File \"/usr/lib/python3/dist-packages/torch/distributed/distributed_c10d.py\", line 2901, in " + frame + "\n"
           "[rank1]:     object_tensor = torch.empty(  # type: ignore[call-overload]\n"
           "[rank1]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate " + asked + ". GPU 1 has a total "
           "capacity of 79.10 GiB of which 61.22 GiB is free.\n";
    return log;
}

}  // namespace

TEST_CASE("reasoner: an OOM asking for more than the whole GPU inside broadcast_object_list is a broken collective's fallout") {
    const Report r = run({{"excerpt.log", broadcast_oom_excerpt("broadcast_object_list", "7812.50 GiB")}});
    const Diagnosis& d = only(r);
    CHECK_FALSE(d.initiating_rank);
    CHECK(d.undetermined);
    bool said = false;
    for (const std::string& s : d.reasoning) said = said || s.find("more memory than the whole GPU") != std::string::npos;
    CHECK(said);
}

TEST_CASE("reasoner: an OOM of a size the GPU could hold, or outside an object collective, is the rank's own") {
    // (plain pair members, not a structured binding: clang 14 cannot capture one in doctest's lambdas)
    for (const auto& frame_asked : {std::pair<std::string, std::string>{"broadcast_object_list", "12.00 GiB"},
                                    std::pair<std::string, std::string>{"_forward_impl", "7812.50 GiB"}}) {
        const std::string& frame = frame_asked.first;
        const Report r = run({{"excerpt.log", broadcast_oom_excerpt(frame, frame_asked.second)}});
        const Diagnosis& d = only(r);
        REQUIRE_MESSAGE(d.initiating_rank, frame);
        CHECK(*d.initiating_rank == 1);
    }
}

TEST_CASE("reasoner: a silent rank's silence in a log that ends among the others' waits is only an inference") {
    // Ranks 0, 2, 3 time out and the log ends there: no agent record follows, so rank 1's own report may be cut.
    std::string log = four_ranks_started();
    for (int r : {0, 2, 3}) log += watchdog(r);
    const Report cut = run({{"console.log", log}});
    const Diagnosis& d = only(cut);
    CHECK(d.confidence == "low");
    // The same log with the agent's record of the teardown after the waits: the stream went on past them.
    log += "[2024-01-01 10:10:05,000] torch.distributed.elastic.multiprocessing.api: [ERROR] failed (exitcode: 1) "
           "local_rank: 0 (pid: 4100) of binary: /usr/bin/python3\n";
    const Report whole = run({{"console.log", log}});
    const Diagnosis& w = only(whole);
    REQUIRE(w.initiating_rank);
    CHECK(*w.initiating_rank == 1);
    CHECK(w.confidence != "low");
}

TEST_CASE("reasoner: an agent's SIGABRT record of a local rank no rank here is known for may be the silent rank's") {
    // Ranks 0, 2, 3 wait; rank 1 is silent; the agent records local rank 1 ending on SIGABRT (the watchdog's abort
    // of a waiter), with the summary that would map it to a rank cut away: rank 1's silence is a stream not shown.
    std::string log = four_ranks_started();
    for (int r : {0, 2, 3}) log += watchdog(r);
    log += "[2024-01-01 10:10:05,000] torch.distributed.elastic.multiprocessing.api: [ERROR] failed (exitcode: -6) "
           "local_rank: 1 (pid: 4101) of binary: /usr/bin/python3\n";
    const Report r = run({{"console.log", log}});
    const Diagnosis& d = only(r);
    CHECK_FALSE(has_strategy(d, "silent-rank"));
    CHECK(d.initiating_rank != std::optional<int>(1));
}

TEST_CASE("reasoner: an srun task whose worker uses a GPU numbered above the task is not one worker per task") {
    // Task 1's NCCL process is on device 4: it is one of a node's several workers, so task 1 is not rank 1.
    const std::string log =
        "1: gpu-node-7:5310:7384 [4] bootstrap.cc:77 NCCL WARN Message truncated : received 256 bytes instead of 4\n"
        "1: gpu-node-7:5310:7384 [4] NCCL INFO bootstrap.cc:554 -> 3\n"
        "0: gpu-node-6:4410:4410 [0] NCCL INFO Bootstrap : Using eth0:10.0.0.6<0>\n";
    const Report r = run({{"srun.log", log}});
    const Diagnosis& d = only(r);
    CHECK(d.initiating_rank != std::optional<int>(1));
}

TEST_CASE("reasoner: a runtime's record of a worker's death that says not why is, amid collective waits, only an order") {
    std::string log;
    for (int r = 0; r < 4; ++r)
        log += "(RayTrainWorker pid=8841" + std::to_string(r) + ", ip=10.4.2.7) Setting up process group for: env:// [rank=" +
               std::to_string(r) + ", world_size=4]\n";
    const std::string died =
        "2024-02-19 03:17:44,902\tWARNING worker.py:2058 -- A worker died or was killed while executing a task by an "
        "unexpected system error. To troubleshoot the problem, check the logs for the dead worker. Worker IP address: "
        "10.4.2.7 Worker port: 10217 Worker PID: 88412 Worker exit type: SYSTEM_ERROR\n";
    std::string waits;
    for (int r : {0, 1})
        waits += "(RayTrainWorker pid=8841" + std::to_string(r) + ", ip=10.4.2.7) [E ProcessGroupNCCL.cpp:563] [Rank " +
                 std::to_string(r) + "] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=9120, OpType=ALLREDUCE, "
                 "NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600310 milliseconds before timing out.\n";
    const Report amid_waits = run({{"ray-driver.log", log + died + waits}});
    CHECK(only(amid_waits).confidence == "low");
    const Report alone = run({{"ray-driver.log", log + died}});
    const Diagnosis& d = only(alone);
    REQUIRE(d.initiating_rank);
    CHECK(*d.initiating_rank == 2);
    CHECK(d.confidence != "low");
}

TEST_CASE("reasoner: an unprefixed OOM in the stream where the waiting ranks wrote is the silent rank's") {
    // One node's console without rank prefixes: the watchdog lines name ranks 0, 2, 3; rank 1 is silent; the one
    // traceback no line ties to a rank is in the same stream, before the waits.
    std::string log;
    for (int r = 0; r < 4; ++r) log += "Initializing distributed: GLOBAL_RANK: " + std::to_string(r) + ", MEMBER: " + std::to_string(r + 1) + "/4\n";
    log += "Traceback (most recent call last):\n"
           "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 564.00 MiB. GPU 1 has a total capacty of "
           "22.20 GiB of which 203.12 MiB is free.\n";
    for (int r : {3, 0, 2})
        log += "[E ProcessGroupNCCL.cpp:456] [Rank " + std::to_string(r) + "] Watchdog caught collective operation timeout: "
               "WorkNCCL(SeqNum=2778, OpType=_ALLGATHER_BASE, NumelIn=1, NumelOut=4, Timeout(ms)=1800000) ran for 1801702 "
               "milliseconds before timing out.\n";
    const Report r = run({{"console.log", log}});
    const Diagnosis& d = only(r);
    REQUIRE(d.initiating_rank);
    CHECK(*d.initiating_rank == 1);
    REQUIRE(d.failure);
    CHECK(d.failure->id.find("oom") != std::string::npos);
}

TEST_CASE("reasoner: a rank that only received the dump signal, its last enqueued work below the others' timeout, lags") {
    std::string log;
    for (int r : {0, 1, 3})
        log += watchdog(r, 7487) + "[rank" + std::to_string(r) + "]:[E ProcessGroupNCCL.cpp:1537] [PG 0 Rank " +
               std::to_string(r) + "] Timeout at NCCL work: 7487, last enqueued NCCL work: 7487, last completed NCCL work: 7486.\n";
    log += "[rank2]:[E ProcessGroupNCCL.cpp:1316] [PG 0 Rank 2] Received a global timeout from another rank and will start "
           "to dump the debug info. Last enqueued NCCL work: 7486, last completed NCCL work: 7486.\n";
    const Report r = run({{"console.log", log}});
    const Diagnosis& d = only(r);
    REQUIRE(d.initiating_rank);
    CHECK(*d.initiating_rank == 2);
    CHECK(has_strategy(d, "sequence-lag"));
}

namespace {

std::string ib_completion(int rank, int status) {
    return "[rank" + std::to_string(rank) + "]: gpu-" + std::to_string(rank / 2) + ":17" + std::to_string(rank) +
           ":2088 [" + std::to_string(rank % 2) + "] transport/net_ib.cc:2226 NCCL WARN NET/IB : Got completion from peer "
           "10.0.0.9<55921> with status=" + std::to_string(status) + " opcode=1 len=0 vendor err 129 (Send)\n";
}

}  // namespace

TEST_CASE("reasoner: the one rank whose InfiniBand link failed itself (status 12), every other alive after it, saw it first") {
    // Rank 1: retries exceeded; rank 2: a flushed work request (its queue pair already in error); ranks 0, 3 wait.
    const std::string log = four_ranks_started() + ib_completion(1, 12) + ib_completion(2, 5) + watchdog(0) + watchdog(3);
    const Report r = run({{"console.log", log}});
    const Diagnosis& d = only(r);
    REQUIRE(d.initiating_rank);
    CHECK(*d.initiating_rank == 1);
    CHECK(has_strategy(d, "first-transport-fault"));
}

TEST_CASE("reasoner: a link failure is named first only when every other rank shows it was alive after it") {
    // Rank 2 shows nothing after start-up: it may have died and made rank 1's retries run out.
    const Report silent_peer = run({{"console.log", four_ranks_started() + ib_completion(1, 12) + watchdog(0) + watchdog(3)}});
    CHECK_FALSE(has_strategy(only(silent_peer), "first-transport-fault"));
    CHECK(only(silent_peer).initiating_rank != std::optional<int>(1));
    // Both ends of the link saw it fail: no first.
    const Report both = run({{"console.log", four_ranks_started() + ib_completion(1, 12) + ib_completion(2, 12) +
                                                  watchdog(0) + watchdog(3)}});
    CHECK_FALSE(has_strategy(only(both), "first-transport-fault"));
}

TEST_CASE("reasoner: the agent's first exit orders nothing when its summary lists every other worker failing alike") {
    // One unranked ImportError; the agent reaped local rank 0 first; the summary lists ranks 1-3 with the same exit
    // code 1 and no output of their own here: each failed on its own, and which was reaped first is arbitrary.
    std::string log = "ModuleNotFoundError: No module named 'tensorboard'\n"
                      "ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: 1) local_rank: 0 (pid: 2870) of "
                      "binary: /opt/miniconda/bin/python\n"
                      "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: \n"
                      "============================================================\n"
                      "train.py FAILED\n"
                      "------------------------------------------------------------\n"
                      "Failures:\n";
    for (int r = 1; r < 4; ++r)
        log += "[" + std::to_string(r) + "]:\n  time      : 2022-05-18_07:41:09\n  host      : node-0\n  rank      : " +
               std::to_string(r) + " (local_rank: " + std::to_string(r) + ")\n  exitcode  : 1 (pid: 287" + std::to_string(r) +
               ")\n  error_file: <N/A>\n  traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html\n";
    log += "------------------------------------------------------------\n"
           "Root Cause (first observed failure):\n[0]:\n  time      : 2022-05-18_07:41:09\n  host      : node-0\n"
           "  rank      : 0 (local_rank: 0)\n  exitcode  : 1 (pid: 2870)\n  error_file: <N/A>\n"
           "============================================================\n";
    const Report r = run({{"std_log.txt", log}});
    const Diagnosis& d = only(r);
    CHECK_FALSE(has_strategy(d, "agent-first-exit"));
    CHECK(d.confidence != "high");
}

TEST_CASE("reasoner: a report the driver relays for another pid is not the driver's, even where its lines are all one rank's") {
    // Only the driver's lines (every one prefixed [rank0]: by PyTorch): the RayTaskError names pid 7812 as the worker
    // whose traceback follows. No line here says which rank pid 7812 is: not rank 0.
    const std::string log =
        "[rank0]: Traceback (most recent call last):\n"
        "[rank0]:   File \"/usr/local/lib/python3.12/dist-packages/ray/_private/worker.py\", line 919, in get_objects\n"
        "[rank0]: ray.exceptions.RayTaskError(RuntimeError): ray::RayWorkerWrapper.execute_method() (pid=7812, "
        "ip=10.2.0.4, actor_id=5d2a91c07e3b4f8a6c1d0e2f01000000)\n"
        "[rank0]:   File \"/usr/local/lib/python3.12/dist-packages/vllm/worker/worker_base.py\", line 573, in execute_method\n"
        "[rank0]: RuntimeError: CUDA error: an illegal memory access was encountered\n";
    const Report r = run({{"driver.log", log}});
    const Diagnosis& d = only(r);
    CHECK(d.initiating_rank != std::optional<int>(0));
}
