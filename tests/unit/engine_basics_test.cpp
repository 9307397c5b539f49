// Unit tests of the engine's small pieces: normalisation, line reading, version ranges, matching captures.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <unistd.h>
#include <stdlib.h>

#include "engine/knowledge.hpp"
#include "engine/line_reader.hpp"
#include "engine/matcher.hpp"
#include "engine/normalize.hpp"
#include "engine/engine.hpp"
#include "engine/inputs.hpp"
#include "engine/version_range.hpp"
#include "engine/time_order.hpp"
#include "engine/version_statement.hpp"

using namespace denpex;

TEST_CASE("normalize: ANSI colours, CRLF, progress-bar carriage returns, NUL, invalid UTF-8") {
    std::string out;
    CHECK(normalize("\x1b[31m[rank3]: RuntimeError\x1b[0m: boom\r", out));
    CHECK(out == "[rank3]: RuntimeError: boom");
    CHECK(normalize("Epoch 0:  10%|#   |\rEpoch 0:  20%|##  |\r[E ProcessGroupNCCL.cpp:475] [Rank 1] Watchdog", out));
    CHECK(out == "Epoch 0:  10%|#   | Epoch 0:  20%|##  | [E ProcessGroupNCCL.cpp:475] [Rank 1] Watchdog");
    CHECK(normalize(std::string("a\0b\x01" "c", 5), out));
    CHECK(out == "ab c");
    // A hole of NULs before a line (a log truncated under its writer) leaves the prefix at the start.
    CHECK(normalize(std::string("\0\0\0\0[rank6]: RuntimeError: x", 29), out));
    CHECK(out == "[rank6]: RuntimeError: x");
    CHECK(normalize("caf\xc3\xa9 \xff\xfe ok \xe2\x82", out));
    CHECK(out == "caf\xc3\xa9 ?? ok ??");
    CHECK_FALSE(normalize("plain line, nothing to do", out));
    CHECK(out == "plain line, nothing to do");
    CHECK(normalize("\x1b]0;title\x07text", out));
    CHECK(out == "text");
    CHECK(normalize("(RayTrainWorker pid=9812, ip=10.0.5.11) Exception in thread Thread-2: [repeated 3x across cluster]", out));
    CHECK(out == "(RayTrainWorker pid=9812, ip=10.0.5.11) Exception in thread Thread-2:");
    // An escape cut off at the end of the line must not read past it.
    CHECK(normalize("tail \x1b[", out));
    CHECK(out == "tail ");
}

TEST_CASE("line reader: lines across chunk boundaries, no final newline, overlong lines are cut not buffered") {
    std::string data = "first\r\nsecond\n\nlast-without-newline";
    LineReader r(std::string_view(data), 64);
    std::string_view line;
    bool truncated = false;
    std::vector<std::string> lines;
    while (r.next(line, truncated)) lines.emplace_back(line);
    REQUIRE(lines.size() == 4);
    CHECK(lines[0] == "first\r");
    CHECK(lines[2].empty());
    CHECK(lines[3] == "last-without-newline");

    std::string big(100, 'x');
    big += "\nnext\n";
    LineReader cut(std::string_view(big), 10);
    REQUIRE(cut.next(line, truncated));
    CHECK(truncated);
    CHECK(line.size() == 10);
    REQUIRE(cut.next(line, truncated));
    CHECK_FALSE(truncated);
    CHECK(line == "next");
}

TEST_CASE("line reader: file descriptor input with a 3 MB line spanning chunks") {
    char path[] = "/tmp/denpex-lr-XXXXXX";
    int fd = mkstemp(path);
    REQUIRE(fd >= 0);
    std::string content = "a\n" + std::string(3u << 20, 'y') + "\nz";
    REQUIRE(write(fd, content.data(), content.size()) == static_cast<ssize_t>(content.size()));
    lseek(fd, 0, SEEK_SET);
    LineReader r(fd, 1u << 20);
    std::string_view line;
    bool truncated = false;
    REQUIRE(r.next(line, truncated));
    CHECK(line == "a");
    REQUIRE(r.next(line, truncated));
    CHECK(truncated);
    CHECK(line.size() == (1u << 20));
    REQUIRE(r.next(line, truncated));
    CHECK(line == "z");
    CHECK_FALSE(r.next(line, truncated));
    close(fd);
    unlink(path);
}

