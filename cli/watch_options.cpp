#include "cli/watch_options.hpp"

#include <algorithm>
#include <functional>

#include "cli/option_table.hpp"

namespace denpex::cli {
namespace {

using Spec = OptionSpec<WatchCliOptions>;

const std::vector<Spec>& option_table() {
    using O = WatchCliOptions;
    using R = std::optional<std::string>;
    static const std::vector<Spec> table = {
        {"--json", nullptr, "JSON Lines: one object per update, the diagnose --json report inside",
         [](O& o, const std::string&) -> R { o.format = WatchFormat::json_lines; return std::nullopt; }},
        {"--exec", "CMD", "run CMD (/bin/sh -c) once per new initiating event: the JSON on its stdin, DENPEX_* "
                          "variables in its environment",
         [](O& o, const std::string& v) -> R {
             if (v.empty()) return "--exec needs a command";
             if (o.exec) return "--exec may be given once";
             o.exec = v;
             return std::nullopt;
         }},
        {"--from-end", nullptr, "skip what the files hold already; read only lines written from now on",
         [](O& o, const std::string&) -> R { o.from_end = true; return std::nullopt; }},
        knowledge_option<O>(kKnowledgeHelp),
        no_mask_option<O>(),
        mask_hosts_option<O>(),
    };
    return table;
}

std::optional<std::string> check_paths(const WatchCliOptions& o) {
    if (o.paths.empty()) return "watch needs at least one log file, directory, or - for stdin";
    if (std::count(o.paths.begin(), o.paths.end(), "-") > 1) return "watch reads stdin (-) once";
    return std::nullopt;
}

}  // namespace

std::optional<std::string> parse_watch_options(const std::vector<std::string>& args, WatchCliOptions& out) {
    if (auto error = parse_with_table(option_table(), args, "watch", out, out.paths)) return error;
    return check_paths(out);
}

std::string watch_usage() {
    std::string usage =
        "usage: denpex watch [--json] [--exec CMD] [--from-end] [--no-mask] [--mask-hosts] [--knowledge DIR]...\n"
        "                    PATH... | -\n"
        "\n"
        "Follows a running job's logs: files as they grow (rotated or truncated ones too), new files in watched\n"
        "directories (a new node's log, attempt_1/), and stdin (- : kubectl logs -f, tail -F). The first failure\n"
        "of one rank (an OOM, an Xid, a segfault, an exception) is announced as soon as its line is written, with\n"
        "the rank, host and evidence; the verdict is printed again each time it changes; a final report is printed\n"
        "when stdin ends (when it is the only input) or on SIGINT/SIGTERM.\n";
    usage += options_help(option_table());
    usage +=
        "  -h, --help        print this help\n"
        "--exec's environment: DENPEX_EVENT, DENPEX_FAILURE, DENPEX_RANK, DENPEX_HOST, DENPEX_CONFIDENCE,\n"
        "DENPEX_EVIDENCE_FILE, DENPEX_EVIDENCE_LINE (log text is never put into the command line).\n"
        "Exit codes (of the final report, as diagnose's): 0 decided, 1 nothing found, 2 usage error,\n"
        "            3 undetermined.\n";
    return usage;
}

}  // namespace denpex::cli
