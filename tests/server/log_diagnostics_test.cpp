// Log documents: the engine's Report mapped onto LSP diagnostics (initiating Error, collateral Information with
// relatedInformation), ranges in the negotiated encoding on non-ASCII lines, and hovers from the knowledge.
#include <algorithm>
#include <doctest/doctest.h>

#include <fstream>
#include <sstream>

#include "engine/engine.hpp"
#include "server/handlers/hover.hpp"
#include "server/handlers/log_diagnostics.hpp"

using namespace denpex::server;
using nlohmann::json;

namespace {

const denpex::Engine& test_engine() {
    static const denpex::Engine engine = [] {
        std::vector<std::string> problems;
        denpex::KnowledgeBase kb;
        kb.add_directory(std::string(DENPEX_SOURCE_DIR) + "/tests/protocol/knowledge", problems);
        REQUIRE(problems.empty());
        return denpex::Engine(std::move(kb));
    }();
    return engine;
}

std::string fixture(const std::string& name) {
    std::ifstream in(std::string(DENPEX_SOURCE_DIR) + "/tests/protocol/fixtures/" + name, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

std::size_t utf16_length(const std::string& s) {
    std::size_t n = 0;
    for (std::size_t i = 0; i < s.size(); ++i) {
        const unsigned char c = static_cast<unsigned char>(s[i]);
        if ((c & 0xC0) == 0x80) continue;
        n += c >= 0xF0 ? 2 : 1;
    }
    return n;
}

LogFindings findings(const std::string& text, const std::string& uri, PositionEncoding enc) {
    denpex::DiagnoseInput in;
    in.texts.emplace_back(uri, text);
    denpex::Report r = test_engine().diagnose(in);
    LineIndex lines(text);
    return log_findings(r, uri, lines, enc);
}

}  // namespace

TEST_CASE("the initiating line is an Error naming the failure and the rank; collateral lines point at it") {
    const std::string text = fixture("train_8ranks.log");
    const std::string uri = "file:///runs/train_8ranks.log";
    LogFindings f = findings(text, uri, PositionEncoding::utf16);
    REQUIRE(f.diagnostics.size() == 8);
    const json& e = f.diagnostics[0];
    CHECK(e["severity"] == 1);
    CHECK(e["code"] == "cuda-oom");
    CHECK(e["source"] == "denpex");
    CHECK(e["message"].get<std::string>().find("CUDA out of memory on rank 5") == 0);
    CHECK(e["codeDescription"]["href"] == "https://pytorch.org/docs/stable/notes/cuda.html#memory-management");
    CHECK(e["range"]["start"] == json{{"line", 33}, {"character", 0}});
    // The OOM line holds non-ASCII text: its end column is its length in UTF-16 code units.
    LineIndex lines(text);
    const std::string oom(lines.line(33));
    CHECK(e["range"]["end"]["character"] == utf16_length(oom));
    CHECK(e["range"]["end"]["character"] != oom.size());
    for (std::size_t i = 1; i < f.diagnostics.size(); ++i) {
        const json& c = f.diagnostics[i];
        CAPTURE(c.dump());
        CHECK(c["severity"] == 3);
        CHECK(c["code"] == "nccl-watchdog-timeout");
        CHECK(c["message"].get<std::string>().find("collateral: caused by rank 5's CUDA out of memory at line 34") == 0);
        CHECK(c["relatedInformation"][0]["location"]["uri"] == uri);
        CHECK(c["relatedInformation"][0]["location"]["range"] == e["range"]);
        CHECK(c["data"]["role"] == "collateral");
    }
    CHECK(f.notes.at(34).find("**initiating**") != std::string::npos);
    CHECK(f.notes.at(35).find("**collateral**") != std::string::npos);
}

TEST_CASE("UTF-8 ranges when negotiated") {
    const std::string text = fixture("train_8ranks.log");
    LogFindings f = findings(text, "file:///r.log", PositionEncoding::utf8);
    LineIndex lines(text);
    CHECK(f.diagnostics[0]["range"]["end"]["character"] == lines.line(33).size());
}

TEST_CASE("evidence in other inputs is not this document's; a clean log has no diagnostics") {
    const std::string text = fixture("train_8ranks.log");
    denpex::DiagnoseInput in;
    in.texts.emplace_back("file:///a.log", text);
    denpex::Report r = test_engine().diagnose(in);
    LineIndex lines(text);
    CHECK(log_findings(r, "file:///b.log", lines, PositionEncoding::utf16).diagnostics.empty());
    CHECK(findings("step 1 loss 2.0\nstep 2 loss 1.9\n", "file:///ok.log", PositionEncoding::utf16).diagnostics.empty());
}

TEST_CASE("hover: the entry's card, the signature's role and what the line is in this log") {
    const std::string oom = "[rank5]:RuntimeError: CUDA out of memory. Tried to allocate 3.12 GiB (GPU 5)";
    const std::string note = "In this log: **initiating** — rank 5's CUDA out of memory.";
    auto md = hover_text(test_engine().matcher(), oom, &note);
    REQUIRE(md);
    CHECK(md->find("**denpex: CUDA out of memory** (`cuda-oom`, signature `oom-allocator`)") == 0);
    CHECK(md->find("**initiating**") != std::string::npos);
    CHECK(md->find(note) != std::string::npos);
    CHECK(md->find("**What it is.**") != std::string::npos);
    CHECK(md->find("**Fix.**") != std::string::npos);
    CHECK(md->find("`denpex kb show cuda-oom`") != std::string::npos);
    // A card, not the entry: a handful of lines, no section headings.
    CHECK(std::count(md->begin(), md->end(), '\n') <= 12);
    CHECK(md->find("## ") == std::string::npos);
    auto watchdog = hover_text(test_engine().matcher(),
                               "\x1b[31m[rank2]:[E ProcessGroupNCCL.cpp:737] [Rank 2] Watchdog caught collective operation "
                               "timeout: WorkNCCL(SeqNum=9, OpType=ALLREDUCE, Timeout(ms)=600000) ran for 600013 ms\x1b[0m\r",
                               nullptr);
    REQUIRE(watchdog);   // ANSI colours and the CR are normalised away before matching
    CHECK(watchdog->find("**collateral**") != std::string::npos);
    CHECK_FALSE(hover_text(test_engine().matcher(), "step 10 loss 2.0", nullptr));
    CHECK_FALSE(hover_text(test_engine().matcher(), "", nullptr));
}
