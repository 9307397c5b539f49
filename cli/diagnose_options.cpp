#include "cli/diagnose_options.hpp"

#include <array>
#include <functional>

#include "cli/option_table.hpp"

namespace denpex::cli {
namespace {

using Spec = OptionSpec<DiagnoseCliOptions>;

std::optional<std::string> set_format(DiagnoseCliOptions& o, OutputFormat f) {
    if (o.format != OutputFormat::text && o.format != f) return "--json and --sarif exclude each other";
    o.format = f;
    return std::nullopt;
}

const std::vector<Spec>& option_table() {
    using O = DiagnoseCliOptions;
    using R = std::optional<std::string>;
    static const std::vector<Spec> table = {
        {"--json", nullptr, "print the JSON contract instead of the text report",
         [](O& o, const std::string&) { return set_format(o, OutputFormat::json); }},
        {"--sarif", nullptr, "print SARIF 2.1.0 (the initiating line as the result, collateral as related locations)",
         [](O& o, const std::string&) { return set_format(o, OutputFormat::sarif); }},
        knowledge_option<O>(kKnowledgeHelp),
        no_mask_option<O>(),
        mask_hosts_option<O>(),
        {"--color", "WHEN", "auto (default: when stdout is a terminal and NO_COLOR is unset), always or never",
         [](O& o, const std::string& v) -> R {
             const auto mode = parse_color_mode(v);
             if (!mode) return "--color needs auto, always or never, got '" + v + "'";
             o.color = *mode;
             return std::nullopt;
         }},
        {"--quiet", nullptr, "no progress line on stderr (it is shown only when stderr is a terminal)",
         [](O& o, const std::string&) -> R { o.quiet = true; return std::nullopt; }},
        {"--save", nullptr, "save the incident in the local history (verdict, fingerprint, job; no raw log text)",
         [](O& o, const std::string&) -> R { o.save = true; return std::nullopt; }},
        {"--save-raw", nullptr, "save it with the (masked) text of its evidence lines",
         [](O& o, const std::string&) -> R { o.save = o.save_raw = true; return std::nullopt; }},
    };
    return table;
}

}  // namespace

std::optional<std::string> parse_diagnose_options(const std::vector<std::string>& args, DiagnoseCliOptions& out) {
    if (auto error = parse_with_table(option_table(), args, "diagnose", out, out.paths)) return error;
    if (out.paths.empty()) return "diagnose needs at least one log file, directory, or - for stdin";
    return std::nullopt;
}

std::string diagnose_usage() {
    std::string usage =
        "usage: denpex diagnose [--json | --sarif] [--no-mask] [--mask-hosts] [--knowledge DIR]...\n"
        "                       [--color=WHEN] [--quiet] [--save | --save-raw] PATH... | PARTIAL... | -\n"
        "\n"
        "Reads rank/node logs (files, directories read recursively, or - for stdin) and names the failure, the rank\n"
        "that failed first, the collateral ranks, the fix and a command that verifies it.\n"
        "A PATH that is a partial model (written on another machine by `denpex scan --partial`, recognised by its\n"
        "first bytes) is merged with the logs read here: the verdict is the one reading every log on one machine\n"
        "would give. Partials follow the logs, in the order of their first input's path; one written by another\n"
        "format version or with other knowledge (--knowledge must match) is a usage error.\n";
    usage += options_help(option_table());
    usage +=
        "  -h, --help        print this help\n"
        "Warnings (unreadable or skipped inputs) go to stderr. When the local history exists ($XDG_DATA_HOME/denpex/\n"
        "history), the report says whether the same failure was seen before (see denpex history --help).\n"
        "Exit codes: 0 decided (the failure and the initiating rank, or a failure of the whole job),\n"
        "            1 nothing failed or nothing was found, 2 usage error,\n"
        "            3 undetermined (a failure was found; the report names the fact that would decide it).\n";
    return usage;
}

}  // namespace denpex::cli
