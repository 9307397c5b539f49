// Typed params (errors name what was wrong), `denpex serve` options, URIs and knowledge links.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "engine/knowledge.hpp"
#include "server/dispatch/rpc_error.hpp"
#include "server/handlers/knowledge_links.hpp"
#include "server/options.hpp"
#include "server/protocol/json_params.hpp"
#include "server/protocol/uri.hpp"

using namespace denpex::server;
using nlohmann::json;

namespace {

std::string error_of(const std::function<void()>& fn) {
    try {
        fn();
    } catch (const RpcError& e) {
        CHECK(e.code() == error_code::invalid_params);
        return e.what();
    }
    return "(no error)";
}

}  // namespace

TEST_CASE("uinteger params: negatives, floats, huge numbers, booleans and strings are rejected by name") {
    const json p = json::parse(R"({"position": {"line": -1, "character": 1.5}, "a": 2147483648, "b": true, "c": "3",
                                   "d": 1e300, "e": 99999999999999999999999, "ok": 2147483647})");
    CHECK(error_of([&] { get_position(p, "position", "params"); }) ==
          "params.position.line must be an integer in [0, 2147483647], got -1");
    CHECK(error_of([&] { get_uinteger(p["position"], "character", "params.position"); }) ==
          "params.position.character must be an integer in [0, 2147483647], got 1.5");
    CHECK(error_of([&] { get_uinteger(p, "a", "params"); }).find("got 2147483648") != std::string::npos);
    CHECK(error_of([&] { get_uinteger(p, "b", "params"); }).find("got true") != std::string::npos);
    CHECK(error_of([&] { get_uinteger(p, "c", "params"); }).find("got a string") != std::string::npos);
    CHECK(error_of([&] { get_uinteger(p, "d", "params"); }).find("must be an integer") != std::string::npos);
    CHECK(error_of([&] { get_uinteger(p, "e", "params"); }).find("must be an integer") != std::string::npos);
    CHECK(error_of([&] { get_uinteger(p, "missing", "params"); }) ==
          "params.missing is missing (expected an integer in [0, 2147483647])");
    CHECK(get_uinteger(p, "ok", "params") == 2147483647u);
}

TEST_CASE("strings, objects, arrays of strings") {
    const json p = json::parse(R"({"s": 1, "o": [], "arr": ["a", 2], "td": {"uri": null}})");
    CHECK(error_of([&] { get_string(p, "s", "params"); }) == "params.s must be a string, got 1");
    CHECK(error_of([&] { get_object(p, "o", "params"); }) == "params.o must be an object, got an array");
    CHECK(error_of([&] { get_optional_string_array(p, "arr", "params"); }) == "params.arr[1] must be a string, got 2");
    CHECK(error_of([&] { get_text_document_uri(p); }) == "params.textDocument is missing (expected an object)");
    CHECK(error_of([&] { get_text_document_uri(json{{"textDocument", {{"uri", nullptr}}}}); }) ==
          "params.textDocument.uri is missing (expected a string)");
    CHECK(error_of([&] { require_object(json::array(), "params"); }) == "params must be an object, got an array");
    CHECK(get_optional_string_array(p, "nothing", "params").empty());
}

TEST_CASE("serve options: --stdio and --clientProcessId are accepted, numbers are strict") {
    ServeOptions o;
    CHECK_FALSE(parse_serve_options({"--stdio", "--clientProcessId=4242", "--log=debug", "--knowledge", "/k",
                                     "--knowledge=/k2", "--no-builtin-knowledge", "--threads", "3",
                                     "--max-message-bytes=2048", "--debounce-ms=0", "--progress-threshold=10"},
                                    o));
    CHECK(o.client_pid == 4242);
    CHECK(o.log_level == LogLevel::debug);
    CHECK(o.knowledge_dirs == std::vector<std::string>{"/k", "/k2"});
    CHECK_FALSE(o.builtin_knowledge);
    CHECK(o.threads == 3);
    CHECK(o.max_message_bytes == 2048);
    CHECK(o.debounce_ms == 0);
    CHECK(o.progress_threshold == 10);
    ServeOptions p;
    CHECK_FALSE(parse_serve_options({"--clientProcessId", "17"}, p));
    CHECK(p.client_pid == 17);
    for (std::vector<std::string> bad : std::vector<std::vector<std::string>>{
             {"--clientProcessId=abc"}, {"--clientProcessId=-1"}, {"--clientProcessId"}, {"--log=loud"},
             {"--threads=0"}, {"--threads=1e3"}, {"--max-message-bytes=10"}, {"--debounce-ms=99999999999999999999999"},
             {"--frobnicate"}, {"--stdio=yes"}, {"positional"}}) {
        ServeOptions q;
        CAPTURE(bad.front());
        CHECK(parse_serve_options(bad, q));
    }
}

TEST_CASE("file URIs and paths") {
    CHECK(uri_to_path("file:///home/u/run%201/rank_3.log") == "/home/u/run 1/rank_3.log");
    CHECK(uri_to_path("file://localhost/tmp/x") == "/tmp/x");
    CHECK(uri_to_path("FILE:///tmp/x#frag") == "/tmp/x");
    CHECK_FALSE(uri_to_path("untitled:Untitled-1"));
    CHECK_FALSE(uri_to_path("file://server/share/x"));
    CHECK_FALSE(uri_to_path("file:///tmp/a%00b"));
    CHECK(path_to_uri("/tmp/a b/é.log") == "file:///tmp/a%20b/%C3%A9.log");
    CHECK(uri_to_path(path_to_uri("/tmp/a b/é#?.log")) == "/tmp/a b/é#?.log");
    CHECK(uri_basename("file:///x/y/slurm-12_3.out") == "slurm-12_3.out");
    CHECK(uri_basename("untitled:Untitled-1") == "Untitled-1");
    CHECK(percent_decode("%zz%4") == "%zz%4");
}

TEST_CASE("knowledge entry references become URLs") {
    CHECK(source_url("https://pytorch.org/docs/stable/notes/cuda.html.") == "https://pytorch.org/docs/stable/notes/cuda.html");
    CHECK(source_url("pytorch/pytorch c10/cuda/CUDACachingAllocator.cpp (2.2+)") ==
          "https://github.com/pytorch/pytorch/blob/HEAD/c10/cuda/CUDACachingAllocator.cpp");
    CHECK_FALSE(source_url("observed in the field"));
    CHECK_FALSE(source_url("PyTorch docs on NCCL"));
    denpex::Entry e;
    e.sources = {"a note", "pytorch/pytorch torch/x.py", "see https://example.org/page"};
    CHECK(entry_reference(e) == "https://example.org/page");
    e.sources = {"nothing here"};
    CHECK_FALSE(entry_reference(e));
}
