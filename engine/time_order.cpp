#include "engine/time_order.hpp"

#include <cmath>
#include <cstdio>
#include <ctime>

namespace denpex {
namespace {

bool comparable(const Event& a, const Event& b) {
    if (!a.time || !b.time) return false;
    // dmesg -H deltas count from the previous kernel message, not from any fixed point.
    if (a.time->relative || b.time->relative) return false;
    if (a.time->uptime || b.time->uptime) return a.source == b.source && a.time->uptime == b.time->uptime;
    if (a.time->has_date != b.time->has_date) return false;
    if (a.source == b.source || a.time->has_date) return true;
    // Two files' year-less stamps (glog's `MMDD hh:mm:ss`): one job's nodes share the calendar, so they compare
    // unless they are so far apart that a New Year may lie between them.
    constexpr double kHalfYear = 182.0 * 86400.0;
    return std::abs(a.time->seconds - b.time->seconds) < kHalfYear;
}

// A whole-second stamp (dmesg -T, torchrun's summary) against a time within that second orders nothing.
bool within_resolution(const Event& a, const Event& b) {
    return (a.time->whole_seconds || b.time->whole_seconds) && std::abs(a.time->seconds - b.time->seconds) < 1.0;
}

}  // namespace

std::optional<bool> precedes(const Event& a, const Event& b) {
    if (a.source == b.source) {
        // One file is one clock: two lines that carry their own times are ordered by them (a buffered stdout
        // line can reach the file after a later stderr line); otherwise by position.
        if (a.time_exact && b.time_exact && comparable(a, b) && a.time->seconds != b.time->seconds &&
            !within_resolution(a, b)) {
            // Year-less times more than half a year apart in one file have crossed a New Year: December's is
            // the earlier one.
            constexpr double kHalfYear = 182.0 * 86400.0;
            const bool wrapped = !a.time->has_date && std::abs(a.time->seconds - b.time->seconds) > kHalfYear;
            return wrapped ? a.time->seconds > b.time->seconds : a.time->seconds < b.time->seconds;
        }
        return a.order < b.order;
    }
    // Across files a line without its own time happened between the stamps around it: one line is before
    // another only when its latest possible time is before the other's earliest (a start-up banner far above
    // says little; a log line just before a traceback says much).
    if (!comparable(a, b) || a.time->seconds == b.time->seconds || within_resolution(a, b)) return std::nullopt;
    auto latest = [](const Event& e) -> std::optional<double> {
        if (e.time_exact) return e.time->seconds;
        // The same process's record a traceback's length above dates the traceback ("ERROR step 1201 failed").
        constexpr std::uint32_t kCarriedLines = 64;
        if (e.time_from_writer && e.time_age <= kCarriedLines) return e.time->seconds;
        if (e.time_before) return e.time_before;
        // No later stamp (the file ends in this traceback): a stamp close above still stands for it.
        if (e.time_age <= kCarriedLines) return e.time->seconds;
        return std::nullopt;
    };
    if (auto la = latest(a); la && *la < b.time->seconds) return true;
    if (auto lb = latest(b); lb && *lb < a.time->seconds) return false;
    return std::nullopt;
}

std::optional<double> seconds_between(const Event& a, const Event& b) {
    if (!comparable(a, b)) return std::nullopt;
    return b.time->seconds - a.time->seconds;
}

std::string format_time(const Timestamp& t) {
    char buf[64];
    if (t.uptime) {
        std::snprintf(buf, sizeof buf, "+%.3fs since boot", t.seconds);
        return buf;
    }
    double whole = std::floor(t.seconds);
    int millis = static_cast<int>(std::lround((t.seconds - whole) * 1000)) % 1000;
    std::time_t secs = static_cast<std::time_t>(whole);
    std::tm tm{};
    gmtime_r(&secs, &tm);
    if (t.has_date)
        std::snprintf(buf, sizeof buf, "%04d-%02d-%02d %02d:%02d:%02d.%03d", tm.tm_year + 1900, tm.tm_mon + 1,
                      tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, millis);
    else   // seconds since the start of a non-leap year: 1970 is one
        std::snprintf(buf, sizeof buf, "%02d-%02d %02d:%02d:%02d.%03d", tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
                      tm.tm_min, tm.tm_sec, millis);
    return buf;
}

}  // namespace denpex
