#include "cli/color.hpp"

#include <array>

namespace denpex::cli {
namespace {

constexpr std::string_view kReset = "\x1b[0m";
constexpr std::string_view kBold = "\x1b[1m";
constexpr std::string_view kRed = "\x1b[1;31m";
constexpr std::string_view kYellow = "\x1b[1;33m";
constexpr std::string_view kGreen = "\x1b[1;32m";
constexpr std::string_view kCyan = "\x1b[1;36m";

constexpr std::array<std::string_view, 9> kHeadings = {"Evidence", "Why", "Missing to decide", "Missing",
                                                       "Collateral (", "Fix", "Verify", "Notes", "Seen before"};

bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

std::string paint(std::string_view colour, std::string_view text) {
    return std::string(colour) + std::string(text) + std::string(kReset);
}

// "LABEL       value": the label painted, the value painted by `value_colour` (empty: left as is).
std::string labelled(std::string_view line, std::size_t label_len, std::string_view label_colour,
                     std::string_view value_colour) {
    const std::string_view label = line.substr(0, label_len), value = line.substr(label_len);
    return paint(label_colour, label) + (value_colour.empty() ? std::string(value) : paint(value_colour, value));
}

std::string_view confidence_colour(std::string_view value) {
    if (starts_with(value, "high")) return kGreen;
    if (starts_with(value, "medium")) return kYellow;
    return kRed;
}

std::string colorize_line(std::string_view line) {
    constexpr std::size_t kLabel = 12;   // "FAILURE     ", "INITIATING  ", "CONFIDENCE  "
    if (starts_with(line, "FAILURE     ")) return labelled(line, kLabel, kRed, kBold);
    if (starts_with(line, "INITIATING  "))
        return labelled(line, kLabel, kBold, starts_with(line.substr(kLabel), "undetermined") ? kYellow : kBold);
    if (starts_with(line, "CONFIDENCE  ")) return labelled(line, kLabel, kBold, confidence_colour(line.substr(kLabel)));
    for (std::string_view h : kHeadings)
        if (starts_with(line, h)) return paint(kCyan, line);
    return std::string(line);
}

}  // namespace

std::optional<ColorMode> parse_color_mode(std::string_view text) {
    if (text == "auto") return ColorMode::automatic;
    if (text == "always") return ColorMode::always;
    if (text == "never") return ColorMode::never;
    return std::nullopt;
}

bool use_color(ColorMode mode, bool stdout_is_tty, const char* no_color_env) {
    switch (mode) {
        case ColorMode::always: return true;
        case ColorMode::never: return false;
        case ColorMode::automatic: return stdout_is_tty && (no_color_env == nullptr || *no_color_env == '\0');
    }
    return false;
}

std::string colorize_report(std::string_view text) {
    std::string out;
    out.reserve(text.size() + 256);
    while (!text.empty()) {
        const std::size_t nl = text.find('\n');
        const std::string_view line = text.substr(0, nl);
        // Empty lines and indented lines (log text, list items) pass unchanged.
        out += line.empty() || line.front() == ' ' ? std::string(line) : colorize_line(line);
        if (nl == std::string_view::npos) break;
        out += '\n';
        text.remove_prefix(nl + 1);
    }
    return out;
}

}  // namespace denpex::cli
