// Corpus (golden) tests: every case folder holds logs and an expected.json written and checked by hand
// against the logs (see tests/corpus/README.md). The engine must name the labelled initiating rank, a failure
// matching the case's class_regex, and — when the answer is "undetermined" — a missing fact.
#include <doctest/doctest.h>

#include "embedded_engine.hpp"

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>

#include <nlohmann/json.hpp>

#include "engine/engine.hpp"
#include "engine/report.hpp"

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

std::string lower(std::string s) {
    for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

// Returns the list of failures (empty = pass).
std::vector<std::string> check_case(const fs::path& dir) {
    std::vector<std::string> fails;
    std::ifstream in(dir / "expected.json");
    json want = json::parse(in);
    denpex::DiagnoseInput input;
    for (const auto& f : want.at("files")) {
        fs::path p = dir / f.get<std::string>();
        input.files.push_back({p.string(), f.get<std::string>()});
    }
    denpex::Report report = engine().diagnose(input);
    json got = denpex::to_json(report);
    if (got["diagnoses"].empty()) {
        fails.push_back("no diagnosis");
        return fails;
    }
    const json& d = got["diagnoses"][0];
    const json& rank = d["initiating"]["rank"];
    bool undetermined = want.value("undetermined", false);
    bool not_applicable = want.value("rank_not_applicable", false);
    // A label of low confidence marks an inference (a silent rank read from an excerpt): there an undetermined
    // answer that gives a missing fact is as good as the label, and a low-confidence verdict is expected.
    const bool inference = want.value("confidence", "") == "low";
    const bool honest_undetermined = inference && rank.is_null() && d["undetermined"].get<bool>() && !d["missing"].empty();
    if (honest_undetermined) {
        // as good as the label (see above); the class is still checked below
    } else if (undetermined) {
        if (!rank.is_null()) fails.push_back("expected undetermined, got rank " + rank.dump());
        if (!d["undetermined"].get<bool>()) fails.push_back("expected undetermined=true");
        if (d["missing"].empty()) fails.push_back("undetermined without a missing fact");
        std::string missing = lower(d["missing"].dump());
        for (const auto& s : want.value("missing_contains", json::array()))
            if (missing.find(lower(s.get<std::string>())) == std::string::npos)
                fails.push_back("missing fact lacks '" + s.get<std::string>() + "': " + d["missing"].dump());
    } else if (not_applicable) {
        if (!rank.is_null()) fails.push_back("expected no single initiating rank, got " + rank.dump());
        if (d["undetermined"].get<bool>()) fails.push_back("expected a determined (not rank-specific) verdict");
    } else {
        const json& expected = want["initiating_rank"];
        if (rank != expected) fails.push_back("initiating rank " + rank.dump() + ", expected " + expected.dump());
        if (d["confidence"] == "low" && !inference) fails.push_back("confidence is low for a decidable case");
    }
    if (want.contains("class_regex")) {
        std::string failure = d["failure"].is_null() ? "" : d["failure"]["id"].get<std::string>() + " " +
                                                                d["failure"]["title"].get<std::string>();
        std::regex re(want["class_regex"].get<std::string>(), std::regex::ECMAScript | std::regex::icase);
        if (!std::regex_search(failure, re))
            fails.push_back("failure '" + failure + "' does not match " + want["class_regex"].get<std::string>());
    }
    if (want.contains("initiating_host") && want["initiating_host"].is_string() && !undetermined && !not_applicable &&
        !honest_undetermined) {
        if (d["initiating"]["host"] != want["initiating_host"])
            fails.push_back("host " + d["initiating"]["host"].dump() + ", expected " + want["initiating_host"].dump());
    }
    // Confidence is calibrated: a label that states one is met exactly, except that an inference may also be
    // undetermined (above).
    if (want.contains("expected_confidence") && !honest_undetermined && d["confidence"] != want["expected_confidence"])
        fails.push_back("confidence " + d["confidence"].dump() + ", expected " + want["expected_confidence"].dump());
    if (want.contains("collateral_ranks")) {
        std::set<int> have;
        for (const auto& c : d["collateral"])
            if (c["rank"].is_number()) have.insert(c["rank"].get<int>());
        for (const auto& r : want["collateral_ranks"])
            if (!have.count(r.get<int>())) fails.push_back("rank " + r.dump() + " not listed as collateral");
    }
    return fails;
}

void run_corpus(const fs::path& root, const std::set<std::string>& deferred) {
    REQUIRE_MESSAGE(fs::is_directory(root), root.string());
    std::vector<fs::path> cases;
    for (auto it = fs::recursive_directory_iterator(root); it != fs::recursive_directory_iterator(); ++it)
        if (it->path().filename() == "expected.json") cases.push_back(it->path().parent_path());
    std::sort(cases.begin(), cases.end());
    CHECK(!cases.empty());
    for (const auto& c : cases) {
        std::string name = c.filename().string();
        auto fails = check_case(c);
        if (deferred.count(name)) {
            MESSAGE(name << (fails.empty() ? ": passes (deferred case)" : ": deferred to the knowledge-breadth issue"));
            continue;
        }
        std::string all;
        for (const auto& f : fails) all += "\n    " + f;
        CHECK_MESSAGE(fails.empty(), c.string() << all);
    }
}

}  // namespace

