// Engine::read + reason_over_parts (what the editor uses to re-read only the part of a job that changed) give the
// verdict Engine::diagnose gives on the same texts; borrowed texts read as owned ones do.
#include <doctest/doctest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "engine/engine.hpp"
#include "engine/report.hpp"

using namespace denpex;

namespace {

std::string read_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

std::string verdict(const Report& r) {
    if (r.diagnoses.empty()) return "nothing";
    const Diagnosis& d = r.diagnoses.front();
    std::string v = (d.failure ? d.failure->id : std::string("?")) + " rank " +
                    (d.initiating_rank ? std::to_string(*d.initiating_rank) : std::string("-")) +
                    (d.undetermined ? " undetermined" : "") + " " + d.confidence + " collateral " +
                    std::to_string(d.collateral.size());
    return v;
}

}  // namespace

TEST_CASE("reading a job in parts and reasoning over the parts gives diagnose()'s verdict") {
    std::vector<std::string> problems;
    const Engine engine(KnowledgeBase::load_embedded(problems));
    const std::string dir = std::string(DENPEX_SOURCE_DIR) + "/tests/corpus/oom-v25-2node-rank5-watchdog/";
    const std::string node0 = read_file(dir + "node0.log"), node1 = read_file(dir + "node1.log");
    REQUIRE(!node0.empty());

    DiagnoseInput together;
    together.texts = {{"node0.log", node0}, {"node1.log", node1}};
    const Report whole = engine.diagnose(together);

    DiagnoseInput borrowed;
    borrowed.borrowed_texts = {{"node0.log", "", node0}, {"node1.log", "", node1}};
    CHECK(verdict(engine.diagnose(borrowed)) == verdict(whole));

    std::vector<Timeline> parts;
    parts.push_back(engine.read({{"node0.log", "", node0}}));
    parts.push_back(engine.read({{"node1.log", "", node1}}));
    const Report in_parts = engine.reason_over_parts(std::move(parts), {});
    CHECK(verdict(in_parts) == verdict(whole));
    CHECK(verdict(whole).rfind("watchdog-timeout-silent-oom rank 5", 0) == 0);
    CHECK(to_json(in_parts)["diagnoses"][0]["initiating"]["evidence"][0]["file"] == "node1.log");

    // node0.log alone: undetermined, and what is missing is said.
    const Report alone = engine.reason_over_parts({engine.read({{"node0.log", "", node0}})}, {});
    REQUIRE(!alone.diagnoses.empty());
    CHECK(alone.diagnoses.front().undetermined);
    CHECK(!alone.diagnoses.front().missing.empty());
}