TEST_CASE("version ranges") {
    auto lt20 = VersionRange::parse("<2.0");
    REQUIRE(lt20);
    CHECK(lt20->contains({1, 13}));
    CHECK_FALSE(lt20->contains({2, 0}));
    auto ge22 = VersionRange::parse(">=2.2");
    REQUIRE(ge22);
    CHECK(ge22->disjoint(*lt20));
    auto mid = VersionRange::parse("1.13-2.4");
    REQUIRE(mid);
    CHECK(mid->intersect(*ge22).str() == "2.2-2.4");
    CHECK(VersionRange::parse("2.5")->within(*ge22));
    CHECK_FALSE(VersionRange::parse("nonsense"));
    CHECK_FALSE(VersionRange::parse("2.4-2.1"));
    CHECK(lt20->str() == "<2.0");
}

TEST_CASE("matcher: one pass finds signatures, extracts captures, and drops fallbacks beside specific hits") {
    KnowledgeBase kb;
    std::vector<std::string> problems;
    auto entry = [](const char* id, const char* role, const char* pattern, bool fallback) {
        return std::string(R"({"id":")") + id + R"(","title":"t","category":"Collective","severity":"error",
          "what":"w","mechanism":"m","confirm":["c"],"fix":[{"text":"f"}],"verify":"v",
          "signatures":[{"id":"s","role":")" + role + R"(","pattern":")" + pattern + R"(","fallback":)" +
               (fallback ? "true" : "false") + R"(,"examples":["x"],"source":"src"}]})";
    };
    REQUIRE(kb.add_json(entry("timeout", "collateral", R"(SeqNum=(?P<seq>\\d+))", false), "a", problems));
    REQUIRE(kb.add_json(entry("exception", "initiating", R"(^\\S*Error: )", true), "b", problems));
    Matcher m(kb);
    auto hits = m.match("RuntimeError: WorkNCCL(SeqNum=31, OpType=ALLREDUCE) ran for 600031 milliseconds");
    REQUIRE(hits.size() == 1);
    CHECK(hits[0].signature->entry->id == "timeout");
    CHECK(hits[0].captures.at("seq") == "31");
    hits = m.match("KeyError: 'labels'");
    REQUIRE(hits.size() == 1);
    CHECK(hits[0].signature->entry->id == "exception");
    CHECK(m.match("all good").empty());
}

#include "engine/hard_wrap.hpp"
#include "engine/job_topology.hpp"
#include "wrapped_terminal_text.hpp"

namespace {
std::vector<std::string> logical_lines(const std::string& text, std::vector<std::uint64_t>* starts = nullptr) {
    LineReader reader{std::string_view(text)};
    HardWrapJoiner joiner(reader);
    std::vector<std::string> out;
    std::string_view line;
    bool truncated = false;
    std::uint64_t first = 0;
    while (joiner.next(line, truncated, first)) {
        out.emplace_back(line);
        if (starts) starts->push_back(first);
    }
    return out;
}
}  // namespace

TEST_CASE("hard wrap: text wrapped at a fixed width is joined back, with the first physical line kept") {
    std::vector<std::uint64_t> starts;
    auto lines = logical_lines(wrapped_terminal_text(), &starts);
    REQUIRE(lines.size() == 6);
    CHECK(lines[0] == kWrappedMessage);
    CHECK(lines[1] == "short line");
    CHECK(starts[0] == 1);
    CHECK(starts[2] == starts[1] + 1);
}

TEST_CASE("hard wrap: nvidia-smi's table, rows of one width from border to border, is no wrapped text") {
    std::string table = "Sun Oct 31 16:42:07 2021\n";
    for (int i = 0; i < 8; ++i) {
        table += "|   " + std::to_string(i) + "  Tesla V100-SXM2...  On   | 00000000:1A:00.0 Off |                    0 |\n";
        table += "| N/A   49C    P0    68W / 300W |  16220MiB / 32510MiB |    100%      Default |\n";
        table += "|                               |                      |                  N/A |\n";
        table += "+-------------------------------+----------------------+----------------------+\n";
    }
    CHECK(logical_lines(table).size() == 33);
}

TEST_CASE("hard wrap: ordinary logs, even with many equal-length lines, pass through untouched") {
    std::string log;
    for (int i = 0; i < 50; ++i) log += "[rank0]: 2024-01-01 10:00:00,000 INFO train: step " + std::to_string(1000 + i) + " loss 2.3456 lr 3.0e-04 tokens/s 41872\n";
    log += "[rank0]: a longer line than all the others, which a terminal wrapping at a fixed width could never print\n";
    auto lines = logical_lines(log);
    CHECK(lines.size() == 51);
}

TEST_CASE("job topology: a launch line's node rank and processes per node place its local ranks") {
    auto first = [](std::string_view line) -> std::optional<int> {
        const auto p = read_launch_position(line);
        return p ? std::optional<int>(p->first_rank()) : std::nullopt;
    };
    CHECK(first("$ python tools/train_net.py --num-gpus 8 --num-machines 2 --machine-rank 1 --dist-url tcp://10.1.1.1:50152") == 8);
    CHECK(first("Command Line Args: Namespace(config_file='a.yaml', machine_rank=1, num_gpus=4, num_machines=2)") == 4);
    CHECK(first("torchrun --nnodes=4 --node_rank=3 --nproc_per_node=8 --master_addr=n0 train.py") == 24);
    CHECK(first("torchrun --nnodes 2 --node-rank 1 --nproc-per-node 4 train.py") == 4);
    CHECK(first("+ NODE_RANK=2 NPROC_PER_NODE=8 bash run.sh") == 16);
    CHECK(first("accelerate launch --num_machines 2 --machine_rank 1 --num_processes 16 train.py") == 8);
    CHECK(first("deepspeed --num_nodes 2 --node_rank=0 --num_gpus=8 train.py") == 0);
    // Half a position is none: the node rank without the processes per node, or an uneven Accelerate split.
    CHECK_FALSE(first("torchrun --node_rank=1 train.py"));
    CHECK_FALSE(first("accelerate launch --num_machines 3 --machine_rank 1 --num_processes 16 train.py"));
    CHECK_FALSE(first("local_rank=1 num_gpus=8"));
    CHECK_FALSE(first("--node_rank=99999999999 --nproc_per_node=8"));
    // detectron2's own statement of the world.
    JobTopology d2;
    read_topology_line("[08/22 13:58:02 detectron2]: Rank of current process: 0. World size: 16", d2);
    CHECK(d2.world_size == std::optional<int>(16));
}

TEST_CASE("job topology: MASTER_ADDR, DeepSpeed's rank mapping, srun task hosts, nnodes x nproc") {
    JobTopology t;
    read_topology_line("export MASTER_ADDR=gpu-node-01 MASTER_PORT=29500", t);
    read_topology_line("[2024-01-08 21:30:02,118] [INFO] [launch.py:162:main] global_rank_mapping=defaultdict(<class 'list'>, "
                       "{'worker-0': [0, 1], 'worker-1': [2, 3]})", t);
    const SrunSubject two = read_topology_line("srun: error: gpu-a18: tasks 4-5: Exited with exit code 1", t);
    CHECK(two.host == "gpu-a18");
    CHECK_FALSE(two.task);
    const SrunSubject one = read_topology_line("srun: error: gpu-b07: task 11: Out Of Memory", t);
    CHECK(one.host == "gpu-b07");
    CHECK(one.task == std::optional<int>(11));
    read_topology_line("torchrun --nnodes=2 --nproc_per_node=4 train.py", t);
    CHECK(t.masters.count("gpu-node-01"));
    CHECK(t.host_ranks["worker-1"] == std::set<int>{2, 3});
    CHECK(t.task_hosts[5] == "gpu-a18");
    // srun joins a node's tasks with commas, ranges among them.
    const SrunSubject listed = read_topology_line("srun: error: learnfair0833: tasks 9-10,12-15: Killed", t);
    CHECK(listed.host == "learnfair0833");
    CHECK_FALSE(listed.task);
    for (int task : {9, 10, 12, 13, 14, 15}) CHECK(t.task_hosts[task] == "learnfair0833");
    CHECK(t.task_hosts[11] == "gpu-b07");   // named alone earlier; the list around it leaves it alone
    CHECK(read_topology_line("srun: error: n3: tasks 0,2,6: Terminated", t).host == "n3");
    CHECK(t.task_hosts[6] == "n3");
    // A malformed or impossibly wide list names no task; the node is still known.
    JobTopology wide;
    CHECK(read_topology_line("srun: error: n4: tasks 0-4000,5000-9000: Killed", wide).host == "n4");
    CHECK(wide.task_hosts.empty());
    CHECK(read_topology_line("srun: error: n5: tasks 7-3: Killed", wide).host == "n5");
    CHECK(wide.task_hosts.empty());
    REQUIRE(t.world_size);
    CHECK(*t.world_size == 8);
    // WORLD INFO DICT names each host's GPU slots; DeepSpeed numbers ranks through the hosts in that order.
    JobTopology slots;
    read_topology_line("[2025-03-04 10:01:14,118] [INFO] [launch.py:146:main] WORLD INFO DICT: {'gpu-a01': [0, 1], "
                       "'gpu-a02': [0, 1, 2]}", slots);
    CHECK(slots.host_ranks["gpu-a01"] == std::set<int>{0, 1});
    CHECK(slots.host_ranks["gpu-a02"] == std::set<int>{2, 3, 4});
    JobTopology ds;
    read_topology_line("[2024-02-11 02:00:06,100] [INFO] [launch.py:163:main] dist_world_size=24", ds);
    CHECK(ds.world_size == std::optional<int>(24));
    JobTopology acc;
    read_topology_line("Num processes: 16", acc);
    CHECK(acc.world_size == std::optional<int>(16));
    JobTopology prose;
    read_topology_line("Num processes: 16 (of which 2 were restarted)", prose);   // not the banner's field
    CHECK_FALSE(prose.world_size);
    JobTopology loop;   // a rendezvous on loopback: every rank runs on one host
    read_topology_line("world_size=2, dist_url=tcp://127.0.0.1:23456", loop);
    CHECK(loop.loopback_rendezvous);
    JobTopology local_master;
    read_topology_line("MASTER_ADDR=localhost MASTER_PORT=29500", local_master);
    CHECK(local_master.loopback_rendezvous);
    CHECK(local_master.masters.empty());
    JobTopology remote;
    read_topology_line("MASTER_ADDR=10.0.0.4 init_method=tcp://10.0.0.4:23456", remote);
    CHECK_FALSE(remote.loopback_rendezvous);
    JobTopology lightning;   // Lightning's _init_dist_connection, on every rank and then on rank 0
    read_topology_line("Initializing distributed: GLOBAL_RANK: 3, MEMBER: 4/16", lightning);
    CHECK(lightning.world_size == std::optional<int>(16));
    JobTopology registered;
    read_topology_line("All distributed processes registered. Starting with 8 processes", registered);
    CHECK(registered.world_size == std::optional<int>(8));
    CHECK(host_of_peer("10.37.152.61<48217>") == "10.37.152.61");
    CHECK(host_of_peer("[10.0.0.5]:4010") == "10.0.0.5");
    CHECK(host_of_peer("[127.0.0.1]:4010").empty());   // loopback names no other machine
    CHECK(host_of_peer("worker-0<50324>") == "worker-0");
    CHECK(host_of_peer("3").empty());
}

TEST_CASE("version statement: collect_env, DeepSpeed's environment, pip and banners state the PyTorch version") {
    CHECK(stated_torch_version("PyTorch version: 2.3.0+cu121") == std::optional<Version>(Version{2, 3}));
    CHECK(stated_torch_version("torch version .................... 2.1.0+cu121") == std::optional<Version>(Version{2, 1}));
    CHECK(stated_torch_version("torch==2.4.1") == std::optional<Version>(Version{2, 4}));
    CHECK(stated_torch_version("numpy==1.26.4 torch==1.13.1 transformers==4.36.2") == std::optional<Version>(Version{1, 13}));
    CHECK(stated_torch_version("torch               2.5.1+cu124") == std::optional<Version>(Version{2, 5}));
    CHECK(stated_torch_version("torch.__version__ = '2.2.0'") == std::optional<Version>(Version{2, 2}));
    // Prose that mentions a version is not the running one; neither is another package's pin.
    CHECK_FALSE(stated_torch_version("this was fixed in torch 2.2.0 and later"));
    CHECK_FALSE(stated_torch_version("pytorch-lightning==2.1.0"));
    CHECK_FALSE(stated_torch_version("torchvision==0.18.0"));
}

TEST_CASE("version statement: a stated version replaces what the formats imply; two releases leave it unknown") {
    std::vector<std::string> problems;
    const Engine engine(KnowledgeBase::load_embedded(problems));
    DiagnoseInput one;
    one.texts = {{"a.log", "PyTorch version: 2.3.0+cu121\n[rank1]: RuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB\n"}};
    CHECK(engine.diagnose(one).torch_versions == std::optional<std::string>("2.3"));
    DiagnoseInput mixed;
    mixed.texts = {{"a.log", "PyTorch version: 2.3.0+cu121\n"}, {"b.log", "PyTorch version: 2.2.1+cu121\n[rank1]: RuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB\n"}};
    CHECK_FALSE(engine.diagnose(mixed).torch_versions);
}

TEST_CASE("inputs: a directory's logs are read, and what is not read is listed with the reason") {
    namespace fs = std::filesystem;
    char tmpl[] = "/tmp/denpex-inputs-XXXXXX";
    REQUIRE(mkdtemp(tmpl) != nullptr);
    const fs::path dir(tmpl);
    auto write = [&](const std::string& name, const std::string& bytes) {
        std::ofstream(dir / name, std::ios::binary) << bytes;
    };
    write("rank0.log", "[rank0]: step 1 loss 2.0\n");
    write("truncated.log", std::string(20000, '\0') + "[rank1]: step 9 loss 1.9\n");   // copytruncate's hole
    write("midhole.log", "[rank2]: step 1\n" + std::string(3000, '\0') + "[rank2]: step 2\n");   // a hole inside
    std::string core(4096, '\0');
    for (std::size_t i = 0; i < core.size(); ++i) core[i] = static_cast<char>(i % 7 == 0 ? 'x' : i % 31);
    write("core.5503", "\x7f" "ELF" + core);
    write("notes.txt", std::string("\xff\xfe" "n\0o\0t\0e\0", 10));
    write("old.log.gz", "\x1f\x8b\x08");
    write("config.yaml", "lr: 0.1\n");

    const ExpandedInputs in = expand_inputs({dir.string()});
    std::vector<std::string> read;
    for (const auto& f : in.files) read.push_back(fs::path(f.path).filename().string());
    CHECK(read == std::vector<std::string>{"midhole.log", "rank0.log", "truncated.log"});
    auto skipped_for = [&](const std::string& name) {
        for (const auto& s : in.skipped)
            if (s.find("/" + name + " (") != std::string::npos) return s.substr(s.find(" (") + 2);
        return std::string("(not listed)");
    };
    CHECK(skipped_for("core.5503").rfind("binary", 0) == 0);
    CHECK(skipped_for("notes.txt").rfind("UTF-16", 0) == 0);
    CHECK(skipped_for("old.log.gz").rfind("compressed", 0) == 0);
    CHECK(skipped_for("config.yaml").rfind("not a log", 0) == 0);

    // Named by hand, a binary is still not read; a text file with any name is.
    const ExpandedInputs named = expand_inputs({(dir / "core.5503").string(), (dir / "config.yaml").string()});
    REQUIRE(named.files.size() == 1);
    CHECK(fs::path(named.files.front().path).filename() == "config.yaml");
    REQUIRE(named.skipped.size() == 1);
    fs::remove_all(dir);
}

TEST_CASE("time order: own times within a file, New Year in glog times, carried times across files") {
    auto ev = [](std::uint32_t source, std::uint64_t order, double seconds, bool dated, bool exact,
                 std::optional<double> before = std::nullopt, std::uint32_t age = 500) {
        Event e;
        e.source = source;
        e.order = order;
        e.time = Timestamp{seconds, dated, false, false};
        e.time_exact = exact;
        e.time_before = before;
        e.time_age = exact ? 0 : age;
        return e;
    };
    // One file: a buffered line written later but stamped earlier comes first.
    CHECK(precedes(ev(0, 2, 100.0, true, true), ev(0, 1, 104.0, true, true)) == std::optional<bool>(true));
    // Without its own time, position decides.
    CHECK(precedes(ev(0, 2, 100.0, true, false, 101.0), ev(0, 1, 104.0, true, true)) == std::optional<bool>(false));
    // Year-less: 31 Dec 23:59:59 is before 1 Jan 00:00:00 of the next year.
    const double dec31 = 364 * 86400.0 + 86399.0, jan1 = 0.05;
    CHECK(precedes(ev(0, 1, jan1, false, true), ev(0, 2, dec31, false, true)) == std::optional<bool>(false));
    // Across files: a line between stamps 100 and 101 is before one stamped 104; between 100 and 106 it is not
    // known; with no later stamp at all, neither.
    CHECK(precedes(ev(0, 1, 100.0, true, false, 101.0), ev(1, 1, 104.0, true, true)) == std::optional<bool>(true));
    CHECK_FALSE(precedes(ev(0, 1, 100.0, true, false, 106.0), ev(1, 1, 104.0, true, true)));
    CHECK_FALSE(precedes(ev(0, 1, 100.0, true, false), ev(1, 1, 104.0, true, true)));
    CHECK(precedes(ev(1, 1, 104.0, true, true), ev(0, 1, 100.0, true, false, 106.0)) == std::nullopt);
    CHECK(precedes(ev(1, 1, 99.0, true, true), ev(0, 1, 100.0, true, false)) == std::optional<bool>(true));
    // The same process's record just above dates its traceback, even when the file's next stamp is later.
    Event dated_by_writer = ev(0, 1, 100.0, true, false, 104.5, 12);
    dated_by_writer.time_from_writer = true;
    CHECK(precedes(dated_by_writer, ev(1, 1, 104.0, true, true)) == std::optional<bool>(true));
    // A file that ends in the traceback: a stamp a few lines above still stands for it.
    CHECK(precedes(ev(0, 1, 100.0, true, false, std::nullopt, 20), ev(1, 1, 104.0, true, true)) == std::optional<bool>(true));
    // Year-less times of different files compare (one job's nodes share the calendar), unless half a year apart;
    // a year-less time never compares with a dated one.
    CHECK(precedes(ev(0, 1, 100.0, false, true), ev(1, 1, 104.0, false, true)) == std::optional<bool>(true));
    CHECK_FALSE(precedes(ev(0, 1, jan1, false, true), ev(1, 1, dec31, false, true)));
    CHECK_FALSE(precedes(ev(0, 1, 100.0, false, true), ev(1, 1, 104.0, true, true)));
    // A whole-second stamp (dmesg -T) orders nothing within its second, and does beyond it.
    Event whole = ev(0, 1, 100.0, true, true);
    whole.time->whole_seconds = true;
    CHECK_FALSE(precedes(whole, ev(1, 1, 100.45, true, true)));
    CHECK(precedes(whole, ev(1, 1, 101.2, true, true)) == std::optional<bool>(true));
}
