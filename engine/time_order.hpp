// Time order of events: when can two log lines be said to have happened one before the other?
//
// Contract. Lines of one file are ordered by their own timestamps when both carry one (one file, one clock; a
// buffered stdout line can land after a later stderr line), else by their position. Lines of different files are
// ordered only by dated timestamps (a year is known); a line without its own time lies between the stamps
// around it in its file, and is before another line only when that whole span is;
// glog times (no year) and dmesg uptimes are not compared across files, since hosts' clocks and boots differ and
// nothing aligns them. Equal times order nothing.
#pragma once

#include <optional>
#include <string>

#include "engine/timeline.hpp"

namespace denpex {

// true: a happened before b; false: after; nullopt: the logs cannot tell.
std::optional<bool> precedes(const Event& a, const Event& b);
// Seconds from a to b when both carry comparable times.
std::optional<double> seconds_between(const Event& a, const Event& b);
// "2026-11-29 18:40:17.422" for dated times, "11-29 18:40:17.422" for glog times, "+12345.678s" for uptimes.
std::string format_time(const Timestamp& t);

}  // namespace denpex
