#include "server/serve.hpp"

#include <utility>   // before Asio: Boost 1.74's awaitable.hpp needs std::exchange under C++20

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <iostream>
#include <thread>
#include <malloc.h>
#include <unistd.h>

#include <boost/asio/io_context.hpp>

#include "engine/engine.hpp"
#include "server/dispatch/dispatcher.hpp"
#include "server/handlers/language_server.hpp"
#include "server/log.hpp"
#include "server/options.hpp"
#include "server/runtime/asio_executor.hpp"
#include "server/transport/stdio_transport.hpp"

namespace denpex::server {

namespace {

bool load_knowledge(const ServeOptions& opts, KnowledgeBase& kb) {
    std::vector<std::string> problems;
    if (opts.builtin_knowledge) kb = KnowledgeBase::load_embedded(problems);
    for (const auto& dir : opts.knowledge_dirs) kb.add_directory(dir, problems);
    for (const auto& p : problems) log_error("knowledge: " + p);
    return problems.empty();
}

unsigned worker_threads(const ServeOptions& opts) {
    if (opts.threads) return opts.threads;
    return std::clamp(std::thread::hardware_concurrency(), 2u, 8u);
}

}  // namespace

int run_serve(const std::vector<std::string>& args) {
    ServeOptions opts;
    if (auto err = parse_serve_options(args, opts)) {
        std::cerr << "denpex: " << *err << " (see denpex serve --help)\n";
        return 2;
    }
    if (opts.help) {
        std::cout << serve_usage();
        return 0;
    }
    set_log_level(opts.log_level);
    // glibc raises its mmap threshold to the largest block freed (up to 32 MiB): after that, the big temporary
    // strings of a large didOpen (the parser's buffers) come from the heap and stay resident once freed. A fixed
    // threshold hands every block of 1 MiB or more back to the system when it is freed.
    ::mallopt(M_MMAP_THRESHOLD, 1 << 20);

    KnowledgeBase kb;
    if (!load_knowledge(opts, kb)) return 2;
    const Engine engine(std::move(kb));
    log_info("serving with " + std::to_string(engine.knowledge().entries().size()) + " knowledge entries");
    for (const auto& w : engine.knowledge_warnings()) log_warning(w);

    // A client that disappears must not kill us with SIGPIPE mid-write; the write error ends the session.
    std::signal(SIGPIPE, SIG_IGN);

    // Keep the real stdin/stdout for the transport; point fd 1 at stderr so that nothing else reaches the client.
    std::cout.flush();
    std::fflush(stdout);
    const int in_fd = ::dup(STDIN_FILENO);
    const int out_fd = ::dup(STDOUT_FILENO);
    if (in_fd < 0 || out_fd < 0 || ::dup2(STDERR_FILENO, STDOUT_FILENO) < 0) {
        log_error("cannot set up stdin/stdout");
        return 1;
    }

    int exit_code = 1;
    {
        boost::asio::io_context io;
        LanguageServer* server_ptr = nullptr;
        FrameLimits limits;
        limits.max_body = opts.max_message_bytes;
        StdioTransport::Callbacks callbacks;
        callbacks.on_message = [&](std::string body) {
            if (server_ptr) server_ptr->handle_owned(std::move(body));
        };
        callbacks.on_frame_error = [](const FrameEvent& e) {
            log_warning(std::string("framing: ") + to_string(e.error) + ": " + e.detail);
        };
        callbacks.on_input_closed = [&] {
            if (server_ptr) server_ptr->stop("input closed");
        };
        callbacks.on_output_error = [&] {
            if (server_ptr) server_ptr->stop("output closed");
        };
        StdioTransport transport(io, in_fd, out_fd, limits, callbacks);
        AsioExecutor executor(io, worker_threads(opts));
        LanguageServer server(engine, opts, executor, transport);
        server_ptr = &server;
        server.on_exit([&](int code) {
            exit_code = code;
            // Every cancel flag is raised by now: let the workers answer their requests (RequestCancelled, at the
            // next line they read), then flush those answers and stop. Requests are answered even at exit.
            executor.join();
            transport.close([&io] { io.stop(); });
        });
        transport.start();
        io.run();
        // Workers finish (their flags are raised) before the server, transport and io_context they use go away
        // (already done when the session ended through on_exit; io.run() also returns if the io_context runs dry).
        server.cancel_all();
        executor.join();
        server_ptr = nullptr;
    }
    return exit_code;
}

}  // namespace denpex::server
