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

int usage_error(const std::string& message) {
    std::cerr << "denpex: " << message << " (see denpex --help)\n";
    return 2;
}

// Loads the built-in knowledge plus every --knowledge DIR; problems with a team's entries are fatal, since a
// silently ignored entry would be a wrong diagnosis later.
bool load_knowledge(const std::vector<std::string>& dirs, denpex::KnowledgeBase& kb) {
    std::vector<std::string> problems;
    kb = denpex::KnowledgeBase::load_embedded(problems);
    for (const auto& d : dirs) kb.add_directory(d, problems);
    for (const auto& p : problems) std::cerr << "denpex: knowledge: " << p << "\n";
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
    if (!load_knowledge(dirs, kb)) return 2;
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
    return report.diagnoses.empty() ? 1 : 0;
}

}  // namespace

int main(int argc, char** argv) {
    std::ios::sync_with_stdio(false);
    std::vector<std::string> args(argv + 1, argv + argc);
    if (args.empty()) return usage_error("missing command");
    const std::string cmd = args.front();
    std::vector<std::string> rest(args.begin() + 1, args.end());
    const bool asks_help = std::any_of(args.begin(), args.end(), [](const std::string& a) {
        return a == "--help" || a == "-h";
    });
    if (cmd == "--help" || cmd == "-h" || cmd == "help" || (cmd != "--version" && asks_help)) {
        std::cout << kUsage;
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
        if (!load_knowledge(dirs, kb)) return 2;
        return denpex::cli::kb_command(kb, kb_args, std::cout, std::cerr);
    }
    return usage_error("unknown command '" + cmd + "'");
}
