// denpex command line: `diagnose` (text or --json), `kb` (browse the knowledge base).
// Usage errors print one line to stderr and exit 2; `diagnose` exits 0 when it made a diagnosis and 1 when
// nothing failed or nothing was found.
#include <algorithm>
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include "cli/kb_command.hpp"
#include "engine/engine.hpp"
#include "engine/report.hpp"
#include "server/options.hpp"
#include "server/serve.hpp"

namespace {

constexpr const char* kUsage =
    "usage: denpex diagnose [--json] [--no-mask] [--mask-hosts] [--knowledge DIR]... PATH... | -\n"
    "       denpex serve [--stdio] [--clientProcessId=N] [--log=LEVEL] [--knowledge DIR]...\n"
    "       denpex kb list [--json] | kb show ID | kb export DIR | kb patterns [--no-captures]\n"
    "       denpex --version | --help\n"
    "\n"
    "diagnose  read rank/node logs (files, directories, or - for stdin) and name the failure, the rank that\n"
    "          failed first, the collateral ranks, the fix and a command that verifies it.\n"
    "serve     speak LSP 3.17 / JSON-RPC over stdin and stdout for editors (diagnostics, hover, quick-fix).\n"
    "kb        list or show the failure entries denpex knows; `export` writes them as an offline HTML reference;\n"
    "          `patterns` prints every signature, one per line.\n";

constexpr const char* kDiagnoseUsage =
    "usage: denpex diagnose [--json] [--no-mask] [--mask-hosts] [--knowledge DIR]... PATH... | -\n"
    "\n"
    "Reads rank/node logs (files, directories read recursively, or - for stdin) and names the failure, the rank\n"
    "that failed first, the collateral ranks, the fix and a command that verifies it.\n"
    "  --json            print the JSON contract instead of the text report\n"
    "  --knowledge DIR   add a team's knowledge entries (repeatable; a broken entry is an error)\n"
    "  --no-mask         show the logs' raw text (secrets, tokens, e-mail addresses are masked by default)\n"
    "  --mask-hosts      also replace host names and IP addresses by pseudonyms, for sharing outside the team\n"
    "  -h, --help        print this help\n"
    "Warnings (unreadable or skipped inputs) go to stderr. Exit codes: 0 a diagnosis was made, 1 nothing failed\n"
    "or nothing was found, 2 usage error.\n";

constexpr const char* kKbUsage =
    "usage: denpex kb list [--json] [--knowledge DIR]...\n"
    "       denpex kb show ID [--knowledge DIR]...\n"
    "       denpex kb export DIR [--knowledge DIR]...\n"
    "       denpex kb patterns [--no-captures] [--knowledge DIR]...\n"
    "\n"
    "Browses the failure entries denpex knows.\n"
    "  list              one line per entry (--json: the entries as JSON)\n"
    "  show ID           one entry's reference card, as markdown\n"
    "  export DIR        an offline HTML reference (index, one page per entry)\n"
    "  patterns          every signature's pattern, one per line (--no-captures: plain groups, for ripgrep)\n"
    "  --knowledge DIR   add a team's knowledge entries (repeatable)\n"
    "  -h, --help        print this help\n";

int usage_error(const std::string& message) {
    std::cerr << "denpex: " << message << " (see denpex --help)\n";
    return 2;
}

// Loads the built-in knowledge plus every --knowledge DIR; problems with a team's entries are fatal, since a
// silently ignored entry would be a wrong diagnosis later. Entries refused as unsafe (a taken or malformed id, a
// pattern too costly to match) are warnings: printed here with `print_warnings`, else in the report's warnings.
bool load_knowledge(const std::vector<std::string>& dirs, denpex::KnowledgeBase& kb, bool print_warnings) {
    std::vector<std::string> problems;
    kb = denpex::KnowledgeBase::load_embedded(problems);
    for (const auto& d : dirs) kb.add_directory(d, problems);
    for (const auto& p : problems) std::cerr << "denpex: knowledge: " << p << "\n";
    if (print_warnings)
        for (const auto& w : kb.warnings()) std::cerr << "denpex: warning: knowledge: " << w << "\n";
    return problems.empty();
}

int diagnose(const std::vector<std::string>& args) {
    bool json = false;
    denpex::MaskOptions mask;
    std::vector<std::string> dirs, paths;
    bool options_done = false;
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        if (!options_done && a == "--") options_done = true;
        else if (!options_done && a == "--json") json = true;
        else if (!options_done && a == "--no-mask") mask.secrets = false;
        else if (!options_done && a == "--mask-hosts") mask.hosts = true;
        else if (!options_done && a == "--knowledge") {
            if (i + 1 >= args.size()) return usage_error("--knowledge needs a directory");
            dirs.push_back(args[++i]);
        } else if (!options_done && a.rfind("--knowledge=", 0) == 0) dirs.push_back(a.substr(12));
        else if (!options_done && a.size() > 1 && a[0] == '-') return usage_error("unknown option '" + a + "' for diagnose");
        else paths.push_back(a);
    }
    if (paths.empty()) return usage_error("diagnose needs at least one log file, directory, or - for stdin");
    denpex::ExpandedInputs inputs = denpex::expand_inputs(paths);
    if (!inputs.errors.empty()) return usage_error(inputs.errors.front());
    if (inputs.files.empty())
        return usage_error(inputs.skipped.empty() ? "no log files found in " + paths.front()
                                                  : "nothing to read: " + inputs.skipped.front());
    denpex::KnowledgeBase kb;
    if (!load_knowledge(dirs, kb, false)) return 2;
    denpex::Engine engine(std::move(kb));
    denpex::DiagnoseInput input;
    input.files = inputs.files;
    input.not_read = inputs.skipped;
    denpex::DiagnoseOptions options;
    options.mask = mask;
    denpex::Report report = engine.diagnose(input, options);
    // Evidence is cut on character boundaries, but a log line is the user's bytes: never abort on them.
    if (json) std::cout << denpex::to_json(report).dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
    else std::cout << denpex::to_text(report);
    // What was not read is said on stderr, found or not: "nothing found" in inputs that were never read is no
    // answer. (--json carries them in "warnings" too.)
    std::cout.flush();
    for (const auto& w : report.warnings) std::cerr << "denpex: warning: " << w << "\n";
    return report.diagnoses.empty() ? 1 : 0;
}

}  // namespace

