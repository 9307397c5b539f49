// Fuzz target: the whole language server (dispatcher and handlers) fed whole JSON-RPC messages, one per line of
// the input, on the deterministic executor of the server tests; timers are advanced after each message so
// debounced diagnoses run. Every body the server sends must be valid JSON (the recording outbox parses it).
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "engine/engine.hpp"
#include "../unit/embedded_engine.hpp"
#include "server/handlers/language_server.hpp"
#include "server/log.hpp"
#include "test_support.hpp"

using namespace denpex::server;
using namespace std::chrono_literals;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static const bool quiet = (set_log_level(LogLevel::off), true);   // the log is stderr: keep it off the fuzzer's
    (void)quiet;
    const std::string_view input(reinterpret_cast<const char*>(data), size);
    testing::RecordingOutbox out;
    testing::ManualExecutor exec;
    ServeOptions opts;
    opts.debounce_ms = 10;
    auto server = std::make_unique<LanguageServer>(engine(), opts, exec, out);
    int exit_code = -1;
    server->on_exit([&](int code) { exit_code = code; });
    std::size_t at = 0;
    int messages = 0;
    while (at <= input.size() && messages < 64) {
        std::size_t nl = input.find('\n', at);
        if (nl == std::string_view::npos) nl = input.size();
        const std::string_view body = input.substr(at, nl - at);
        if (!body.empty()) {
            server->handle(body);
            exec.run();
            exec.advance(50ms);
            ++messages;
        }
        at = nl + 1;
    }
    server->stop("end of input");
    server->cancel_all();
    exec.run();
    exec.advance(10s);
    (void)out.take();
    return 0;
}
