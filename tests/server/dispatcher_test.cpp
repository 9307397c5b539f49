// Dispatcher: JSON-RPC 2.0 routing, errors, lifecycle gates, reply-exactly-once and cancellation.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "server/dispatch/dispatcher.hpp"
#include "server/dispatch/rpc_error.hpp"
#include "server/protocol/lsp_types.hpp"
#include "test_support.hpp"

using namespace denpex::server;
using denpex::server::testing::RecordingOutbox;
using nlohmann::json;

namespace {

struct Fixture {
    RecordingOutbox out;
    Dispatcher d{out};
    int exit_code = -1;
    std::vector<Reply> parked;   // replies a handler keeps for later

    Fixture() {
        d.on_exit([this](int c) { exit_code = c; });
        d.on_request("initialize", [](const json&, Reply r) { r.result({{"capabilities", json::object()}}); });
        d.on_request("echo", [](const json& p, Reply r) { r.result(p); });
        d.on_request("park", [this](const json&, Reply r) { parked.push_back(r); });
        d.on_request("bad", [](const json&, Reply) { throw RpcError(error_code::invalid_params, "params.x must be a string"); });
        d.on_request("boom", [](const json&, Reply) { throw std::runtime_error("kaput"); });
        d.on_request("drop", [](const json&, Reply) {});
        // Answers only when the client answers the server's own request (like workspace/applyEdit).
        d.on_request("ask", [this](const json&, Reply r) {
            d.call("workspace/applyEdit", json::object(), [r](const json* result, const json* error) {
                if (error) r.error(error->value("code", 0), error->value("message", ""));
                else r.result(*result);
            }, r.cancel_token());
        });
        d.on_request("twice", [](const json&, Reply r) {
            r.result(1);
            r.result(2);
        });
    }
    void send(const json& m) { d.handle(m.dump()); }
    void init() {
        send({{"jsonrpc", "2.0"}, {"id", 0}, {"method", "initialize"}, {"params", json::object()}});
        out.take();
    }
    json request(const json& id, const std::string& method, const json& params = json::object()) {
        send({{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", params}});
        auto sent = out.take();
        REQUIRE(sent.size() == 1);
        return sent[0];
    }
};

int code_of(const json& m) { return m.at("error").at("code").get<int>(); }

}  // namespace

TEST_CASE("unparseable JSON gets ParseError with a null id, and the next message is served") {
    Fixture f;
    f.d.handle("{\"jsonrpc\": \"2.0\", \"id\": 1, ");
    auto sent = f.out.take();
    REQUIRE(sent.size() == 1);
    CHECK(code_of(sent[0]) == error_code::parse_error);
    CHECK(sent[0]["id"].is_null());
    f.d.handle("");
    CHECK(code_of(f.out.take().at(0)) == error_code::parse_error);
    CHECK(f.request(1, "initialize").contains("result"));
}

TEST_CASE("a number too large for a double is a ParseError, not an exception out of handle() (fuzz regression)") {
    Fixture f;
    // nlohmann reports the overflow as out_of_range (406), not parse_error; it once ended `denpex serve` (SIGABRT).
    for (const char* body : {R"({"jsonrpc":"2.0","id":2,"method":"echo","params":1e999})",
                             "{\"jsonrpc\":22000000000000e00006845944chan445032522639\"method\":\"textDic\"c\"\"\"wX<file:\x01/workid\":\"\"?:\"big\"}}",
                             R"({"jsonrpc":"2.0","id":3,"method":"echo","params":{"n":-1e400}})"}) {
        INFO(body);
        CHECK_NOTHROW(f.d.handle(body));
        auto sent = f.out.take();
        REQUIRE(sent.size() == 1);
        CHECK(code_of(sent[0]) == error_code::parse_error);
        CHECK(sent[0]["id"].is_null());
    }
    CHECK(f.request(1, "initialize").contains("result"));
}

TEST_CASE("messages that are not JSON-RPC 2.0 requests get InvalidRequest") {
    Fixture f;
    f.init();
    for (std::string bad : {"[]", "[1,2]", "42", "\"x\"", "null", R"({"id":1,"method":"echo"})",
                            R"({"jsonrpc":"1.0","id":1,"method":"echo"})", R"({"jsonrpc":"2.0","id":1})",
                            R"({"jsonrpc":"2.0","id":{"a":1},"method":"echo"})", R"({"jsonrpc":"2.0","id":1.5,"method":"echo"})",
                            R"({"jsonrpc":"2.0","id":true,"method":"echo"})", R"({"jsonrpc":"2.0","id":1,"method":7})"}) {
        CAPTURE(bad);
        f.d.handle(bad);
        auto sent = f.out.take();
        REQUIRE(sent.size() == 1);
        CHECK(code_of(sent[0]) == error_code::invalid_request);
    }
}

TEST_CASE("ids are echoed with their type; params that are not structured are InvalidParams") {
    Fixture f;
    f.init();
    CHECK(f.request("abc", "echo", {{"x", 1}})["id"] == "abc");
    CHECK(f.request(-7, "echo")["id"] == -7);
    CHECK(f.request(9007199254740993LL, "echo")["id"] == 9007199254740993LL);
    f.d.handle(R"({"jsonrpc":"2.0","id":5,"method":"echo","params":3})");
    auto sent = f.out.take();
    CHECK(code_of(sent.at(0)) == error_code::invalid_params);
    CHECK(sent[0]["id"] == 5);
}

TEST_CASE("before initialize: requests get ServerNotInitialized, notifications are dropped, exit works") {
    Fixture f;
    CHECK(code_of(f.request(1, "echo")) == error_code::server_not_initialized);
    CHECK(code_of(f.request(2, "shutdown")) == error_code::server_not_initialized);
    f.send({{"jsonrpc", "2.0"}, {"method", "textDocument/didOpen"}, {"params", json::object()}});
    CHECK(f.out.take().empty());
    f.send({{"jsonrpc", "2.0"}, {"method", "exit"}});
    CHECK(f.exit_code == 1);
    CHECK(f.d.phase() == Dispatcher::Phase::exited);
}

TEST_CASE("initialize only once; unknown methods are MethodNotFound, $/ requests included") {
    Fixture f;
    f.init();
    CHECK(code_of(f.request(1, "initialize")) == error_code::invalid_request);
    json r = f.request(2, "no/such/method");
    CHECK(code_of(r) == error_code::method_not_found);
    CHECK(r["error"]["message"].get<std::string>().find("no/such/method") != std::string::npos);
    CHECK(code_of(f.request(3, "$/unknownRequest")) == error_code::method_not_found);
    // Unknown notifications are ignored silently.
    f.send({{"jsonrpc", "2.0"}, {"method", "$/unknown"}, {"params", json::object()}});
    f.send({{"jsonrpc", "2.0"}, {"method", "custom/notification"}});
    CHECK(f.out.take().empty());
}

TEST_CASE("handler errors: RpcError keeps its code (InvalidParams names the method), others are InternalError") {
    Fixture f;
    f.init();
    json r = f.request(1, "bad");
    CHECK(code_of(r) == error_code::invalid_params);
    CHECK(r["error"]["message"] == "bad: params.x must be a string");
    CHECK(code_of(f.request(2, "boom")) == error_code::internal_error);
}

TEST_CASE("every request is answered exactly once") {
    Fixture f;
    f.init();
    json r = f.request(1, "twice");
    CHECK(r["result"] == 1);   // the second result was dropped
    CHECK(code_of(f.request(2, "drop")) == error_code::internal_error);   // a dropped Reply still answers
    f.send({{"jsonrpc", "2.0"}, {"id", 3}, {"method", "park"}});
    CHECK(f.out.take().empty());
    f.parked.at(0).result("late");
    auto sent = f.out.take();
    REQUIRE(sent.size() == 1);
    CHECK(sent[0]["result"] == "late");
    f.parked.at(0).error(1, "again");
    CHECK(f.out.take().empty());
}

TEST_CASE("$/cancelRequest raises the running request's flag; unknown ids are ignored") {
    Fixture f;
    f.init();
    f.send({{"jsonrpc", "2.0"}, {"id", "job"}, {"method", "park"}});
    f.send({{"jsonrpc", "2.0"}, {"id", 7}, {"method", "park"}});
    REQUIRE(f.parked.size() == 2);
    f.send({{"jsonrpc", "2.0"}, {"method", "$/cancelRequest"}, {"params", {{"id", "job"}}}});
    f.send({{"jsonrpc", "2.0"}, {"method", "$/cancelRequest"}, {"params", {{"id", 999}}}});
    f.send({{"jsonrpc", "2.0"}, {"method", "$/cancelRequest"}, {"params", {{"id", "7"}}}});   // a string is not 7
    CHECK(f.parked[0].cancelled());
    CHECK_FALSE(f.parked[1].cancelled());
    f.parked[0].error(error_code::request_cancelled, "cancelled");
    CHECK(code_of(f.out.take().at(0)) == error_code::request_cancelled);
    // Answered requests are forgotten: cancelling them later does nothing.
    f.send({{"jsonrpc", "2.0"}, {"method", "$/cancelRequest"}, {"params", {{"id", "job"}}}});
    f.parked[1].result(nullptr);
}

TEST_CASE("shutdown: null result, later requests InvalidRequest, running work cancelled, exit code 0") {
    Fixture f;
    f.init();
    f.send({{"jsonrpc", "2.0"}, {"id", 1}, {"method", "park"}});
    json r = f.request(2, "shutdown");
    CHECK(r.contains("result"));
    CHECK(r["result"].is_null());
    CHECK(f.parked.at(0).cancelled());
    CHECK(code_of(f.request(3, "echo")) == error_code::invalid_request);
    CHECK(code_of(f.request(4, "shutdown")) == error_code::invalid_request);
    f.parked[0].error(error_code::request_cancelled, "cancelled");
    f.out.take();
    f.send({{"jsonrpc", "2.0"}, {"method", "exit"}});
    CHECK(f.exit_code == 0);
    // After exit nothing is processed.
    f.send({{"jsonrpc", "2.0"}, {"id", 5}, {"method", "echo"}});
    CHECK(f.out.take().empty());
}

TEST_CASE("exit without shutdown ends with code 1; stop() behaves the same") {
    Fixture a;
    a.init();
    a.send({{"jsonrpc", "2.0"}, {"method", "exit"}});
    CHECK(a.exit_code == 1);
    Fixture b;
    b.init();
    b.request(1, "shutdown");
    b.d.stop("input closed");
    CHECK(b.exit_code == 0);
}

TEST_CASE("server-to-client calls: the response reaches its callback once; unknown responses are ignored") {
    Fixture f;
    f.init();
    int calls = 0;
    json got;
    f.d.call("window/workDoneProgress/create", {{"token", "t"}}, [&](const json* result, const json* error) {
        ++calls;
        got = result ? *result : json("error: " + error->dump());
    });
    auto sent = f.out.take();
    REQUIRE(sent.size() == 1);
    const json id = sent[0]["id"];
    CHECK(sent[0]["method"] == "window/workDoneProgress/create");
    f.send({{"jsonrpc", "2.0"}, {"id", id}, {"result", nullptr}});
    f.send({{"jsonrpc", "2.0"}, {"id", id}, {"result", nullptr}});
    f.send({{"jsonrpc", "2.0"}, {"id", 12345}, {"error", {{"code", 1}, {"message", "x"}}}});
    CHECK(calls == 1);
    CHECK(got.is_null());
    CHECK(f.out.take().empty());
}

TEST_CASE("a request waiting on a client that never answers is answered once: on cancel, shutdown or exit") {
    auto responses_to = [](const std::vector<json>& sent, const json& id) {
        int n = 0;
        for (const auto& m : sent) n += m.contains("id") && m["id"] == id && !m.contains("method");
        return n;
    };
    for (const char* ending : {"cancel", "shutdown", "exit", "broken-json-then-cancel"}) {
        CAPTURE(ending);
        Fixture f;
        f.init();
        f.send({{"jsonrpc", "2.0"}, {"id", "q"}, {"method", "ask"}});
        std::vector<json> sent = f.out.take();
        REQUIRE(sent.size() == 1);
        const json call_id = sent[0]["id"];
        CHECK(sent[0]["method"] == "workspace/applyEdit");
        CHECK(responses_to(sent, "q") == 0);
        if (std::string(ending) == "broken-json-then-cancel") {
            f.d.handle("{\"jsonrpc\": \"2.0\", \"id\": " + call_id.dump() + ", \"result\": {");   // a broken answer
            auto parse_error = f.out.take();
            CHECK(responses_to(parse_error, "q") == 0);
        }
        if (std::string(ending) == "shutdown") f.send({{"jsonrpc", "2.0"}, {"id", 2}, {"method", "shutdown"}});
        else if (std::string(ending) == "exit") f.send({{"jsonrpc", "2.0"}, {"method", "exit"}});
        else f.send({{"jsonrpc", "2.0"}, {"method", "$/cancelRequest"}, {"params", {{"id", "q"}}}});
        sent = f.out.take();
        REQUIRE(responses_to(sent, "q") == 1);
        for (const auto& m : sent)
            if (m.contains("id") && m["id"] == "q") CHECK(code_of(m) == error_code::request_cancelled);
        // The client's late answer reaches nobody: no second reply.
        f.send({{"jsonrpc", "2.0"}, {"id", call_id}, {"result", {{"applied", true}}}});
        CHECK(responses_to(f.out.take(), "q") == 0);
    }
}

TEST_CASE("invalid UTF-8 inside a message is replaced, not a parse error") {
    Fixture f;
    f.init();
    f.d.handle(std::string("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"echo\",\"params\":{\"t\":\"a\xff\xfe") + "b\"}}");
    auto sent = f.out.take();
    REQUIRE(sent.size() == 1);
    CHECK(sent[0]["result"]["t"] == "a\xEF\xBF\xBD\xEF\xBF\xBD" "b");
}

TEST_CASE("a notification sent as a request is refused") {
    Fixture f;
    f.init();
    CHECK(code_of(f.request(1, "exit")) == error_code::invalid_request);
    CHECK(f.exit_code == -1);
}
