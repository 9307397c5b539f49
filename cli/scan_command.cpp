#include "cli/scan_command.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>

#include "cli/diagnose_command.hpp"
#include "cli/exit_status.hpp"
#include "cli/knowledge_loading.hpp"
#include "cli/option_table.hpp"
#include "cli/partial_inputs.hpp"
#include "cli/progress.hpp"
#include "engine/engine.hpp"
#include "engine/partial_model.hpp"

namespace denpex::cli {
namespace {

struct ScanOptions {
    std::string out;
    std::optional<std::string> label;   // shown before each input's name: "node7:/local/logs/rank_3.log"
    std::vector<std::string> knowledge_dirs, paths;
    bool quiet = false;
};

const std::vector<OptionSpec<ScanOptions>>& option_table() {
    using O = ScanOptions;
    using R = std::optional<std::string>;
    static const std::vector<OptionSpec<O>> table = {
        {"--partial", "OUT", "write the partial model to OUT (- for stdout; %N: the node's name, as srun's)",
         [](O& o, const std::string& v) -> R {
             if (v.empty()) return "--partial needs a file name";
             o.out = v;
             return std::nullopt;
         }},
        {"--label", "NAME", "show the inputs as NAME:PATH in the report (%N: the node's name), for logs on local disks",
         [](O& o, const std::string& v) -> R {
             if (v.empty()) return "--label needs a name";
             o.label = v;
             return std::nullopt;
         }},
        knowledge_option<O>("add a team's knowledge entries (repeatable; diagnose must be given the same)"),
        {"--quiet", nullptr, "no progress line on stderr (it is shown only when stderr is a terminal)",
         [](O& o, const std::string&) -> R { o.quiet = true; return std::nullopt; }},
    };
    return table;
}

int usage_error(const std::string& message) {
    std::cerr << "denpex: " << message << " (see denpex scan --help)\n";
    return code(ExitStatus::usage);
}

std::string host_name() {
    char name[256] = {};
    return ::gethostname(name, sizeof name - 1) == 0 ? std::string(name) : std::string();
}

}  // namespace

// srun expands %N only in its own --output/--error names, not in the command it runs: scan does it for OUT, so
// one command line names every node's file.
std::string expand_out_name(const std::string& out, const std::string& host) {
    const std::string short_host = host.substr(0, host.find('.'));
    std::string expanded;
    for (std::size_t i = 0; i < out.size(); ++i) {
        if (out[i] == '%' && i + 1 < out.size() && (out[i + 1] == 'N' || out[i + 1] == '%')) {
            expanded += out[i + 1] == 'N' ? short_host : "%";
            ++i;
        } else {
            expanded += out[i];
        }
    }
    return expanded;
}

namespace {

// Whole or not at all: a partial cut short by a full disk or a killed job step must not look like a node's model.
std::optional<std::string> write_atomically(const std::string& out, const std::string& text) {
    if (out == "-") {
        std::cout << text;
        std::cout.flush();
        return std::cout ? std::nullopt : std::optional<std::string>("cannot write to stdout");
    }
    const std::string tmp = out + ".tmp." + std::to_string(::getpid());
    {
        std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
        if (!f) return tmp + ": " + std::strerror(errno);
        f << text;
        f.flush();
        if (!f) {
            std::filesystem::remove(tmp);
            return tmp + ": write failed";
        }
    }
    std::error_code ec;
    std::filesystem::rename(tmp, out, ec);
    if (ec) {
        std::filesystem::remove(tmp);
        return out + ": " + ec.message();
    }
    return std::nullopt;
}

// Inside a Slurm step the node's Slurm name (several slurmd may share a host); else this host's name.
std::string node_name(const std::string& host) {
    const char* slurm_node = std::getenv("SLURMD_NODENAME");
    return slurm_node && *slurm_node ? std::string(slurm_node) : host.substr(0, host.find('.'));
}

Timeline read_logs(const Engine& engine, const DiagnoseInput& input, bool quiet) {
    const bool draw = !quiet && ::isatty(STDERR_FILENO) == 1;
    TerminalProgress progress(STDERR_FILENO, draw, 0);
    DiagnoseOptions options;
    if (draw) options.progress = [&progress](std::uint64_t bytes) { progress.update(bytes); };
    Timeline t = engine.collect(input, options);
    progress.finish();
    return t;
}

}  // namespace

std::string scan_usage() {
    std::string usage =
        "usage: denpex scan --partial OUT [--label NAME] [--knowledge DIR]... [--quiet] PATH... | -\n"
        "\n"
        "Reads this machine's logs (files, directories read recursively, or - for stdin) as diagnose does and writes\n"
        "their partial model to OUT: a small versioned file (KBs for GBs of logs) that `denpex diagnose` merges\n"
        "with other machines' partials and raw logs, giving the verdict reading every log on one machine would.\n"
        "Partials among the PATHs are merged into OUT (merging is associative: a rack's partial of its nodes').\n"
        "Run it on every node with the cluster's scheduler, e.g.\n"
        "  srun --ntasks-per-node=1 denpex scan --quiet --partial \"$DIR/partial-%N.json\" /local/logs\n"
        "  denpex diagnose \"$DIR\"/partial-*.json\n";
    usage += options_help(option_table());
    usage +=
        "  -h, --help        print this help\n"
        "Exit codes: 0 written, 2 usage error or OUT not written.\n";
    return usage;
}

int scan_command(const std::vector<std::string>& args) {
    ScanOptions o;
    if (auto error = parse_with_table(option_table(), args, "scan", o, o.paths)) return usage_error(*error);
    if (o.out.empty()) return usage_error("scan needs --partial OUT");
    if (o.paths.empty()) return usage_error("scan needs at least one log file, directory, or - for stdin");
    const SplitPaths paths = split_partial_paths(o.paths);
    ExpandedInputs inputs = expand_inputs(paths.logs);
    if (!inputs.errors.empty()) return usage_error(inputs.errors.front());
    KnowledgeBase kb;
    if (!load_knowledge(o.knowledge_dirs, kb, true, std::cerr)) return code(ExitStatus::usage);
    const Engine engine(std::move(kb));
    const PartialCodec codec(engine.knowledge());
    const std::string host = host_name();
    const std::string node = node_name(host);
    DiagnoseInput input;
    input.files = inputs.files;
    input.not_read = inputs.skipped;
    // Partials among the paths are merged into this one (merging is associative: a rack's partial of its nodes').
    LoadedPartials partials = load_partials(paths.partials, codec);
    if (partials.error) return usage_error(*partials.error);
    input.partials = std::move(partials.timelines);
    if (o.label)
        for (InputFile& f : input.files) f.display = expand_out_name(*o.label, node) + ":" + f.display;
    Timeline t = read_logs(engine, input, o.quiet);
    // A node without logs is a fact for the merged report, not a failed step that would end the others' scans.
    if (inputs.files.empty() && paths.partials.empty())
        t.warnings.push_back(node + ": no log files found in " + o.paths.front());
    const std::string text = codec.encode(t, {host, std::string("denpex ") + kVersion});
    const std::string out = o.out == "-" ? o.out : expand_out_name(o.out, node);
    if (auto problem = write_atomically(out, text)) return usage_error("partial not written: " + *problem);
    for (const auto& w : t.warnings) std::cerr << "denpex: warning: " << w << "\n";
    return 0;
}

}  // namespace denpex::cli
