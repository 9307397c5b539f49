// LiveDiagnosis (engine/live_diagnosis.hpp): lines appended one at a time give diagnose's verdict, a report
// leaves the state open for more lines, and an input opened again after a truncation starts its lines anew.
#include <doctest/doctest.h>

#include <fstream>
#include <sstream>

#include "embedded_engine.hpp"
#include "engine/live_diagnosis.hpp"

using namespace denpex;

namespace {

std::vector<std::string> lines_of(const std::string& path) {
    std::ifstream in(path);
    std::vector<std::string> out;
    for (std::string line; std::getline(in, line);) out.push_back(line);
    return out;
}

const std::string kExample = std::string(DENPEX_SOURCE_DIR) + "/tests/corpus/example-oom-watchdog/";

}  // namespace

TEST_CASE("live diagnosis: the OOM is named as soon as its line is in, then collateral joins") {
    LiveDiagnosis live(engine(), MaskOptions{});
    const auto n0 = live.open_input("node0.log", kExample + "node0.log");
    const auto n1 = live.open_input("node1.log", kExample + "node1.log");
    const auto node0 = lines_of(kExample + "node0.log"), node1 = lines_of(kExample + "node1.log");
    std::size_t i = 0;
    for (; i < node1.size() && node1[i].find("out of memory") == std::string::npos; ++i) live.add_line(n1, node1[i]);
    CHECK(live.report().diagnoses.empty());
    const auto before = live.events_seen();
    live.add_line(n1, node1[i++]);
    CHECK(live.events_seen() > before);
    Report first = live.report();
    REQUIRE_FALSE(first.diagnoses.empty());
    CHECK(first.diagnoses.front().initiating_rank == 5);
    CHECK(first.diagnoses.front().collateral.empty());
    for (; i < node1.size(); ++i) live.add_line(n1, node1[i]);
    for (const auto& line : node0) live.add_line(n0, line);
    const Report now = live.report();
    const Report again = live.report();   // a report consumes nothing
    REQUIRE_FALSE(now.diagnoses.empty());
    CHECK(now.diagnoses.front().initiating_rank == 5);
    CHECK(now.diagnoses.front().collateral.size() == 7);
    CHECK(again.diagnoses.front().collateral.size() == 7);
    CHECK(now.lines == node0.size() + node1.size());
    // The same verdict diagnose gives on the whole files.
    DiagnoseInput input;
    input.files = {{kExample + "node0.log", "node0.log"}, {kExample + "node1.log", "node1.log"}};
    const Report whole = engine().diagnose(input);
    CHECK(whole.diagnoses.front().failure == now.diagnoses.front().failure);
    CHECK(whole.diagnoses.front().confidence == now.diagnoses.front().confidence);
}

TEST_CASE("live diagnosis: a reopened input numbers its lines anew; unknown inputs are ignored") {
    LiveDiagnosis live(engine(), MaskOptions{});
    auto in = live.open_input("trunc.log", "trunc.log");
    live.add_line(in, "3: 2023-03-14 13:58:10,846 INFO train: step 1");
    live.close_input(in);
    in = live.open_input("trunc.log", "trunc.log");
    live.add_line(in, "3: Traceback (most recent call last):");
    live.add_line(in, "3: RuntimeError: CUDA out of memory. Tried to allocate 3.12 GiB");
    live.add_line(12345, "7: RuntimeError: CUDA out of memory.");   // no such input: nothing happens
    const Report r = live.report();
    REQUIRE_FALSE(r.diagnoses.empty());
    CHECK(r.diagnoses.front().initiating_rank == 3);
    REQUIRE_FALSE(r.diagnoses.front().evidence.empty());
    CHECK(r.diagnoses.front().evidence.front().line <= 2);   // not 3 or 4: the numbering started anew
}
