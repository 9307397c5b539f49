// The engine's no-throw contract (engine/engine.hpp): numbers read from logs through one bounded parser,
// ranges that cannot expand without bound, readers that turn a failure into a warning on their input.
#include <doctest/doctest.h>

#include "embedded_engine.hpp"

#include <climits>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include <stdlib.h>

#include "engine/bounded_number.hpp"
#include "engine/engine.hpp"
#include "engine/job_topology.hpp"
#include "engine/report.hpp"

using namespace denpex;

namespace {

bool any_contains(const std::vector<std::string>& lines, const std::string& needle) {
    for (const auto& l : lines)
        if (l.find(needle) != std::string::npos) return true;
    return false;
}

}  // namespace

TEST_CASE("bounded numbers: whole view, decimal only, in range, never a throw") {
    CHECK(parse_bounded<int>("42") == std::optional<int>(42));
    CHECK(parse_bounded<int>("-1") == std::optional<int>(-1));
    CHECK_FALSE(parse_bounded<unsigned>("-1"));
    CHECK_FALSE(parse_bounded<int>(""));
    CHECK_FALSE(parse_bounded<int>("-"));
    CHECK_FALSE(parse_bounded<int>("+3"));
    CHECK_FALSE(parse_bounded<int>(" 3"));
    CHECK_FALSE(parse_bounded<int>("3 "));
    CHECK_FALSE(parse_bounded<int>("0x10"));
    CHECK_FALSE(parse_bounded<int>("12a"));
    CHECK_FALSE(parse_bounded<int>("99999999999"));             // past INT_MAX: no number, no exception
    CHECK_FALSE(parse_bounded<long>("99999999999999999999999"));
    CHECK(parse_bounded<std::uint64_t>("18446744073709551615") == std::optional<std::uint64_t>(UINT64_MAX));
    CHECK_FALSE(parse_bounded<std::uint64_t>("18446744073709551616"));
    CHECK(parse_bounded<int>("7", 0, 7) == std::optional<int>(7));
    CHECK_FALSE(parse_bounded<int>("8", 0, 7));
    CHECK_FALSE(parse_bounded<int>("-1", 0, 7));
    CHECK(to_number<long>("123456789012") == std::optional<long>(123456789012L));

    CHECK(bounded_span<int>("2", "", 0, 100, 10) == std::optional<std::pair<int, int>>({2, 2}));
    CHECK(bounded_span<int>("2", "11", 0, 100, 10) == std::optional<std::pair<int, int>>({2, 11}));
    CHECK_FALSE(bounded_span<int>("2", "12", 0, 100, 10));    // 11 values: wider than the cap
    CHECK_FALSE(bounded_span<int>("5", "4", 0, 100, 10));
    CHECK_FALSE(bounded_span<int>("2", "99999999999", 0, 100, 10));
    CHECK(bounded_span<int>("-2147483648", "2147483647", INT_MIN, INT_MAX, UINT64_MAX) ==
          std::optional<std::pair<int, int>>({INT_MIN, INT_MAX}));
}

TEST_CASE("srun task ranges are bounded: a huge range names the host and no task") {
    JobTopology t;
    SrunSubject s;
    CHECK_NOTHROW(s = read_topology_line("srun: error: gpu-a18: tasks 2-99999999999: Terminated", t));
    CHECK(s.host == "gpu-a18");
    CHECK_FALSE(s.task);
    CHECK(t.task_hosts.empty());
    CHECK_NOTHROW(read_topology_line("srun: error: gpu-a19: tasks 0-2000000000: Terminated", t));
    CHECK(t.task_hosts.empty());   // never expanded task by task
    CHECK_NOTHROW(read_topology_line("srun: error: gpu-a20: task 99999999999999999999999: Terminated", t));
    CHECK(t.task_hosts.empty());
    read_topology_line("srun: error: gpu-a21: tasks 8-11: Terminated", t);
    CHECK(t.task_hosts.size() == 4);
    CHECK(t.task_hosts[11] == "gpu-a21");
    // A rank list with a number past int: the other ranks still count, no overflow.
    JobTopology ds;
    read_topology_line("[launch.py:162:main] global_rank_mapping=defaultdict(<class 'list'>, "
                       "{'worker-0': [0, 99999999999999999999], 'worker-1': [2, 3]})", ds);
    CHECK(ds.host_ranks["worker-0"] == std::set<int>{0});
    CHECK(ds.host_ranks["worker-1"] == std::set<int>{2, 3});
    JobTopology big;
    read_topology_line("torchrun --nnodes=99999999999 --nproc_per_node=4 train.py", big);
    CHECK_FALSE(big.world_size);
}

