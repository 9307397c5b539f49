// The whole server in-process, on a deterministic executor: negotiation, debounced log diagnostics,
// cancellation, work-done progress, hover, code actions and commands.
#include <doctest/doctest.h>

#include <fstream>
#include <sstream>

#include "engine/engine.hpp"
#include "server/dispatch/dispatcher.hpp"
#include "server/handlers/language_server.hpp"
#include "server/protocol/lsp_types.hpp"
#include "test_support.hpp"

using namespace denpex::server;
using denpex::server::testing::ManualExecutor;
using denpex::server::testing::RecordingOutbox;
using nlohmann::json;
using namespace std::chrono_literals;

namespace {

const denpex::Engine& engine() {
    static const denpex::Engine e = [] {
        std::vector<std::string> problems;
        denpex::KnowledgeBase kb;
        kb.add_directory(std::string(DENPEX_SOURCE_DIR) + "/tests/protocol/knowledge", problems);
        return denpex::Engine(std::move(kb));
    }();
    return e;
}

std::string fixture(const std::string& name) {
    std::ifstream in(std::string(DENPEX_SOURCE_DIR) + "/tests/protocol/fixtures/" + name, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

struct Session {
    RecordingOutbox out;
    ManualExecutor exec;
    ServeOptions opts;
    std::unique_ptr<LanguageServer> server;
    int next_id = 100;

    explicit Session(json capabilities = json::object(), std::uint64_t progress_threshold = 4u << 20) {
        opts.builtin_knowledge = false;
        opts.progress_threshold = progress_threshold;
        server = std::make_unique<LanguageServer>(engine(), opts, exec, out);
        send({{"jsonrpc", "2.0"}, {"id", 1}, {"method", "initialize"},
              {"params", {{"processId", nullptr}, {"capabilities", capabilities}}}});
        send({{"jsonrpc", "2.0"}, {"method", "initialized"}, {"params", json::object()}});
    }
    ~Session() {
        server->cancel_all();
        exec.run();
    }
    void send(const json& m) { server->handle(m.dump()); }
    void notify(const std::string& method, const json& params) {
        send({{"jsonrpc", "2.0"}, {"method", method}, {"params", params}});
    }
    int request(const std::string& method, const json& params) {
        const int id = next_id++;
        send({{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", params}});
        return id;
    }
    json response(int id) {
        auto r = out.with("id", id);
        REQUIRE(r.size() == 1);
        return r[0];
    }
    std::vector<json> published(const std::string& uri) {
        std::vector<json> out_;
        for (const auto& m : out.with("method", "textDocument/publishDiagnostics"))
            if (m["params"]["uri"] == uri) out_.push_back(m["params"]);
        return out_;
    }
    void open(const std::string& uri, const std::string& lang, const std::string& text, int version = 1) {
        notify("textDocument/didOpen",
               {{"textDocument", {{"uri", uri}, {"languageId", lang}, {"version", version}, {"text", text}}}});
    }
};

}  // namespace

TEST_CASE("initialize: capabilities, and UTF-8 positions only when the client offers them") {
    Session plain;
    json caps = plain.response(1)["result"]["capabilities"];
    CHECK(caps["positionEncoding"] == "utf-16");
    CHECK(caps["hoverProvider"] == true);
    CHECK(caps["textDocumentSync"]["change"] == 2);
    CHECK(caps["codeActionProvider"] == true);
    CHECK(caps["executeCommandProvider"]["commands"] ==
          json::array({"denpex.server.insertAsyncErrorHandling", "denpex.server.diagnose", "denpex.server.markJob"}));
    Session utf8(json{{"general", {{"positionEncodings", {"utf-16", "utf-8"}}}},
                  {"textDocument", {{"codeAction", {{"codeActionLiteralSupport", json::object()}}}}}});
    json caps8 = utf8.response(1)["result"]["capabilities"];
    CHECK(caps8["positionEncoding"] == "utf-8");
    CHECK(caps8["codeActionProvider"]["codeActionKinds"] == json::array({"quickfix"}));
    Session only16(json{{"general", {{"positionEncodings", {"utf-16", "utf-32"}}}}});
    CHECK(only16.response(1)["result"]["capabilities"]["positionEncoding"] == "utf-16");
}

TEST_CASE("log documents: diagnosed on open; rapid changes are debounced into one diagnosis of the last version") {
    Session s;
    const std::string uri = "file:///runs/train.log";
    const std::string text = fixture("train_8ranks.log");
    s.open(uri, "log", text);
    CHECK(s.published(uri).empty());   // scheduled, not run inline
    s.exec.advance(0ms);
    auto pub = s.published(uri);
    REQUIRE(pub.size() == 1);
    CHECK(pub[0]["version"] == 1);
    CHECK(pub[0]["diagnostics"].size() == 8);

    for (int v = 2; v <= 5; ++v) {
        s.notify("textDocument/didChange", {{"textDocument", {{"uri", uri}, {"version", v}}},
                                            {"contentChanges", {{{"text", text + "more line " + std::to_string(v) + "\n"}}}}});
        s.exec.advance(100ms);
    }
    CHECK(s.published(uri).size() == 1);   // still typing: nothing ran
    s.exec.advance(300ms);
    pub = s.published(uri);
    REQUIRE(pub.size() == 2);
    CHECK(pub[1]["version"] == 5);
}

TEST_CASE("a log that grows: the lines appended are read on, and the diagnostics are those of the whole text") {
    std::string head;   // past the hard-wrap probe's window, so the document is read on as it grows
    for (int i = 0; i < 600; ++i) head += "[rank" + std::to_string(i % 4) + "]: step " + std::to_string(i) + " loss 2.1\n";
    const std::string tail =
        "[rank2]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 2 has a total capacity "
        "of 79.15 GiB of which 1.20 GiB is free.\n"
        "[rank0]:[E1105 08:26:04.118402251 ProcessGroupNCCL.cpp:616] [Rank 0] Watchdog caught collective operation "
        "timeout: WorkNCCL(SeqNum=812, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600034 "
        "milliseconds before timing out.\n";
    const std::string uri = "file:///runs/grow/train.log";
    Session s;
    s.open(uri, "log", head);
    s.exec.advance(0ms);
    REQUIRE(s.published(uri).size() == 1);
    CHECK(s.published(uri)[0]["diagnostics"].empty());
    // Appended at the end, as an editor reloading a growing file sends it: an insert at the last line.
    const json end = {{"line", 600}, {"character", 0}};
    s.notify("textDocument/didChange", {{"textDocument", {{"uri", uri}, {"version", 2}}},
                                        {"contentChanges", {{{"range", {{"start", end}, {"end", end}}}, {"text", tail}}}}});
    s.exec.advance(300ms);
    auto pub = s.published(uri);
    REQUIRE(pub.size() == 2);
    Session fresh;   // the same text opened whole
    const std::string fresh_uri = uri;
    fresh.open(fresh_uri, "log", head + tail);
    fresh.exec.advance(0ms);
    auto whole = fresh.published(fresh_uri);
    REQUIRE(whole.size() == 1);
    REQUIRE_FALSE(pub[1]["diagnostics"].empty());
    CHECK(pub[1]["diagnostics"].dump() == whole[0]["diagnostics"].dump());
    CHECK(pub[1]["diagnostics"].dump().find("out of memory") != std::string::npos);

    // An edit inside what was read (the OOM line deleted) is read anew: the verdict follows the text, not the cache.
    const json oom_start = {{"line", 600}, {"character", 0}}, oom_end = {{"line", 601}, {"character", 0}};
    s.notify("textDocument/didChange", {{"textDocument", {{"uri", uri}, {"version", 3}}},
                                        {"contentChanges", {{{"range", {{"start", oom_start}, {"end", oom_end}}}, {"text", ""}}}}});
    s.exec.advance(300ms);
    pub = s.published(uri);
    REQUIRE(pub.size() == 3);
    CHECK(pub[2]["diagnostics"].dump().find("out of memory") == std::string::npos);
}

TEST_CASE("a result for an outdated version is never published") {
    Session s;
    const std::string uri = "file:///runs/a.log";
    s.open(uri, "log", fixture("train_8ranks.log"));
    s.exec.advance(0ms);   // v1 published
    s.notify("textDocument/didChange", {{"textDocument", {{"uri", uri}, {"version", 2}}}, {"contentChanges", {{{"text", "x\n"}}}}});
    s.exec.advance(300ms);
    auto pub = s.published(uri);
    REQUIRE(pub.size() == 2);
    CHECK(pub[1]["version"] == 2);
    CHECK(pub[1]["diagnostics"].empty());
    s.notify("textDocument/didClose", {{"textDocument", {{"uri", uri}}}});
    pub = s.published(uri);
    REQUIRE(pub.size() == 3);
    CHECK(pub[2]["diagnostics"].empty());
}

TEST_CASE("incremental changes in UTF-16 over non-ASCII text, then hover on the changed line") {
    Session s(json{{"textDocument", {{"hover", {{"contentFormat", {"markdown", "plaintext"}}}}}}});
    const std::string uri = "file:///runs/b.log";
    s.open(uri, "log", "données 🚀 step 1\n[rank5]:RuntimeError: CUDA out of memory. Tried to allocate 1.00 GiB\n");
    // Replace "step 1" (UTF-16 columns 10..16 on line 0: 'données ' is 8 units, the rocket 2, a space 1).
    s.notify("textDocument/didChange",
             {{"textDocument", {{"uri", uri}, {"version", 2}}},
              {"contentChanges", {{{"range", {{"start", {{"line", 0}, {"character", 11}}}, {"end", {{"line", 0}, {"character", 17}}}}},
                                   {"text", "step 2"}}}}});
    s.exec.advance(300ms);
    int h = s.request("textDocument/hover", {{"textDocument", {{"uri", uri}}}, {"position", {{"line", 1}, {"character", 4}}}});
    json hover = s.response(h)["result"];
    CHECK(hover["contents"]["kind"] == "markdown");
    CHECK(hover["contents"]["value"].get<std::string>().find("CUDA out of memory") != std::string::npos);
    CHECK(hover["range"]["start"]["line"] == 1);
    int h0 = s.request("textDocument/hover", {{"textDocument", {{"uri", uri}}}, {"position", {{"line", 0}, {"character", 0}}}});
    CHECK(s.response(h0)["result"].is_null());
    int far = s.request("textDocument/hover", {{"textDocument", {{"uri", uri}}}, {"position", {{"line", 500}, {"character", 0}}}});
    CHECK(s.response(far)["result"].is_null());
    int unknown = s.request("textDocument/hover", {{"textDocument", {{"uri", "file:///nope"}}}, {"position", {{"line", 0}, {"character", 0}}}});
    CHECK(s.response(unknown)["result"].is_null());
    // The text the server holds after the edit: a diagnose of the open document sees "step 2".
    int d = s.request("denpex/diagnose", {{"uris", {uri}}});
    s.exec.run();
    CHECK(s.response(d)["result"]["lines"] == 2);
}

TEST_CASE("denpex/diagnose: cancelled before it ran -> RequestCancelled; otherwise the contract plus locations") {
    Session s;
    int id = s.request("denpex/diagnose", {{"text", fixture("train_8ranks.log")}});
    CHECK(s.exec.pending_work() == 1);
    s.notify("$/cancelRequest", {{"id", id}});
    s.exec.run();
    json r = s.response(id);
    CHECK(r["error"]["code"] == error_code::request_cancelled);

    int ok = s.request("denpex/diagnose", {{"text", fixture("train_8ranks.log")}, {"name", "untitled:Selection"}});
    s.exec.run();
    json res = s.response(ok)["result"];
    CHECK(res["diagnoses"][0]["failure"]["id"] == "cuda-oom");
    CHECK(res["diagnoses"][0]["initiating"]["rank"] == 5);
    json ev = res["diagnoses"][0]["initiating"]["evidence"][0];
    CHECK(ev["file"] == "untitled:Selection");
    CHECK(ev["line"] == 34);
    CHECK(ev["location"]["uri"] == "untitled:Selection");
    CHECK(ev["location"]["range"]["start"] == json{{"line", 33}, {"character", 0}});
}

TEST_CASE("denpex/diagnose: bad params are InvalidParams naming the field") {
    Session s;
    auto err = [&](const json& params) {
        int id = s.request("denpex/diagnose", params);
        s.exec.run();
        json r = s.response(id);
        REQUIRE(r.contains("error"));
        CHECK(r["error"]["code"] == error_code::invalid_params);
        return r["error"]["message"].get<std::string>();
    };
    CHECK(err(json::object()) == "denpex/diagnose: params needs at least one of \"text\", \"uris\" or \"paths\"");
    CHECK(err({{"text", 5}}) == "denpex/diagnose: params.text must be a string, got 5");
    CHECK(err({{"paths", "x.log"}}) == "denpex/diagnose: params.paths must be an array of strings, got a string");
    CHECK(err({{"uris", {"untitled:1"}}}).find("params.uris[0]: untitled:1 is neither open nor a file: URI") != std::string::npos);
    CHECK(err({{"paths", {"/definitely/not/here.log"}}}).find("params.paths: ") != std::string::npos);
    CHECK(err(json::array({1})).find("params must be an object") != std::string::npos);
}

TEST_CASE("work-done progress: server-created token, begin/report/end before the response") {
    Session s(json{{"window", {{"workDoneProgress", true}}}}, /*progress_threshold=*/1);
    int id = s.request("denpex/diagnose", {{"text", fixture("train_8ranks.log")}});
    auto creates = s.out.with("method", "window/workDoneProgress/create");
    REQUIRE(creates.size() == 1);
    const json token = creates[0]["params"]["token"];
    s.send({{"jsonrpc", "2.0"}, {"id", creates[0]["id"]}, {"result", nullptr}});
    s.exec.run();
    auto all = s.out.take();
    std::vector<std::string> order;
    for (const auto& m : all) {
        if (m.value("method", "") == "$/progress" && m["params"]["token"] == token) order.push_back(m["params"]["value"]["kind"]);
        if (m.contains("id") && m["id"] == id) order.push_back("response");
    }
    REQUIRE(order.size() >= 3);
    CHECK(order.front() == "begin");
    CHECK(order[order.size() - 2] == "end");
    CHECK(order.back() == "response");
}

TEST_CASE("work-done progress: a refused token is never used; a client token is used at once") {
    Session s(json{{"window", {{"workDoneProgress", true}}}}, 1);
    int id = s.request("denpex/diagnose", {{"text", "x\n"}});
    auto creates = s.out.with("method", "window/workDoneProgress/create");
    REQUIRE(creates.size() == 1);
    s.send({{"jsonrpc", "2.0"}, {"id", creates[0]["id"]}, {"error", {{"code", -32603}, {"message", "no"}}}});
    s.exec.run();
    CHECK(s.out.with("method", "$/progress").empty());
    CHECK(s.response(id).contains("result"));

    Session c;   // no window.workDoneProgress, but the request carries its own token
    int id2 = c.request("denpex/diagnose", {{"text", "x\n"}, {"workDoneToken", "tok-1"}});
    c.exec.run();
    auto progress = c.out.with("method", "$/progress");
    REQUIRE(progress.size() >= 2);
    CHECK(progress.front()["params"]["token"] == "tok-1");
    CHECK(progress.front()["params"]["value"]["kind"] == "begin");
    CHECK(progress.back()["params"]["value"]["kind"] == "end");
    CHECK(c.response(id2).contains("result"));
}

TEST_CASE("window/workDoneProgress/cancel cancels the diagnosis behind the token") {
    Session s(json{{"window", {{"workDoneProgress", true}}}}, 1);
    int id = s.request("denpex/diagnose", {{"text", fixture("train_8ranks.log")}});
    auto creates = s.out.with("method", "window/workDoneProgress/create");
    REQUIRE(creates.size() == 1);
    s.notify("window/workDoneProgress/cancel", {{"token", creates[0]["params"]["token"]}});
    s.exec.run();
    CHECK(s.response(id)["error"]["code"] == error_code::request_cancelled);
}

TEST_CASE("launch scripts: a Warning on the launch line, the quick-fix as a versioned WorkspaceEdit") {
    Session s(json{{"textDocument", {{"codeAction", {{"codeActionLiteralSupport", json::object()}}}}},
               {"workspace", {{"workspaceEdit", {{"documentChanges", true}}}}}});
    const std::string uri = "file:///jobs/train.sbatch";
    s.open(uri, "plaintext", "#!/bin/bash\n#SBATCH -N 2\n  srun torchrun train.py\n", 7);
    auto pub = s.published(uri);
    REQUIRE(pub.size() == 1);
    REQUIRE(pub[0]["diagnostics"].size() == 1);
    json d = pub[0]["diagnostics"][0];
    CHECK(d["severity"] == 2);
    CHECK(d["code"] == "missing-async-error-handling");
    CHECK(d["range"] == json{{"start", {{"line", 2}, {"character", 0}}}, {"end", {{"line", 2}, {"character", 24}}}});
    int id = s.request("textDocument/codeAction",
                       {{"textDocument", {{"uri", uri}}},
                        {"range", {{"start", {{"line", 2}, {"character", 5}}}, {"end", {{"line", 2}, {"character", 5}}}}},
                        {"context", {{"diagnostics", {d}}}}});
    json actions = s.response(id)["result"];
    REQUIRE(actions.size() == 1);
    CHECK(actions[0]["kind"] == "quickfix");
    CHECK(actions[0]["isPreferred"] == true);
    json edit = actions[0]["edit"]["documentChanges"][0];
    CHECK(edit["textDocument"] == json{{"uri", uri}, {"version", 7}});
    CHECK(edit["edits"][0]["range"]["start"] == json{{"line", 2}, {"character", 0}});
    CHECK(edit["edits"][0]["newText"] == "  export TORCH_NCCL_ASYNC_ERROR_HANDLING=1\n");
    // Elsewhere in the file (and for `only` kinds that exclude quick-fixes) nothing is offered.
    int other = s.request("textDocument/codeAction",
                          {{"textDocument", {{"uri", uri}}},
                           {"range", {{"start", {{"line", 0}, {"character", 0}}}, {"end", {{"line", 0}, {"character", 0}}}}},
                           {"context", {{"diagnostics", json::array()}}}});
    CHECK(s.response(other)["result"].empty());
    int refactor = s.request("textDocument/codeAction",
                             {{"textDocument", {{"uri", uri}}},
                              {"range", {{"start", {{"line", 2}, {"character", 0}}}, {"end", {{"line", 2}, {"character", 0}}}}},
                              {"context", {{"diagnostics", json::array()}, {"only", {"refactor"}}}}});
    CHECK(s.response(refactor)["result"].empty());
}

TEST_CASE("without code-action literals the fix is a Command; executing it asks the client to apply the edit") {
    Session s(json{{"workspace", {{"applyEdit", true}}}});
    const std::string uri = "file:///jobs/train.py";
    s.open(uri, "python", "import torch.distributed as dist\n\ndef main():\n    dist.init_process_group('nccl')\n");
    int id = s.request("textDocument/codeAction",
                       {{"textDocument", {{"uri", uri}}},
                        {"range", {{"start", {{"line", 3}, {"character", 0}}}, {"end", {{"line", 3}, {"character", 0}}}}},
                        {"context", {{"diagnostics", json::array()}}}});
    json cmd = s.response(id)["result"][0];
    CHECK(cmd["command"] == "denpex.server.insertAsyncErrorHandling");
    int ex = s.request("workspace/executeCommand", {{"command", cmd["command"]}, {"arguments", cmd["arguments"]}});
    auto apply = s.out.with("method", "workspace/applyEdit");
    REQUIRE(apply.size() == 1);
    json edits = apply[0]["params"]["edit"]["changes"][uri];
    REQUIRE(edits.size() == 2);
    CHECK(edits[0]["newText"] == "import os\n");
    CHECK(edits[1]["newText"] == "    os.environ.setdefault(\"TORCH_NCCL_ASYNC_ERROR_HANDLING\", \"1\")\n");
    CHECK(s.out.with("id", ex).empty());   // answered once the client answered
    s.send({{"jsonrpc", "2.0"}, {"id", apply[0]["id"]}, {"result", {{"applied", true}}}});
    CHECK(s.response(ex)["result"] == json{{"applied", true}});
}

TEST_CASE("insertAsyncErrorHandling: a client that never answers applyEdit still gets exactly one reply") {
    for (const char* ending : {"cancel", "shutdown"}) {
        CAPTURE(ending);
        Session s(json{{"workspace", {{"applyEdit", true}}}});
        const std::string uri = "file:///jobs/train.py";
        s.open(uri, "python", "import torch.distributed as dist\n\ndef main():\n    dist.init_process_group('nccl')\n");
        int ex = s.request("workspace/executeCommand",
                           {{"command", "denpex.server.insertAsyncErrorHandling"}, {"arguments", {{{"uri", uri}}}}});
        REQUIRE(s.out.with("method", "workspace/applyEdit").size() == 1);
        CHECK(s.out.with("id", ex).empty());
        if (std::string(ending) == "cancel") s.notify("$/cancelRequest", {{"id", ex}});
        else s.request("shutdown", json());
        s.exec.run();
        auto replies = s.out.with("id", ex);
        REQUIRE(replies.size() == 1);
        CHECK(replies[0]["error"]["code"] == error_code::request_cancelled);
    }
}

TEST_CASE("executeCommand: unknown commands and bad arguments are InvalidParams; diagnose works as a command") {
    Session s;
    int u = s.request("workspace/executeCommand", {{"command", "denpex.diagnoseSelection"}});
    CHECK(s.response(u)["error"]["message"] == "workspace/executeCommand: unknown command 'denpex.diagnoseSelection'");
    int a = s.request("workspace/executeCommand", {{"command", "denpex.server.insertAsyncErrorHandling"}, {"arguments", {42}}});
    CHECK(s.response(a)["error"]["code"] == error_code::invalid_params);
    int d = s.request("workspace/executeCommand",
                      {{"command", "denpex.server.diagnose"}, {"arguments", {{{"text", fixture("train_8ranks.log")}}}}});
    s.exec.run();
    CHECK(s.response(d)["result"]["diagnoses"][0]["initiating"]["rank"] == 5);
}

TEST_CASE("shutdown cancels document work: nothing is published afterwards") {
    Session s;
    const std::string uri = "file:///runs/c.log";
    s.open(uri, "log", fixture("train_8ranks.log"));
    s.exec.run_io();   // the open schedules a timer only
    int id = s.request("shutdown", json());
    CHECK(s.response(id)["result"].is_null());
    s.exec.advance(1000ms);
    CHECK(s.published(uri).empty());
}
