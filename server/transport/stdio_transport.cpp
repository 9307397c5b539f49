#include "server/transport/stdio_transport.hpp"

#include <utility>   // before Asio: Boost 1.74's awaitable.hpp needs std::exchange under C++20

#include <deque>
#include <fcntl.h>
#include <mutex>
#include <unistd.h>
#include <vector>

#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/write.hpp>

#include "server/log.hpp"

namespace denpex::server {

namespace asio = boost::asio;

struct StdioTransport::Impl : std::enable_shared_from_this<StdioTransport::Impl> {
    asio::io_context& io;
    asio::posix::stream_descriptor in;
    asio::posix::stream_descriptor out;
    int in_flags = -1, out_flags = -1;
    FrameParser parser;
    Callbacks cb;
    std::vector<char> read_buf = std::vector<char>(1 << 16);
    bool reading = false;
    bool input_closed = false;

    std::mutex mutex;                 // guards the fields below (send() comes from any thread)
    std::deque<std::string> queue;
    bool writing = false;
    bool output_failed = false;
    bool closing = false;
    std::function<void()> on_flushed;
    std::vector<std::string> in_flight;
    asio::steady_timer flush_timer;

    Impl(asio::io_context& io_, int in_fd, int out_fd, FrameLimits limits, Callbacks c)
        : io(io_), in(io_), out(io_), parser(limits), cb(std::move(c)), flush_timer(io_) {
        in_flags = ::fcntl(in_fd, F_GETFL);
        out_flags = ::fcntl(out_fd, F_GETFL);
        in.assign(in_fd);
        out.assign(out_fd);
    }

    ~Impl() {
        boost::system::error_code ec;
        if (in.is_open()) {
            if (in_flags != -1) ::fcntl(in.native_handle(), F_SETFL, in_flags);
            in.close(ec);
        }
        if (out.is_open()) {
            if (out_flags != -1) ::fcntl(out.native_handle(), F_SETFL, out_flags);
            out.close(ec);
        }
    }

    void read() {
        if (input_closed) return;
        reading = true;
        in.async_read_some(asio::buffer(read_buf), [self = shared_from_this()](const boost::system::error_code& ec,
                                                                               std::size_t n) {
            self->reading = false;
            if (self->input_closed) return;
            if (n > 0) {
                self->parser.feed(std::string_view(self->read_buf.data(), n));
                self->drain();
            }
            if (ec) {
                if (ec != asio::error::eof) log_warning("reading the client's input failed: " + ec.message());
                self->parser.finish();
                self->drain();
                if (!self->input_closed) {
                    self->input_closed = true;
                    if (self->cb.on_input_closed) self->cb.on_input_closed();
                }
                return;
            }
            self->read();
        });
    }

    // Hands out parsed events; stops as soon as a callback closed the transport (exit).
    void drain() {
        FrameEvent ev;
        while (!input_closed && parser.next(ev)) {
            if (ev.kind == FrameEvent::Kind::message) {
                if (cb.on_message) cb.on_message(std::move(ev.body));
            } else if (cb.on_frame_error) {
                cb.on_frame_error(ev);
            }
        }
    }

    void send(std::string body) {
        std::string frame = "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n";
        frame += body;
        std::lock_guard<std::mutex> lock(mutex);
        if (output_failed) return;
        queue.push_back(std::move(frame));
        if (!writing) {
            writing = true;
            asio::post(io, [self = shared_from_this()] { self->write_next(); });
        }
    }

    void write_next() {
        std::vector<asio::const_buffer> buffers;
        {
            std::lock_guard<std::mutex> lock(mutex);
            in_flight.clear();
            while (!queue.empty() && in_flight.size() < 64) {
                in_flight.push_back(std::move(queue.front()));
                queue.pop_front();
            }
            if (in_flight.empty() || output_failed) {
                writing = false;
                queue.clear();
                flushed_locked();
                return;
            }
            for (const auto& s : in_flight) buffers.emplace_back(s.data(), s.size());
        }
        asio::async_write(out, buffers, [self = shared_from_this()](const boost::system::error_code& ec, std::size_t) {
            if (ec) {
                bool first = false;
                {
                    std::lock_guard<std::mutex> lock(self->mutex);
                    first = !self->output_failed;
                    self->output_failed = true;
                }
                if (first) {
                    log_error("writing to the client failed: " + ec.message());
                    if (self->cb.on_output_error) self->cb.on_output_error();
                }
            }
            self->write_next();
        });
    }

    // Called with `mutex` held when the queue ran empty.
    void flushed_locked() {
        if (closing && on_flushed) {
            auto done = std::move(on_flushed);
            on_flushed = nullptr;
            flush_timer.cancel();
            asio::post(io, std::move(done));
        }
    }

    void close(std::function<void()> done, std::chrono::milliseconds timeout) {
        input_closed = true;
        boost::system::error_code ec;
        in.cancel(ec);
        std::lock_guard<std::mutex> lock(mutex);
        closing = true;
        on_flushed = std::move(done);
        if (!writing) {
            flushed_locked();
            return;
        }
        flush_timer.expires_after(timeout);
        flush_timer.async_wait([self = shared_from_this()](const boost::system::error_code& e) {
            if (e) return;
            std::function<void()> d;
            {
                std::lock_guard<std::mutex> l(self->mutex);
                if (!self->on_flushed) return;
                log_warning("the client is not reading; exiting without flushing the last messages");
                d = std::move(self->on_flushed);
                self->on_flushed = nullptr;
                self->output_failed = true;
            }
            d();
        });
    }
};

StdioTransport::StdioTransport(asio::io_context& io, int in_fd, int out_fd, FrameLimits limits, Callbacks callbacks)
    : impl_(std::make_shared<Impl>(io, in_fd, out_fd, limits, std::move(callbacks))) {}

StdioTransport::~StdioTransport() {
    // Handlers still queued in the (stopped) io_context keep Impl alive; make sure they can no longer reach the
    // server through the callbacks, and give the pipes back in their original mode now.
    impl_->cb = Callbacks{};
    impl_->input_closed = true;
    boost::system::error_code ec;
    if (impl_->in.is_open()) {
        if (impl_->in_flags != -1) ::fcntl(impl_->in.native_handle(), F_SETFL, impl_->in_flags);
        impl_->in.close(ec);
    }
    if (impl_->out.is_open()) {
        if (impl_->out_flags != -1) ::fcntl(impl_->out.native_handle(), F_SETFL, impl_->out_flags);
        impl_->out.close(ec);
    }
}

void StdioTransport::start() { impl_->read(); }
void StdioTransport::send(std::string body) { impl_->send(std::move(body)); }
void StdioTransport::close(std::function<void()> done, std::chrono::milliseconds flush_timeout) {
    impl_->close(std::move(done), flush_timeout);
}

}  // namespace denpex::server
