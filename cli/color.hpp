// Colour in the terminal: whether to use it (`--color=auto|always|never`, NO_COLOR) and how the text report
// looks with it.
//
// Contract. `auto` colours only when stdout is a terminal and NO_COLOR is unset or empty (https://no-color.org);
// `always` colours even into a pipe (a flag the user gave outranks NO_COLOR); `never` never does.
// `colorize_report` adds ANSI SGR sequences to the text report's own labels (FAILURE, INITIATING, CONFIDENCE,
// the section headings); it never touches a line of log text (those are indented), and removing every
// "\x1b[...m" from its output gives back its input exactly. The engine knows nothing of terminals.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace denpex::cli {

enum class ColorMode { automatic, always, never };

// "auto" | "always" | "never"; nullopt for anything else.
std::optional<ColorMode> parse_color_mode(std::string_view text);

// `no_color_env`: the value of NO_COLOR, nullptr when unset.
bool use_color(ColorMode mode, bool stdout_is_tty, const char* no_color_env);

std::string colorize_report(std::string_view text);

}  // namespace denpex::cli
