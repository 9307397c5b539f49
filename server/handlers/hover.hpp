// Hover on a log line: which knowledge entry the line is a signature of, what role such a line plays, and the
// entry's reference card (what it is, how to confirm, the fix).
//
// Contract (pure). The raw line is normalised as the engine does (ANSI codes, "\r" redraws, invalid UTF-8)
// and matched with the engine's Matcher. No hit -> nullopt (the client shows nothing). Each hit renders as a
// header naming the entry and the signature's role (initiating: a failure a rank has on its own; collateral:
// a consequence of another rank's failure; context), then `note` (what the line is in this log, from the
// last diagnosis) when given, then denpex::entry_markdown. The text is markdown that also reads well as
// plaintext, for clients that render no markdown.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace denpex {
class Matcher;
}

namespace denpex::server {

std::optional<std::string> hover_text(const Matcher& matcher, std::string_view raw_line, const std::string* note);

}  // namespace denpex::server
