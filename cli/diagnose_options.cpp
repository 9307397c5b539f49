#include "cli/diagnose_options.hpp"

#include <array>
#include <functional>

namespace denpex::cli {
namespace {

struct OptionSpec {
    const char* name;
    const char* value;   // nullptr: a flag
    const char* help;
    // Applies the option; returns a usage error or nullopt.
    std::function<std::optional<std::string>(DiagnoseCliOptions&, const std::string&)> apply;
};

std::optional<std::string> set_format(DiagnoseCliOptions& o, OutputFormat f) {
    if (o.format != OutputFormat::text && o.format != f) return "--json and --sarif exclude each other";
    o.format = f;
    return std::nullopt;
}

const std::vector<OptionSpec>& option_table() {
    using O = DiagnoseCliOptions;
    using R = std::optional<std::string>;
    static const std::vector<OptionSpec> table = {
        {"--json", nullptr, "print the JSON contract instead of the text report",
         [](O& o, const std::string&) { return set_format(o, OutputFormat::json); }},
        {"--sarif", nullptr, "print SARIF 2.1.0 (the initiating line as the result, collateral as related locations)",
         [](O& o, const std::string&) { return set_format(o, OutputFormat::sarif); }},
        {"--knowledge", "DIR", "add a team's knowledge entries (repeatable; a broken entry is an error)",
         [](O& o, const std::string& v) -> R {
             if (v.empty()) return "--knowledge needs a directory";
             o.knowledge_dirs.push_back(v);
             return std::nullopt;
         }},
        {"--no-mask", nullptr, "show the logs' raw text (secrets, tokens, e-mail addresses are masked by default)",
         [](O& o, const std::string&) -> R { o.mask.secrets = false; return std::nullopt; }},
        {"--mask-hosts", nullptr, "also replace host names and IP addresses by pseudonyms, for sharing outside the team",
         [](O& o, const std::string&) -> R { o.mask.hosts = true; return std::nullopt; }},
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

const OptionSpec* find_option(const std::string& name) {
    for (const auto& spec : option_table())
        if (name == spec.name) return &spec;
    return nullptr;
}

}  // namespace

std::optional<std::string> parse_diagnose_options(const std::vector<std::string>& args, DiagnoseCliOptions& out) {
    bool options_done = false;
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        if (options_done || a == "-" || a.empty() || a[0] != '-') {
            out.paths.push_back(a);
            continue;
        }
        if (a == "--") {
            options_done = true;
            continue;
        }
        const std::size_t eq = a.find('=');
        const std::string name = a.substr(0, eq);
        const OptionSpec* spec = find_option(name);
        if (!spec || (!spec->value && eq != std::string::npos)) return "unknown option '" + a + "' for diagnose";
        std::string value;
        if (spec->value && eq != std::string::npos) value = a.substr(eq + 1);
        else if (spec->value) {
            if (i + 1 >= args.size()) return name + " needs " + (name == "--knowledge" ? "a directory" : "a value");
            value = args[++i];
        }
        if (auto error = spec->apply(out, value)) return error;
    }
    if (out.paths.empty()) return "diagnose needs at least one log file, directory, or - for stdin";
    return std::nullopt;
}

std::string diagnose_usage() {
    std::string usage =
        "usage: denpex diagnose [--json | --sarif] [--no-mask] [--mask-hosts] [--knowledge DIR]...\n"
        "                       [--color=WHEN] [--quiet] [--save | --save-raw] PATH... | -\n"
        "\n"
        "Reads rank/node logs (files, directories read recursively, or - for stdin) and names the failure, the rank\n"
        "that failed first, the collateral ranks, the fix and a command that verifies it.\n";
    for (const auto& spec : option_table()) {
        std::string left = std::string("  ") + spec.name + (spec.value ? std::string(" ") + spec.value : "");
        left.resize(std::max<std::size_t>(left.size() + 2, 20), ' ');
        usage += left + spec.help + "\n";
    }
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