TEST_CASE("the engine does not throw on numbers that do not fit, on one thread or several") {
    const std::string line = "srun: error: gpu-a18: tasks 2-99999999999: Terminated\n";
    DiagnoseInput in;
    in.texts.emplace_back("stdin", line);
    CHECK_NOTHROW(engine().diagnose(in));

    namespace fs = std::filesystem;
    char tmpl[] = "/tmp/denpex-robust-XXXXXX";
    REQUIRE(mkdtemp(tmpl) != nullptr);
    const fs::path dir(tmpl);
    std::string numbers =
        line +
        "[rank99999999999]: RuntimeError: x\n"
        "[E1023 14:32:03.123 ProcessGroupNCCL.cpp:629] [Rank 99999999999999] Watchdog caught collective operation "
        "timeout: WorkNCCL(SeqNum=99999999999999999999, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, "
        "Timeout(ms)=99999999999999999999) ran for 99999999999999999999 milliseconds before timing out.\n"
        "torch.distributed.elastic.multiprocessing.api:failed (exitcode: -99999999999) local_rank: 99999999999 "
        "(pid: 99999999999999999999) of binary: /usr/bin/python\n"
        "Sending process 99999999999999999999 closing signal SIGTERM\n"
        "[2024-01-08 21:30:02,118] [INFO] [launch.py:163:main] dist_world_size=99999999999999\n";
    std::ofstream(dir / "a.log") << numbers;
    std::ofstream(dir / "b.log") << numbers;
    DiagnoseInput files;
    files.files = {{(dir / "a.log").string(), "a.log"}, {(dir / "b.log").string(), "b.log"}};
    DiagnoseOptions parallel;
    parallel.parallel_min_bytes = 0;   // the reader threads' path
    parallel.max_threads = 2;
    CHECK_NOTHROW(engine().diagnose(files, parallel));
    CHECK_NOTHROW(engine().diagnose(files));
    fs::remove_all(dir);
}

TEST_CASE("a reader that fails turns the failure into a warning on that input, never a terminate") {
    namespace fs = std::filesystem;
    char tmpl[] = "/tmp/denpex-reader-XXXXXX";
    REQUIRE(mkdtemp(tmpl) != nullptr);
    const fs::path dir(tmpl);
    // Past 8 MiB the collector reports progress; a progress callback that throws stands for any failure
    // inside a reader (the server's callback writes to a pipe that may be gone).
    {
        std::ofstream big(dir / "big.log");
        const std::string filler = "[rank0]: step 1 loss 2.0 ......................................................\n";
        for (std::size_t n = 0; n < (9u << 20) / filler.size(); ++n) big << filler;
    }
    std::ofstream(dir / "small.log")
        << "[rank1]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 1 has a total "
           "capacity of 79.11 GiB of which 1.02 GiB is free.\n";
    DiagnoseInput in;
    in.files = {{(dir / "big.log").string(), "big.log"}, {(dir / "small.log").string(), "small.log"}};
    for (unsigned threads : {1u, 2u}) {
        CAPTURE(threads);
        DiagnoseOptions o;
        o.parallel_min_bytes = threads == 1 ? UINT64_MAX : 0;
        o.max_threads = threads;
        o.progress = [](std::uint64_t bytes) {
            if (bytes >= (8u << 20)) throw std::runtime_error("progress sink closed");
        };
        Report r;
        CHECK_NOTHROW(r = engine().diagnose(in, o));
        CHECK(any_contains(r.warnings, "big.log: not read to the end: progress sink closed"));
        // The other input is still read and diagnosed.
        REQUIRE(r.diagnoses.size() == 1);
        CHECK(r.diagnoses.front().initiating_rank == std::optional<int>(1));
    }
    fs::remove_all(dir);
}

TEST_CASE("no stoi/stol/stoul/atoi/atol in engine/ or server/: numbers go through engine/bounded_number.hpp") {
    namespace fs = std::filesystem;
    const std::regex banned(R"(\b(std::)?(stoi|stol|stoll|stoul|stoull|stof|stod|stold|atoi|atol|atoll|atof|strtol|strtoll|strtoul|strtoull|strtoimax|strtoumax|sscanf)\s*\()");
    std::vector<std::string> found;
    std::size_t files = 0;
    for (const char* root : {"engine", "server"}) {
        for (const auto& e : fs::recursive_directory_iterator(fs::path(DENPEX_SOURCE_DIR) / root)) {
            const auto ext = e.path().extension().string();
            if (!e.is_regular_file() || (ext != ".cpp" && ext != ".hpp" && ext != ".h" && ext != ".cc")) continue;
            ++files;
            std::ifstream in(e.path());
            std::string line;
            for (int n = 1; std::getline(in, line); ++n) {
                const auto code = line.substr(0, line.find("//"));
                if (std::regex_search(code, banned)) found.push_back(e.path().string() + ":" + std::to_string(n) + ": " + line);
            }
        }
    }
    CHECK(files > 20);
    for (const auto& f : found) FAIL_CHECK(f);
    CHECK(found.empty());
}
