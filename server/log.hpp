// Server logging: leveled lines on stderr, never on stdout (stdout carries only framed LSP messages).
//
// Contract. `log(level, ...)` writes one line "denpex serve[L]: text" to stderr when `level` is at or above the
// configured threshold. Safe from any thread (one mutex; one write(2) per line so lines never interleave).
// Writes retry on EAGAIN: stderr may share a non-blocking file description with the client's pipe.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace denpex::server {

enum class LogLevel { verbose = 0, debug = 1, info = 2, warning = 3, error = 4, off = 5 };

// "verbose", "debug", "info", "warning" (or "warn"), "error", "off"; nullopt otherwise.
std::optional<LogLevel> parse_log_level(std::string_view name);

void set_log_level(LogLevel level);
bool log_enabled(LogLevel level);
void log(LogLevel level, std::string_view text);

inline void log_verbose(std::string_view t) { log(LogLevel::verbose, t); }
inline void log_debug(std::string_view t) { log(LogLevel::debug, t); }
inline void log_info(std::string_view t) { log(LogLevel::info, t); }
inline void log_warning(std::string_view t) { log(LogLevel::warning, t); }
inline void log_error(std::string_view t) { log(LogLevel::error, t); }

}  // namespace denpex::server
