#include "cli/progress.hpp"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iterator>

namespace denpex::cli {
namespace {

void write_all(int fd, const std::string& s) {
    std::size_t done = 0;
    while (done < s.size()) {
        const ssize_t n = ::write(fd, s.data() + done, s.size() - done);
        if (n <= 0) return;   // a terminal that went away: progress is not worth an error
        done += static_cast<std::size_t>(n);
    }
}

}  // namespace

std::string format_bytes(std::uint64_t bytes) {
    static constexpr const char* kUnits[] = {"KiB", "MiB", "GiB", "TiB"};
    if (bytes < 1024) return std::to_string(bytes) + " B";
    double v = static_cast<double>(bytes) / 1024;
    std::size_t unit = 0;
    while (v >= 1024 && unit + 1 < std::size(kUnits)) {
        v /= 1024;
        ++unit;
    }
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f %s", v, kUnits[unit]);
    return buf;
}

std::string format_eta(double seconds) {
    if (!std::isfinite(seconds) || seconds < 0) return "ETA --";
    const auto s = static_cast<std::uint64_t>(std::llround(std::min(seconds, 359999.0)));
    char buf[32];
    if (s < 60) std::snprintf(buf, sizeof buf, "ETA %llus", static_cast<unsigned long long>(s));
    else if (s < 3600)
        std::snprintf(buf, sizeof buf, "ETA %llum%02llus", static_cast<unsigned long long>(s / 60),
                      static_cast<unsigned long long>(s % 60));
    else
        std::snprintf(buf, sizeof buf, "ETA %lluh%02llum", static_cast<unsigned long long>(s / 3600),
                      static_cast<unsigned long long>(s / 60 % 60));
    return buf;
}

std::string format_progress(const ProgressSample& p) {
    std::string line = "denpex: " + format_bytes(p.bytes);
    if (p.total > 0) {
        const std::uint64_t shown = std::min(p.bytes, p.total);
        line += " / " + format_bytes(p.total) + " (" + std::to_string(shown * 100 / p.total) + "%)";
    }
    const double rate = p.elapsed_s > 0 ? static_cast<double>(p.bytes) / p.elapsed_s : 0;
    if (rate > 0) line += "  " + format_bytes(static_cast<std::uint64_t>(rate)) + "/s";
    if (p.total > 0 && rate > 0) {
        const double left = p.bytes >= p.total ? 0 : static_cast<double>(p.total - p.bytes) / rate;
        line += "  " + format_eta(left);
    }
    return line;
}

bool ProgressThrottle::due(Clock::time_point now) {
    if (now < next_) return false;
    next_ = now + interval_;
    return true;
}

TerminalProgress::TerminalProgress(int fd, bool enabled, std::uint64_t total)
    : fd_(fd), enabled_(enabled), total_(total), start_(ProgressThrottle::Clock::now()), throttle_(start_) {}

void TerminalProgress::update(std::uint64_t bytes) {
    if (!enabled_) return;
    const auto now = ProgressThrottle::Clock::now();
    if (!throttle_.due(now)) return;
    const double elapsed = std::chrono::duration<double>(now - start_).count();
    write_all(fd_, "\r" + format_progress({bytes, total_, elapsed}) + "\x1b[K");
    drawn_ = true;
}

void TerminalProgress::finish() {
    if (!drawn_) return;
    write_all(fd_, "\r\x1b[K");
    drawn_ = false;
}

}  // namespace denpex::cli
