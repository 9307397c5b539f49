#include "server/launch_scripts/disabled_setting.hpp"

#include <array>
#include <vector>

#include <re2/re2.h>

#include "server/launch_scripts/async_error_handling.hpp"
#include "server/launch_scripts/script_lines.hpp"

namespace denpex::server {
namespace {

struct Assignment {
    std::size_t line = 0, value_offset = 0, value_length = 0;
    std::string name, value;
};

// How many lines below a YAML `- name: X` its `value:` may stand (a comment or blank line in between).
constexpr std::size_t kYamlValueLines = 3;

std::string_view view(const re2::StringPiece& p) { return {p.data(), p.size()}; }

template <std::size_t N>
bool match(const RE2& re, std::string_view line, std::array<re2::StringPiece, N>& caps) {
    return re.Match(re2::StringPiece(line.data(), line.size()), 0, line.size(), RE2::UNANCHORED, caps.data(),
                    static_cast<int>(N));
}

Assignment assignment_at(const ScriptLines& lines, std::size_t i, std::string_view name, const re2::StringPiece& value) {
    Assignment a;
    a.line = i;
    a.name = std::string(name);
    a.value = std::string(view(value));
    a.value_offset = lines.start(i) + static_cast<std::size_t>(value.data() - lines[i].data());
    a.value_length = value.size();
    return a;
}

// `NAME` then quotes or a bracket, then `=`, `:`, `,` or blanks, then the value (quoted or not), on one line.
std::optional<Assignment> inline_assignment(const ScriptLines& lines, std::size_t i) {
    static const RE2 re(R"(\b((?:TORCH_)?NCCL_ASYNC_ERROR_HANDLING)["'\]]*\s*(?:=|:|,|\s)\s*["']?([0-9]+))");
    std::array<re2::StringPiece, 3> c;
    if (!match(re, lines[i], c)) return std::nullopt;
    return assignment_at(lines, i, view(c[1]), c[2]);
}

// YAML's `- name: NAME` with its `value: "N"` on one of the next lines.
std::optional<Assignment> yaml_assignment(const ScriptLines& lines, std::size_t i) {
    static const RE2 name_re(R"(^\s*-?\s*name:\s*["']?((?:TORCH_)?NCCL_ASYNC_ERROR_HANDLING)["']?\s*$)");
    static const RE2 value_re(R"(^\s*value:\s*["']?([0-9]+))");
    std::array<re2::StringPiece, 2> n, v;
    if (!match(name_re, lines[i], n)) return std::nullopt;
    for (std::size_t j = i + 1; j < lines.size() && j <= i + kYamlValueLines; ++j)
        if (match(value_re, lines[j], v)) return assignment_at(lines, j, view(n[1]), v[1]);
    return std::nullopt;
}

}  // namespace

std::optional<DisabledSetting> find_disabled_async_error_handling(std::string_view text) {
    const ScriptLines lines(text);
    std::optional<Assignment> last_new, last_old;
    for (std::size_t i = 0; i < lines.size(); ++i) {
        if (lines.blank_or_comment(i) || lines[i].find("NCCL_ASYNC_ERROR_HANDLING") == std::string_view::npos) continue;
        auto a = yaml_assignment(lines, i);
        if (!a) a = inline_assignment(lines, i);
        if (!a) continue;
        (a->name == kAsyncErrorHandlingVar ? last_new : last_old) = a;
    }
    const std::optional<Assignment>& effective = last_new ? last_new : last_old;
    if (!effective || effective->value != "0") return std::nullopt;
    return DisabledSetting{effective->line, effective->value_offset, effective->value_length, effective->name};
}

}  // namespace denpex::server
