// Reading limits that must not change the answer silently (issue 10): equal-length lines are not terminal
// wrapping, and text past the 16 MiB line cut is named in a warning.
#include <doctest/doctest.h>

#include "embedded_engine.hpp"

#include <cstdio>
#include <string>
#include <vector>

#include "engine/engine.hpp"
#include "engine/hard_wrap.hpp"
#include "engine/line_reader.hpp"

using namespace denpex;

namespace {

std::size_t joined_lines(const std::string& text) {
    LineReader reader{std::string_view(text)};
    HardWrapJoiner joiner(reader);
    std::string_view line;
    bool truncated = false;
    std::uint64_t first = 0;
    std::size_t n = 0;
    while (joiner.next(line, truncated, first)) ++n;
    return n;
}

// 500 lines of one length, from `make(i)`; checks the length is equal and returns the text.
template <class Make>
std::string equal_length_log(Make make) {
    std::string text;
    std::size_t width = 0;
    for (int i = 0; i < 500; ++i) {
        std::string line = make(i);
        if (i == 0) width = line.size();
        REQUIRE(line.size() == width);
        text += line + "\n";
    }
    REQUIRE(width >= 60);
    return text;
}

std::string fmt(const char* f, int i) {
    char buf[256];
    std::snprintf(buf, sizeof buf, f, i, i % 8, i % 10);
    return buf;
}

}  // namespace

TEST_CASE("hard wrap: 500 equal-length ordinary log lines are not terminal wrapping; every line stays a line") {
    const std::vector<std::string> logs = {
        equal_length_log([](int i) { return fmt("2024-01-21 02:10:%03d,123 INFO train: step %06d loss 2.345%d lr 3.0e-04", i); }),
        equal_length_log([](int i) { return fmt("[rank%d]: step %06d loss 2.3456 lr 3.0e-04 tokens/s 41872 grad_norm 0.98%d", i % 8); }),
        equal_length_log([](int i) { return fmt("epoch 001 step %06d/100000 loss 2.345%d lr 3.0e-04 grad_norm 0.9876 mem 71.2%d GiB", i); }),
        equal_length_log([](int i) { return fmt("I0121 02:10:00.%06d 61120 trainer.py:88] step done, loss 2.345%d, throughput ok %d", i); }),
    };
    for (const auto& log : logs) {
        INFO(log.substr(0, log.find('\n')));
        CHECK(joined_lines(log) == 500);
        DiagnoseInput input;
        input.texts.emplace_back("train.log", log);
        Report r = engine().diagnose(input);
        CHECK(r.lines == 500);
    }
}

TEST_CASE("hard wrap: a wrapped log among equal-length rows is still joined") {
    // Every row is exactly 72 long, but the rows after the first of each record start mid-word: real wrapping.
    const std::string message =
        "[rank3]:[E0121 02:28:28.213000269 ProcessGroupNCCL.cpp:616] [Rank 3] Watchdog caught collective operation "
        "timeout: WorkNCCL(SeqNum=96011, OpType=_ALLGATHER_BASE, NumelIn=4194304, NumelOut=67108864, Timeout(ms)=6000"
        "00) ran for 600020 milliseconds before timing out and the process was torn down by the watchdog thread!!";
    std::string text;
    for (int copy = 0; copy < 4; ++copy)
        for (std::size_t i = 0; i < message.size(); i += 72) text += message.substr(i, 72) + "\n";
    CHECK(joined_lines(text) < 8);
}

TEST_CASE("line cut: text past 16 MiB in one line is named in a warning on that input") {
    std::string big = "[rank0]: RuntimeError: CUDA error: an illegal memory access was encountered ";
    big.append((17u << 20) - big.size(), 'x');
    big += "\n[rank0]: done\n";
    DiagnoseInput input;
    input.texts.emplace_back("huge.log", big);
    input.texts.emplace_back("small.log", "[rank1]: ok\n");
    Report r = engine().diagnose(input);
    std::vector<std::string> cut;
    for (const auto& w : r.warnings)
        if (w.find("longer than 16 MiB") != std::string::npos) cut.push_back(w);
    REQUIRE(cut.size() == 1);
    CHECK(cut[0] == "huge.log: 1 line(s) longer than 16 MiB were cut; the text past that in each was not read");
}
