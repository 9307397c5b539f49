// One command's options as a table of data: the parser and the help text are both read from it, so `--help` lists
// exactly what the parser accepts. Used by `diagnose`, `watch` and `scan`.
//
// Contract. `parse_with_table` walks `args` once: `--` ends the options, `-` and anything not starting with '-' are
// paths (appended to `paths`), `--name=value` and `--name value` give a value to an option that takes one (the
// table's `value` names it: DIR, CMD, WHEN...), a flag given `=value` or any name not in the table is a usage error
// naming the command. The first error returned by an option's `apply` stops the walk. Returns the one-line usage
// error, or nullopt. `options_help` renders the table, one option per line, aligned.
#pragma once

#include <algorithm>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace denpex::cli {

template <class Options>
struct OptionSpec {
    const char* name;
    const char* value;   // nullptr: a flag
    const char* help;
    // Applies the option; returns a usage error or nullopt.
    std::function<std::optional<std::string>(Options&, const std::string&)> apply;
};

// What an option's missing value is called in the error: "--knowledge needs a directory".
inline std::string value_noun(const char* metavar) {
    const std::string_view m = metavar ? metavar : "";
    if (m == "DIR") return "a directory";
    if (m == "CMD") return "a command";
    return "a value";
}

template <class Options>
std::optional<std::string> parse_with_table(const std::vector<OptionSpec<Options>>& table,
                                            const std::vector<std::string>& args, std::string_view command,
                                            Options& out, std::vector<std::string>& paths) {
    bool options_done = false;
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        if (options_done || a == "-" || a.empty() || a[0] != '-') {
            paths.push_back(a);
            continue;
        }
        if (a == "--") {
            options_done = true;
            continue;
        }
        const std::size_t eq = a.find('=');
        const std::string name = a.substr(0, eq);
        const auto spec = std::find_if(table.begin(), table.end(), [&](const auto& s) { return name == s.name; });
        if (spec == table.end() || (!spec->value && eq != std::string::npos))
            return "unknown option '" + a + "' for " + std::string(command);
        std::string value;
        if (spec->value && eq != std::string::npos) value = a.substr(eq + 1);
        else if (spec->value) {
            if (i + 1 >= args.size()) return name + " needs " + value_noun(spec->value);
            value = args[++i];
        }
        if (auto error = spec->apply(out, value)) return error;
    }
    return std::nullopt;
}

// The options several commands share, one definition each. `Options` has `knowledge_dirs` (and `mask` for the
// masking options).
template <class Options>
OptionSpec<Options> knowledge_option(const char* help) {
    return {"--knowledge", "DIR", help, [](Options& o, const std::string& v) -> std::optional<std::string> {
                if (v.empty()) return "--knowledge needs a directory";
                o.knowledge_dirs.push_back(v);
                return std::nullopt;
            }};
}
inline constexpr const char* kKnowledgeHelp = "add a team's knowledge entries (repeatable; a broken entry is an error)";

template <class Options>
OptionSpec<Options> no_mask_option() {
    return {"--no-mask", nullptr, "show the logs' raw text (secrets, tokens, e-mail addresses are masked by default)",
            [](Options& o, const std::string&) -> std::optional<std::string> {
                o.mask.secrets = false;
                return std::nullopt;
            }};
}

template <class Options>
OptionSpec<Options> mask_hosts_option() {
    return {"--mask-hosts", nullptr, "also replace host names and IP addresses by pseudonyms, for sharing outside the team",
            [](Options& o, const std::string&) -> std::optional<std::string> {
                o.mask.hosts = true;
                return std::nullopt;
            }};
}

template <class Options>
std::string options_help(const std::vector<OptionSpec<Options>>& table) {
    constexpr std::size_t kHelpColumn = 20;
    std::string out;
    for (const auto& spec : table) {
        std::string left = std::string("  ") + spec.name + (spec.value ? std::string(" ") + spec.value : "");
        left.resize(std::max<std::size_t>(left.size() + 2, kHelpColumn), ' ');
        out += left + spec.help + "\n";
    }
    return out;
}

}  // namespace denpex::cli
