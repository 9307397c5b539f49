// Partial models (engine/partial_model.hpp, engine/timeline_merge.hpp): every multi-file corpus case read as
// one partial per node and merged gives the single-machine report; merging is associative; a partial that is
// broken, cut off, of another version or written with other knowledge is refused in one line, never a crash.
#include <doctest/doctest.h>

#include "embedded_engine.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "engine/partial_model.hpp"
#include "engine/path_hints.hpp"
#include "engine/report.hpp"
#include "engine/timeline_conclude.hpp"
#include "engine/timeline_merge.hpp"

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

const denpex::PartialCodec& codec() {
    static const denpex::PartialCodec c(engine().knowledge());
    return c;
}

struct CorpusCase {
    fs::path dir;
    std::vector<denpex::InputFile> files;   // in expected.json's order, as the corpus test reads them
};

std::vector<CorpusCase> multi_file_cases() {
    std::vector<CorpusCase> out;
    for (const char* root : {"tests/corpus", "tests/shared-corpus"}) {
        for (auto it = fs::recursive_directory_iterator(fs::path(DENPEX_SOURCE_DIR) / root);
             it != fs::recursive_directory_iterator(); ++it) {
            if (it->path().filename() != "expected.json") continue;
            std::ifstream in(it->path());
            const json want = json::parse(in);
            if (want.at("files").size() < 2) continue;
            CorpusCase c{it->path().parent_path(), {}};
            for (const auto& f : want.at("files"))
                c.files.push_back({(c.dir / f.get<std::string>()).string(), f.get<std::string>()});
            out.push_back(std::move(c));
        }
    }
    std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.dir < b.dir; });
    return out;
}

// The files one machine would hold: a torchrun --log_dir tree (one node_key) stays together, any other file is
// its own machine. Contiguous runs, in reading order.
std::vector<std::vector<denpex::InputFile>> per_node(const std::vector<denpex::InputFile>& files) {
    std::vector<std::vector<denpex::InputFile>> runs;
    std::string previous;
    for (const auto& f : files) {
        const std::string node = denpex::path_hints(f.path).node_key;
        if (runs.empty() || node.empty() || node != previous) runs.emplace_back();
        runs.back().push_back(f);
        previous = node;
    }
    return runs;
}

// What `denpex scan --partial` does on one machine, through the file format and back.
denpex::Timeline scanned(const std::vector<denpex::InputFile>& files) {
    denpex::DiagnoseInput input;
    input.files = files;
    const std::string text = codec().encode(engine().collect(input), {"test-host", "denpex test"});
    denpex::DecodedPartial d = codec().decode(text);
    REQUIRE_MESSAGE(d.timeline, d.error);
    return std::move(*d.timeline);
}

// The report as JSON, its warnings sorted: a partial's warnings follow its own inputs, not all inputs' at the end.
json comparable(const denpex::Report& r) {
    json j = denpex::to_json(r);
    std::sort(j["warnings"].begin(), j["warnings"].end());
    return j;
}

std::string verdict(const json& report) {
    if (report["diagnoses"].empty()) return "no diagnosis";
    const json& d = report["diagnoses"][0];
    return "undetermined=" + d["undetermined"].dump() + " rank=" + d["initiating"]["rank"].dump() +
           " failure=" + (d["failure"].is_null() ? "null" : d["failure"]["id"].dump()) + " confidence=" +
           d["confidence"].dump();
}

std::string encoded_merge(std::vector<denpex::Timeline> parts) {
    denpex::Timeline t = std::move(parts.front());
    for (std::size_t i = 1; i < parts.size(); ++i) denpex::merge_timeline(t, std::move(parts[i]));
    return codec().encode(t, {});
}

}  // namespace

