// denpex command line: `diagnose` (text, --json or --sarif), `scan` (a partial model for diagnose), `watch` (follow a running job), `history` (incidents saved with --save), `kb`
// (browse the knowledge base), `serve` (LSP over stdio).
// Usage errors print one line to stderr and exit 2; `diagnose`'s exit codes are cli/exit_status.hpp's.
#include <algorithm>
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include "cli/diagnose_command.hpp"
#include "cli/diagnose_options.hpp"
#include "cli/history_command.hpp"
#include "history/history_store.hpp"
#include "cli/kb_command.hpp"
#include "cli/scan_command.hpp"
#include "cli/watch_command.hpp"
#include "cli/watch_options.hpp"
#include "cli/knowledge_loading.hpp"
#include "server/options.hpp"
#include "server/serve.hpp"

namespace {

constexpr const char* kUsage =
    "usage: denpex diagnose [--json | --sarif] [--no-mask] [--mask-hosts] [--knowledge DIR]... [--color=WHEN]\n"
    "                       [--quiet] [--save | --save-raw] PATH... | PARTIAL... | -\n"
    "       denpex scan --partial OUT [--knowledge DIR]... PATH... | -\n"
    "       denpex watch [--json] [--exec CMD] [--from-end] [--no-mask] [--mask-hosts] PATH... | -\n"
    "       denpex history [list] [--json] [-n N] | history show ID [--json]\n"
    "       denpex serve [--stdio] [--clientProcessId=N] [--log=LEVEL] [--knowledge DIR]...\n"
    "       denpex kb list [--json] | kb show ID | kb export DIR | kb patterns [--no-captures]\n"
    "       denpex kb fingerprints [--format grep|re2|json]\n"
    "       denpex --version | --help | COMMAND --help\n"
    "\n"
    "diagnose  read rank/node logs (files, directories, or - for stdin) and name the failure, the rank that\n"
    "          failed first, the collateral ranks, the fix and a command that verifies it. Exit codes:\n"
    "          0 decided, 1 nothing found, 2 usage error, 3 undetermined. Partial models (see scan) are merged.\n"
    "scan      read one machine's logs into a small partial model (--partial OUT) for diagnose to merge with\n"
    "          other machines': run it on every node with srun or kubectl exec instead of copying the logs.\n"
    "watch     follow a running job's logs (growing files, new files in directories, stdin) and report the\n"
    "          failure of the first rank the moment its line is written, then the verdict as it changes.\n"
    "history   list the incidents saved with `diagnose --save`, or print one saved report again.\n"
    "serve     speak LSP 3.17 / JSON-RPC over stdin and stdout for editors (diagnostics, hover, quick-fix).\n"
    "kb        list or show the failure entries denpex knows; `export` writes them as an offline HTML reference;\n"
    "          `patterns` prints every signature, one per line; `fingerprints` what to alert on in a running job.\n";

constexpr const char* kKbUsage =
    "usage: denpex kb list [--json] [--knowledge DIR]...\n"
    "       denpex kb show ID [--knowledge DIR]...\n"
    "       denpex kb export DIR [--knowledge DIR]...\n"
    "       denpex kb patterns [--no-captures] [--knowledge DIR]...\n"
    "       denpex kb fingerprints [--format grep|re2|json] [--knowledge DIR]...\n"
    "\n"
    "Browses the failure entries denpex knows.\n"
    "  list              one line per entry (--json: the entries as JSON)\n"
    "  show ID           one entry's reference card, as markdown\n"
    "  export DIR        an offline HTML reference (index, one page per entry)\n"
    "  patterns          every signature's pattern, one per line (--no-captures: plain groups, for ripgrep)\n"
    "  fingerprints      one alert pattern per entry for monitoring a running job: id, TAB, pattern\n"
    "                    (--format grep: POSIX ERE for grep -E, the default; re2; json: an array)\n"
    "  --knowledge DIR   add a team's knowledge entries (repeatable)\n"
    "  -h, --help        print this help\n";

int usage_error(const std::string& message) {
    std::cerr << "denpex: " << message << " (see denpex --help)\n";
    return 2;
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
        std::cout << denpex::cli::diagnose_usage();
        return 0;
    }
    if (asks_help && cmd == "scan") {
        std::cout << denpex::cli::scan_usage();
        return 0;
    }
    if (asks_help && cmd == "watch") {
        std::cout << denpex::cli::watch_usage();
        return 0;
    }
    if (asks_help && cmd == "serve") {
        std::cout << denpex::server::serve_usage();
        return 0;
    }
    if (asks_help && cmd == "history") {
        std::cout << denpex::cli::history_usage();
        return 0;
    }
    if (asks_help && cmd == "kb") {
        std::cout << kKbUsage;
        return 0;
    }
    if (cmd == "--version") {
        if (!rest.empty()) return usage_error("--version takes no arguments");
        std::cout << "denpex " << denpex::cli::kVersion << "\n";
        return 0;
    }
    if (cmd == "diagnose") return denpex::cli::diagnose_command(rest);
    if (cmd == "watch") return denpex::cli::watch_command(rest);
    if (cmd == "scan") return denpex::cli::scan_command(rest);
    if (cmd == "history") {
        const auto dir = denpex::history_dir_from_env();
        if (!dir) return usage_error("history: neither XDG_DATA_HOME nor HOME names a directory");
        return denpex::cli::history_command(rest, *dir, std::cout, std::cerr);
    }
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
        if (!denpex::cli::load_knowledge(dirs, kb, true, std::cerr)) return 2;
        return denpex::cli::kb_command(kb, kb_args, std::cout, std::cerr);
    }
    return usage_error("unknown command '" + cmd + "'");
}
