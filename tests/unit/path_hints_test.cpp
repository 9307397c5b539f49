// Path hints: which path shapes name a rank, node, task or attempt, and which digits must be left alone.
#include "engine/path_hints.hpp"

#include <doctest/doctest.h>

#include <string>
#include <string_view>

using denpex::path_hints;

namespace {

bool empty(const denpex::PathHints& h) {
    return !h.rank && !h.local_rank && !h.node && !h.attempt && !h.slurm_job && !h.slurm_array_task && !h.host &&
           h.node_key.empty();
}

}  // namespace

TEST_CASE("path hints: torchrun --log-dir layout") {
    auto h = path_hints("/x/run1/attempt_0/3/stderr.log");
    CHECK(h.local_rank == 3);
    CHECK(h.attempt == 0);
    CHECK(h.node_key == "/x/run1");
    CHECK_FALSE(h.rank);

    h = path_hints("/x/run1/attempt_1/12/stdout.log");
    CHECK(h.local_rank == 12);
    CHECK(h.attempt == 1);
    CHECK(h.node_key == "/x/run1");

    // Two agents' directories give two node keys, so their local ranks are not confused.
    CHECK(path_hints("logs/job_a1b2/attempt_0/0/stderr.log").node_key !=
          path_hints("logs/job_c3d4/attempt_0/0/stderr.log").node_key);

    h = path_hints("attempt_0/2/error.json");
    CHECK(h.local_rank == 2);
    CHECK(h.node_key == ".");

    h = path_hints("C:\\logs\\run\\attempt_2\\5\\stderr.log");
    CHECK(h.local_rank == 5);
    CHECK(h.attempt == 2);
    CHECK(h.node_key == "C:\\logs\\run");

    // The node directory may name the node.
    h = path_hints("/data/node1/attempt_0/3/stderr.log");
    CHECK(h.node == 1);
    CHECK(h.local_rank == 3);
    CHECK(h.node_key == "/data/node1");
}

TEST_CASE("path hints: per-rank file names") {
    CHECK(path_hints("logs/rank_12.log").rank == 12);
    CHECK(path_hints("rank3.txt").rank == 3);
    CHECK(path_hints("rank-03.out").rank == 3);
    CHECK_FALSE(path_hints("worker_3.log").rank);         // "worker" is a node for pdsh/DeepSpeed
    CHECK_FALSE(path_hints("pdsh_worker1.log").rank);
    CHECK(path_hints("log_rank_3.txt").rank == 3);
    CHECK(path_hints("out/rank_3.log.1").rank == 3);
    CHECK(path_hints("logs/rank_4/stdout.log").rank == 4);   // the directory names the rank

    const auto local = path_hints("local_rank_2.log");
    CHECK(local.local_rank == 2);
    CHECK_FALSE(local.rank);

    const auto both = path_hints("node1_rank3.log");
    CHECK(both.node == 1);
    CHECK(both.rank == 3);
}

TEST_CASE("path hints: per-node file names") {
    CHECK(path_hints("node1.log").node == 1);
    CHECK(path_hints("node-1.log").node == 1);
    CHECK(path_hints("/a/b/node_01.out").node == 1);
    CHECK_FALSE(path_hints("node1.log").rank);
    // A node's rank (torchrun --node_rank, detectron2 --machine-rank) is a node index, not a global rank.
    for (const char* name : {"node1-machine_rank1.log", "node_rank1.log", "train-noderank-1.out", "group_rank_1.log"}) {
        CAPTURE(name);
        CHECK(path_hints(name).node == 1);
        CHECK_FALSE(path_hints(name).rank);
    }
}

TEST_CASE("path hints: Slurm output files") {
    auto h = path_hints("slurm-123_4.out");
    CHECK(h.slurm_job == 123);
    CHECK(h.slurm_array_task == 4);
    CHECK_FALSE(h.rank);

    h = path_hints("/home/u/slurm-98765.out");
    CHECK(h.slurm_job == 98765);
    CHECK_FALSE(h.slurm_array_task);
}

TEST_CASE("path hints: host only when the name says host") {
    CHECK(path_hints("host-gpu-a17.log").host == "gpu-a17");
    CHECK(path_hints("logs/host-a.example.com.log").host == "a.example.com");
    CHECK_FALSE(path_hints("logs/gpu-a17.log").host);
}

TEST_CASE("path hints: digits that are not ranks") {
    for (std::string_view path : {
             "excerpt2_oom_and_watchdog.log",
             "2024-10-23/train.log",
             "pdsh_node_xxx1.log",
             "train_12345.log",
             "ranks2.log",
             "crank3.log",
             "pt-k7x2q-train-worker-0.log",   // a Kubernetes pod: a node, not rank 0
             "/x/attempt_0/stderr.log",       // no local-rank directory
             "/x/attempt_a/3/stderr.log",
             "",
             "/",
             "\\\\",
         }) {
        CAPTURE(path);
        CHECK(empty(path_hints(path)));
    }
}

TEST_CASE("path hints: hostile input does not crash") {
    const char raw[] = "a\0b/rank_\xff/attempt_0/\xfe/x.log";
    CHECK_NOTHROW(path_hints(std::string_view(raw, sizeof raw - 1)));
    CHECK_FALSE(path_hints("rank_99999999999999999999.log").rank);
    const std::string long_path = std::string(1'000'000, 'a') + "/rank_5.log";
    CHECK(path_hints(long_path).rank == 5);
}
