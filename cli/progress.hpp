// Progress of a long `diagnose` on a terminal: bytes read / total, throughput and ETA on one rewritten line.
//
// Contract. The engine only reports bytes read (DiagnoseOptions::progress, from one thread at a time); how that
// is shown is the CLI's. `format_progress` is a pure function of a sample. `ProgressThrottle` lets through at
// most one update per interval (100 ms: at most 10 redraws a second) and none before the first interval has
// passed, so a short run draws nothing. `TerminalProgress` draws on a file descriptor that is a terminal:
// each update rewrites the line ("\r" + text + erase to end of line) and `finish()` clears it, leaving the
// terminal as it was. Disabled (stderr not a terminal, or --quiet), it writes nothing at all.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

namespace denpex::cli {

struct ProgressSample {
    std::uint64_t bytes = 0;
    std::uint64_t total = 0;   // 0: unknown (stdin)
    double elapsed_s = 0;
};

// "1.5 KiB", "12.0 MiB", "3.2 GiB"; below 1 KiB "512 B".
std::string format_bytes(std::uint64_t bytes);
// "ETA 42s", "ETA 3m05s", "ETA 1h02m"
std::string format_eta(double seconds);
// "denpex: 1.2 GiB / 3.4 GiB (35%)  410.0 MiB/s  ETA 6s"; without a total, no percentage and no ETA.
std::string format_progress(const ProgressSample& sample);

class ProgressThrottle {
public:
    using Clock = std::chrono::steady_clock;
    explicit ProgressThrottle(Clock::time_point start, Clock::duration interval = std::chrono::milliseconds(100))
        : next_(start + interval), interval_(interval) {}
    // True when an update may be drawn at `now` (and then the next one is due an interval later).
    bool due(Clock::time_point now);

private:
    Clock::time_point next_;
    Clock::duration interval_;
};

class TerminalProgress {
public:
    TerminalProgress(int fd, bool enabled, std::uint64_t total);
    void update(std::uint64_t bytes);   // throttled
    void finish();                      // clears the line if one was drawn
    ~TerminalProgress() { finish(); }
    TerminalProgress(const TerminalProgress&) = delete;
    TerminalProgress& operator=(const TerminalProgress&) = delete;

private:
    int fd_;
    bool enabled_, drawn_ = false;
    std::uint64_t total_;
    ProgressThrottle::Clock::time_point start_;
    ProgressThrottle throttle_;
};

}  // namespace denpex::cli