TEST_CASE("partial: every multi-file corpus case merged from per-node partials gives the single-machine report") {
    int split = 0;
    for (const CorpusCase& c : multi_file_cases()) {
        const auto nodes = per_node(c.files);
        if (nodes.size() < 2) continue;
        denpex::DiagnoseInput whole, merged;
        whole.files = c.files;
        for (const auto& node : nodes) merged.partials.push_back(scanned(node));
        const json one = comparable(engine().diagnose(whole));
        const json many = comparable(engine().diagnose(merged));
        CHECK_MESSAGE(verdict(one) == verdict(many), c.dir.string());
        const bool same = one == many;   // (a bool, so that a failure prints the verdicts, not two whole reports)
        CHECK_MESSAGE(same, c.dir.string() << "\n  single: " << verdict(one) << "\n  merged: " << verdict(many));
        ++split;
    }
    CHECK(split >= 40);   // 52 multi-file cases when this was written; a few are one node's tree
}

TEST_CASE("partial: partials beside raw logs give the single-machine report") {
    int compared = 0;
    for (const CorpusCase& c : multi_file_cases()) {
        const auto nodes = per_node(c.files);
        if (nodes.size() < 2) continue;
        denpex::DiagnoseInput whole, mixed;
        whole.files = c.files;
        mixed.files = nodes.front();   // read here; the other nodes' logs arrive as partials
        for (std::size_t i = 1; i < nodes.size(); ++i) mixed.partials.push_back(scanned(nodes[i]));
        const bool same = comparable(engine().diagnose(whole)) == comparable(engine().diagnose(mixed));
        CHECK_MESSAGE(same, c.dir.string());
        if (++compared == 12) break;
    }
    CHECK(compared == 12);
}

TEST_CASE("partial: merging is associative") {
    int cases = 0;
    for (const CorpusCase& c : multi_file_cases()) {
        if (c.files.size() < 3) continue;
        // Three shares of the inputs (a node's tree may be split here: associativity does not need whole nodes).
        const std::size_t third = c.files.size() / 3;
        std::vector<denpex::InputFile> a(c.files.begin(), c.files.begin() + static_cast<long>(third));
        std::vector<denpex::InputFile> b(c.files.begin() + static_cast<long>(third),
                                         c.files.begin() + static_cast<long>(2 * third));
        std::vector<denpex::InputFile> rest(c.files.begin() + static_cast<long>(2 * third), c.files.end());
        const denpex::Timeline A = scanned(a), B = scanned(b), C = scanned(rest);
        denpex::Timeline ab = A;
        denpex::merge_timeline(ab, denpex::Timeline(B));
        denpex::Timeline bc = B;
        denpex::merge_timeline(bc, denpex::Timeline(C));
        const std::string left = encoded_merge({ab, C});
        const std::string right = encoded_merge({A, bc});
        CHECK_MESSAGE(left == right, c.dir.string());
        CHECK_MESSAGE(left == encoded_merge({A, B, C}), c.dir.string());
        ++cases;
    }
    CHECK(cases >= 10);
}

TEST_CASE("partial: a partial read back and written again is the same file") {
    for (const CorpusCase& c : multi_file_cases()) {
        denpex::DiagnoseInput input;
        input.files = c.files;
        const std::string first = codec().encode(engine().collect(input), {"h", "w"});
        const denpex::DecodedPartial d = codec().decode(first);
        REQUIRE_MESSAGE(d.timeline, c.dir.string() << ": " << d.error);
        CHECK(d.origin.host == "h");
        CHECK_MESSAGE(codec().encode(*d.timeline, {"h", "w"}) == first, c.dir.string());
        CHECK(denpex::looks_like_partial(first));
    }
}

