// LogJobs (which open log documents are one job) and the moving JSON parse of message bodies.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "server/handlers/log_jobs.hpp"
#include "server/protocol/json_parse.hpp"

using namespace denpex::server;
using nlohmann::json;

TEST_CASE("a log document's job is its folder, or its own when it has none") {
    LogJobs jobs;
    CHECK(uri_folder("file:///runs/42/node0.log") == "file:///runs/42/");
    CHECK(uri_folder("file:///runs/42/node0.log?x=a/b") == "file:///runs/42/");
    CHECK(uri_folder("untitled:Untitled-1").empty());
    CHECK(jobs.job_of("file:///runs/42/node0.log") == jobs.job_of("file:///runs/42/node1.log"));
    CHECK(jobs.job_of("file:///runs/42/node0.log") != jobs.job_of("file:///runs/43/node1.log"));
    CHECK(jobs.job_of("untitled:Untitled-1") != jobs.job_of("untitled:Untitled-2"));
    const std::vector<std::string> open = {"file:///r/b.log", "file:///s/c.log", "file:///r/a.log"};
    CHECK(jobs.members(jobs.job_of("file:///r/a.log"), open) == std::vector<std::string>{"file:///r/a.log", "file:///r/b.log"});
}

TEST_CASE("marking documents as one job takes them out of their folders; unmarking puts them back") {
    LogJobs jobs;
    const std::string a = "file:///a/node0.log", b = "file:///b/node1.log", a2 = "file:///a/node2.log";
    const std::string folder_a = jobs.job_of(a), folder_b = jobs.job_of(b);
    const auto left = jobs.mark({a, b});
    CHECK(left == std::vector<std::string>{folder_a, folder_b});   // both folders lost a member: diagnose them again
    CHECK(jobs.job_of(a) == jobs.job_of(b));
    CHECK(jobs.job_of(a2) == folder_a);                             // the rest of the folder stays there
    CHECK(jobs.members(jobs.job_of(a), {a, b, a2}) == std::vector<std::string>{a, b});
    // Unmarking one dissolves the mark: a one-document mark is no job.
    jobs.mark({a});
    CHECK(jobs.job_of(a) == folder_a);
    CHECK(jobs.job_of(b) == folder_b);
}

TEST_CASE("the moving parse gives what json::parse gives, and says where a body is not JSON") {
    const std::string body =
        R"({"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"file:///a.log",)"
        R"("text":"line 1\nline \u00e9 2\n","version":3,"n":[1,-2,3.5,true,null,{"k":"v","k":"w"}]}}})";
    json moved;
    std::string error;
    REQUIRE(parse_message_json(body, moved, error));
    CHECK(moved == json::parse(body));
    CHECK(moved["params"]["textDocument"]["n"][5]["k"] == "w");   // a duplicate key: the last wins, as json::parse

    for (const std::string bad : {"{\"a\": ", "", "[1, 2] x", "{\"a\": 1e999}", "{\"a\": \"\\ud800\"}"}) {
        json out = 7;
        CHECK_FALSE(parse_message_json(bad, out, error));
        CHECK(out.is_null());
        CHECK_FALSE(error.empty());
    }
}

TEST_CASE("a large body's big string is unescaped in place: the same tree as json::parse, or the ordinary way") {
    // A didOpen of a 2 MB text with every escape JSON has, a surrogate pair and raw UTF-8.
    std::string text;
    while (text.size() < (2u << 20))
        text += "[rank5]:\t\"RuntimeError\": CUDA out of memory \\ path/x \u00e9 \U0001F600 \x01 end\r\n";
    const json message = {{"jsonrpc", "2.0"}, {"method", "textDocument/didOpen"},
                          {"params", {{"textDocument", {{"uri", "file:///a.log"}, {"languageId", "log"}, {"text", text}}}}}};
    std::string body = message.dump();
    json out;
    std::string error;
    REQUIRE(parse_message_json_owned(body, out, error));
    CHECK(out == message);
    CHECK(out["params"]["textDocument"]["text"].get_ref<const std::string&>() == text);

    // "\/" and "\u" escapes nlohmann's dump does not write.
    std::string big(3u << 20, 'x');
    std::string escaped = R"({"a":[1,{"t":")" + big + R"(\/\u00e9\ud83d\ude00\u0041"}]})";
    REQUIRE(parse_message_json_owned(escaped, out, error));
    CHECK(out["a"][1]["t"] == big + "/\u00e9\U0001F600A");

    // What the in-place path does not take goes the ordinary way, with the ordinary answer.
    for (std::string bad : {R"({"t":")" + big + "\x01" + R"("})",              // a raw control character
                            R"({"t":")" + big + R"(\ud800x"})",                // a lone surrogate
                            R"({"t":")" + big + R"("} trailing)"}) {            // not one value
        json o;
        CHECK_FALSE(parse_message_json_owned(bad, o, error));
        CHECK(o.is_null());
    }
    std::string big_key = R"({")" + big + R"(":1})";
    REQUIRE(parse_message_json_owned(big_key, out, error));
    CHECK(out[big] == 1);
}
