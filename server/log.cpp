#include "server/log.hpp"

#include <atomic>
#include <cerrno>
#include <mutex>
#include <poll.h>
#include <unistd.h>

namespace denpex::server {
namespace {

std::atomic<int> g_level{static_cast<int>(LogLevel::info)};
std::mutex g_mutex;

// Writes all of `data` to fd 2; waits (bounded) when the descriptor is non-blocking and full, and gives up on
// other errors: losing a log line must never stop the server.
void write_all(std::string_view data) {
    while (!data.empty()) {
        ssize_t n = ::write(STDERR_FILENO, data.data(), data.size());
        if (n > 0) {
            data.remove_prefix(static_cast<std::size_t>(n));
        } else if (n < 0 && errno == EINTR) {
            continue;
        } else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            pollfd p{STDERR_FILENO, POLLOUT, 0};
            if (::poll(&p, 1, 1000) <= 0) return;
        } else {
            return;
        }
    }
}

char letter(LogLevel level) {
    switch (level) {
        case LogLevel::verbose: return 'V';
        case LogLevel::debug: return 'D';
        case LogLevel::info: return 'I';
        case LogLevel::warning: return 'W';
        case LogLevel::error: return 'E';
        case LogLevel::off: break;
    }
    return '?';
}

}  // namespace

std::optional<LogLevel> parse_log_level(std::string_view name) {
    if (name == "verbose" || name == "trace") return LogLevel::verbose;
    if (name == "debug") return LogLevel::debug;
    if (name == "info") return LogLevel::info;
    if (name == "warning" || name == "warn") return LogLevel::warning;
    if (name == "error") return LogLevel::error;
    if (name == "off" || name == "none") return LogLevel::off;
    return std::nullopt;
}

void set_log_level(LogLevel level) { g_level.store(static_cast<int>(level), std::memory_order_relaxed); }

bool log_enabled(LogLevel level) {
    return level != LogLevel::off && static_cast<int>(level) >= g_level.load(std::memory_order_relaxed);
}

void log(LogLevel level, std::string_view text) {
    if (!log_enabled(level)) return;
    std::string line = "denpex serve[";
    line += letter(level);
    line += "]: ";
    line += text;
    line += '\n';
    std::lock_guard<std::mutex> lock(g_mutex);
    write_all(line);
}

}  // namespace denpex::server
