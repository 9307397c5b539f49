// Hover on a log line: a short card. Which knowledge entry the line is a signature of, what role such a line plays,
// what this line is in this log, what the failure is and its fix in one sentence each, and where the full entry is.
//
// Contract (pure). The raw line is normalised as the engine does (ANSI codes, "\r" redraws, invalid UTF-8)
// and matched with the engine's Matcher. No hit -> nullopt (the client shows nothing). Each hit renders as a
// header naming the entry and the signature's role (initiating: a failure a rank has on its own; collateral:
// a consequence of another rank's failure; context), then `note` (what the line is in this log, from the
// last diagnosis) when given, then the first sentence of the entry's `what` and of its first fix, then the command
// that shows the whole entry (`denpex kb show ID`) and its upstream reference when it has one. At most
// kMaxHoverEntries entries, each card a handful of lines: a hover is a glance, the panel and `kb show` are the
// reference. The text is markdown that also reads well as plaintext, for clients that render no markdown.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace denpex {
class Matcher;
}

namespace denpex::server {

constexpr std::size_t kMaxHoverEntries = 2;

std::optional<std::string> hover_text(const Matcher& matcher, std::string_view raw_line, const std::string* note);

}  // namespace denpex::server