int main(int argc, char** argv) {
    std::ios::sync_with_stdio(false);
    std::vector<std::string> args(argv + 1, argv + argc);
    if (args.empty()) return usage_error("missing command");
    const std::string cmd = args.front();
    std::vector<std::string> rest(args.begin() + 1, args.end());
    const bool asks_help = std::any_of(rest.begin(), rest.end(), [](const std::string& a) {
        return a == "--help" || a == "-h";
    });
    if (cmd == "--help" || cmd == "-h" || cmd == "help") {
        std::cout << kUsage;
        return 0;
    }
    // A command's --help prints that command's own options; an unknown command is a usage error, --help or not.
    if (asks_help && cmd == "diagnose") {
        std::cout << kDiagnoseUsage;
        return 0;
    }
    if (asks_help && cmd == "serve") {
        std::cout << denpex::server::serve_usage();
        return 0;
    }
    if (asks_help && cmd == "kb") {
        std::cout << kKbUsage;
        return 0;
    }
    if (cmd == "--version") {
        if (!rest.empty()) return usage_error("--version takes no arguments");
        std::cout << "denpex 0.1.0\n";
        return 0;
    }
    if (cmd == "diagnose") return diagnose(rest);
    if (cmd == "serve") return denpex::server::run_serve(rest);
    if (cmd == "kb") {
        std::vector<std::string> dirs, kb_args;
        for (std::size_t i = 0; i < rest.size(); ++i) {
            if (rest[i] == "--knowledge") {
                if (i + 1 >= rest.size()) return usage_error("--knowledge needs a directory");
                dirs.push_back(rest[++i]);
            } else {
                kb_args.push_back(rest[i]);
            }
        }
        denpex::KnowledgeBase kb;
        if (!load_knowledge(dirs, kb, true)) return 2;
        return denpex::cli::kb_command(kb, kb_args, std::cout, std::cerr);
    }
    return usage_error("unknown command '" + cmd + "'");
}