TEST_CASE("partial: broken, cut-off, other-version and other-knowledge partials are refused in one line") {
    denpex::DiagnoseInput input;
    input.files = {{(fs::path(DENPEX_SOURCE_DIR) / "tests/corpus/example-oom-watchdog/node0.log").string(), "node0.log"},
                   {(fs::path(DENPEX_SOURCE_DIR) / "tests/corpus/example-oom-watchdog/node1.log").string(), "node1.log"}};
    const std::string good = codec().encode(engine().collect(input), {"h", "w"});
    REQUIRE(codec().decode(good).timeline);
    auto refused = [](const std::string& text) {
        const denpex::DecodedPartial d = codec().decode(text);
        CHECK(!d.timeline);
        CHECK(!d.error.empty());
        CHECK(d.error.find('\n') == std::string::npos);
        return d.error;
    };
    SUBCASE("cut off anywhere") {
        for (std::size_t n = 0; n + 1 < good.size(); n += 1 + good.size() / 97) refused(good.substr(0, n));
    }
    SUBCASE("another format version") {
        json j = json::parse(good);
        j["version"] = 2;
        CHECK(refused(j.dump()).find("format version 2") != std::string::npos);
    }
    SUBCASE("not a partial") {
        CHECK(refused(R"({"format":"something-else","version":1})").find("not a denpex partial") != std::string::npos);
        refused("[1,2,3]");
        refused("");
    }
    SUBCASE("other knowledge: another digest, or a signature this knowledge lacks") {
        json j = json::parse(good);
        j["knowledge"] = "fnv1a64:0000000000000000";
        CHECK(refused(j.dump()).find("other knowledge") != std::string::npos);
        j = json::parse(good);
        REQUIRE(!j["signatures"].empty());
        j["signatures"][0][1] = "no-such-signature";
        CHECK(refused(j.dump()).find("no-such-signature") != std::string::npos);
        j = json::parse(good);
        j["signatures"][0][2] = 9999;   // the signature's place in its entry
        CHECK(refused(j.dump()).find("not in this denpex's knowledge") != std::string::npos);
        j = json::parse(good);
        j["signatures"][0][0] = "no-such-entry";
        CHECK(refused(j.dump()).find("no-such-entry") != std::string::npos);
    }
    SUBCASE("indices and numbers out of range") {
        json j = json::parse(good);
        j["events"][0]["src"] = 1000000;
        CHECK(refused(j.dump()).find("past its table") != std::string::npos);
        j = json::parse(good);
        j["events"][0]["k"][0] = 99;
        refused(j.dump());
        j = json::parse(good);
        j["events"][0]["k"][1] = 1LL << 40;   // no int rank
        refused(j.dump());
        j = json::parse(good);
        j["counts"][0] = -1;
        refused(j.dump());
        j = json::parse(good);
        j["events"][0]["sig"] = "0";
        refused(j.dump());
    }
    SUBCASE("any byte changed: refused or read, never a crash") {
        int read = 0;
        for (std::size_t i = 0; i < good.size(); i += 1 + good.size() / 301) {
            for (char c : {'\0', '9', '"', '}', '-', 'x'}) {
                std::string bad = good;
                bad[i] = c;
                const denpex::DecodedPartial d = codec().decode(bad);
                CHECK((d.timeline.has_value() != !d.error.empty()));
                read += d.timeline.has_value();
            }
        }
        MESSAGE(read << " mutated partials were still well-formed");
    }
}

TEST_CASE("partial: the merged world size, node counts and srun task hosts are those of one reader") {
    // Facts the Collector keeps as "largest" or "last": split across two partials, they merge as one reader
    // keeps them (the parallel merge once dropped the node counts and kept srun's first task host).
    denpex::DiagnoseInput first, second, both;
    first.texts = {{"a.log", "torchrun --nnodes=2 --nproc_per_node=2 train.py\n"
                             "srun: error: node-a: task 1: Out Of Memory\n"}};
    second.texts = {{"b.log", "srun: error: node-b: task 1: Out Of Memory\n"}};
    both.texts = {first.texts[0], second.texts[0]};
    denpex::Timeline merged = engine().collect(first);
    denpex::merge_timeline(merged, engine().collect(second));
    const denpex::Timeline one = engine().collect(both);
    CHECK(merged.nodes_stated == one.nodes_stated);
    CHECK(merged.topology.task_hosts == one.topology.task_hosts);
    CHECK(codec().encode(merged, {}) == codec().encode(one, {}));
}
