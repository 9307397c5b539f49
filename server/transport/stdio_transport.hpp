// StdioTransport: LSP messages over a pair of file descriptors (the client's pipes), on Boost.Asio.
//
// Contract. Reads run on the io_context's thread: bytes go through a FrameParser, and each complete body is
// handed to `on_message` (framing errors to `on_frame_error`, in stream order); at end of input (or a read
// error) `on_input_closed` runs once. `send()` may be called from any thread: bodies are framed
// ("Content-Length: N\r\n\r\n") and written by one outstanding async_write at a time, in the order they were
// queued, so frames never interleave. `close(done)` stops reading and runs `done` on the I/O thread once
// everything queued is written — or after `flush_timeout` if the client stopped reading, so exit cannot hang.
// A write error (the client went away) drops further output and runs `on_output_error` once.
// The descriptors are owned (closed at destruction); their file status flags are restored first, since Asio
// makes them non-blocking and they share that flag with whoever else holds the pipe.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <string>

#include "server/dispatch/outbox.hpp"
#include "server/transport/frame_parser.hpp"

namespace boost::asio { class io_context; }

namespace denpex::server {

class StdioTransport : public Outbox {
public:
    struct Callbacks {
        std::function<void(std::string body)> on_message;
        std::function<void(const FrameEvent& error)> on_frame_error;
        std::function<void()> on_input_closed;
        std::function<void()> on_output_error;
    };

    StdioTransport(boost::asio::io_context& io, int in_fd, int out_fd, FrameLimits limits, Callbacks callbacks);
    ~StdioTransport() override;
    StdioTransport(const StdioTransport&) = delete;
    StdioTransport& operator=(const StdioTransport&) = delete;

    void start();
    void send(std::string body) override;
    void close(std::function<void()> done, std::chrono::milliseconds flush_timeout = std::chrono::seconds(2));

private:
    struct Impl;
    std::shared_ptr<Impl> impl_;
};

}  // namespace denpex::server
