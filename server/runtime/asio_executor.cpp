#include "server/runtime/asio_executor.hpp"

#include <utility>   // before Asio: Boost 1.74's awaitable.hpp needs std::exchange under C++20

#include <atomic>

#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/thread_pool.hpp>

#include "server/log.hpp"

namespace denpex::server {

namespace asio = boost::asio;

namespace {

class AsioTimer : public TimerHandle, public std::enable_shared_from_this<AsioTimer> {
public:
    explicit AsioTimer(asio::io_context& io) : timer_(io) {}
    void start(std::chrono::milliseconds delay, std::function<void()> fn) {
        timer_.expires_after(delay);
        timer_.async_wait([self = shared_from_this(), fn = std::move(fn)](const boost::system::error_code& ec) {
            if (ec || self->cancelled_) return;
            fn();
        });
    }
    // Called on the I/O thread (the only thread that touches timers), so after this the handler cannot run fn.
    void cancel() override {
        cancelled_ = true;
        timer_.cancel();
    }

private:
    asio::steady_timer timer_;
    bool cancelled_ = false;
};

void guarded(const std::function<void()>& fn) {
    try {
        fn();
    } catch (const std::exception& e) {
        log_error(std::string("a task failed: ") + e.what());
    } catch (...) {
        log_error("a task failed with an unknown exception");
    }
}

}  // namespace

struct AsioExecutor::Impl {
    asio::io_context& io;
    asio::thread_pool pool;
    std::atomic<bool> joined{false};
    Impl(asio::io_context& i, unsigned threads) : io(i), pool(threads) {}
};

AsioExecutor::AsioExecutor(asio::io_context& io, unsigned threads) : impl_(std::make_unique<Impl>(io, threads)) {}

AsioExecutor::~AsioExecutor() { join(); }

void AsioExecutor::post_io(std::function<void()> fn) {
    asio::post(impl_->io, [fn = std::move(fn)] { guarded(fn); });
}

void AsioExecutor::post_work(std::function<void()> fn) {
    if (impl_->joined) return;
    asio::post(impl_->pool, [fn = std::move(fn)] { guarded(fn); });
}

std::shared_ptr<TimerHandle> AsioExecutor::after(std::chrono::milliseconds delay, std::function<void()> fn) {
    auto t = std::make_shared<AsioTimer>(impl_->io);
    t->start(delay, [fn = std::move(fn)] { guarded(fn); });
    return t;
}

void AsioExecutor::join() {
    if (impl_->joined.exchange(true)) return;
    // No stop(): queued jobs still run, see their raised cancel flags and answer "cancelled" at once. Stopping
    // would leave them to be destroyed later, after the server they point into.
    impl_->pool.join();
}

}  // namespace denpex::server