TEST_CASE("corpus: shared torchrun-gloo cases (real runs)") {
    run_corpus(fs::path(DENPEX_SOURCE_DIR) / "tests/shared-corpus/torchrun-gloo", {});
}

TEST_CASE("corpus: torchrun-gloo failures are named as labelled") {
    // These cases label the failure in words only (no class_regex); each word label, read by hand, maps to one
    // knowledge entry.
    const std::map<std::string, std::string> expected = {
        {"2node-hang-rank2", "rank-hang-straggler"},        {"hang-rank2", "rank-hang-straggler"},
        {"2node-sigkill-rank1", "process-killed-sigkill"},  {"sigkill-rank1", "process-killed-sigkill"},
        {"dataloader-rank0", "dataloader-worker-killed"},   {"exception-rank1", "python-exception"},
        {"host-alloc-rank3", "host-memory-allocation-failure"}, {"segv-rank2-noprefix", "process-segfault"}};
    for (const auto& labelled : expected) {
        // Plain references, not a structured binding: clang 14 cannot capture those in doctest's lambdas.
        const std::string& name = labelled.first;
        const std::string& id = labelled.second;
        fs::path dir = fs::path(DENPEX_SOURCE_DIR) / "tests/shared-corpus/torchrun-gloo" / name;
        std::ifstream in(dir / "expected.json");
        json want = json::parse(in);
        denpex::DiagnoseInput input;
        for (const auto& f : want.at("files")) input.files.push_back({(dir / f.get<std::string>()).string(), f.get<std::string>()});
        denpex::Report report = engine().diagnose(input);
        REQUIRE_MESSAGE(!report.diagnoses.empty(), name);
        REQUIRE(report.diagnoses.front().failure);
        CHECK_MESSAGE(report.diagnoses.front().failure->id == id, name);
    }
}

TEST_CASE("corpus: shared modelled cases") {
    const std::set<std::string> deferred = {
        // The decisive lines (the CUDA error and "Process 1 terminated") are outside this excerpt; only the
        // issue's title names them, so no log reader can reach the labelled answer.
        "025-nvrx-elastic-glog-prefixed-device-busy"};
    run_corpus(fs::path(DENPEX_SOURCE_DIR) / "tests/shared-corpus/modelled", deferred);
}

TEST_CASE("corpus: denpex's own cases") {
    run_corpus(fs::path(DENPEX_SOURCE_DIR) / "tests/corpus", {});
}

TEST_CASE("corpus: reading the files of a case on several threads gives the same report as on one") {
    int compared = 0;
    for (auto it = fs::recursive_directory_iterator(fs::path(DENPEX_SOURCE_DIR) / "tests/corpus");
         it != fs::recursive_directory_iterator(); ++it) {
        if (it->path().filename() != "expected.json") continue;
        const fs::path dir = it->path().parent_path();
        std::ifstream in(it->path());
        json want = json::parse(in);
        if (want.at("files").size() < 2) continue;
        denpex::DiagnoseInput input;
        for (const auto& f : want.at("files")) input.files.push_back({(dir / f.get<std::string>()).string(), f.get<std::string>()});
        denpex::DiagnoseOptions serial, parallel;
        serial.parallel_min_bytes = UINT64_MAX;
        parallel.parallel_min_bytes = 0;
        parallel.max_threads = 3;   // split the files whatever this machine's core count
        const std::string one = denpex::to_json(engine().diagnose(input, serial)).dump();
        const std::string many = denpex::to_json(engine().diagnose(input, parallel)).dump();
        CHECK_MESSAGE(one == many, dir.string());
        ++compared;
    }
    CHECK(compared >= 10);
}
