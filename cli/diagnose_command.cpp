#include "cli/diagnose_command.hpp"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <optional>

#include "cli/color.hpp"
#include "cli/diagnose_options.hpp"
#include "cli/exit_status.hpp"
#include "history/history_store.hpp"
#include "history/incident_history.hpp"
#include "cli/knowledge_loading.hpp"
#include "cli/partial_inputs.hpp"
#include "cli/progress.hpp"
#include "cli/sarif.hpp"
#include "engine/engine.hpp"
#include "engine/report.hpp"

namespace denpex::cli {
namespace {

namespace fs = std::filesystem;

int usage_error(const std::string& message) {
    std::cerr << "denpex: " << message << " (see denpex diagnose --help)\n";
    return code(ExitStatus::usage);
}

// The inputs' total size, 0 (unknown) when stdin is among them.
std::uint64_t total_bytes(const std::vector<InputFile>& files) {
    std::uint64_t total = 0;
    for (const auto& f : files) {
        if (f.path == "-") return 0;
        std::error_code ec;
        const auto size = fs::file_size(f.path, ec);
        if (!ec) total += size;
    }
    return total;
}

Report run_engine(const Engine& engine, const DiagnoseInput& input, const DiagnoseCliOptions& o) {
    const bool draw = !o.quiet && ::isatty(STDERR_FILENO) == 1;
    TerminalProgress progress(STDERR_FILENO, draw, total_bytes(input.files));
    DiagnoseOptions options;
    options.mask = o.mask;
    if (draw) options.progress = [&progress](std::uint64_t bytes) { progress.update(bytes); };
    Report report = engine.diagnose(input, options);
    progress.finish();
    return report;
}

std::string current_dir() {
    std::error_code ec;
    const auto cwd = fs::current_path(ec);
    return ec ? std::string("/") : cwd.string();
}

void print_report(const Report& report, const HistoryView& h, const DiagnoseCliOptions& o) {
    constexpr auto kReplace = nlohmann::json::error_handler_t::replace;
    if (o.format == OutputFormat::json) {
        nlohmann::json j = to_json(report);
        if (wants_history_field(h)) j["history"] = history_json(h);
        std::cout << j.dump(2, ' ', false, kReplace) << "\n";
        return;
    }
    if (o.format == OutputFormat::sarif) {
        nlohmann::json j = to_sarif(report, kVersion);
        if (wants_history_field(h)) j["runs"][0]["results"][0]["properties"]["history"] = history_json(h);
        std::cout << j.dump(2, ' ', false, kReplace) << "\n";
        return;
    }
    std::string text = to_text(report);
    if (const std::string seen = format_seen_before(h.seen); !seen.empty()) text += "\n" + seen;
    const bool colour = use_color(o.color, ::isatty(STDOUT_FILENO) == 1, std::getenv("NO_COLOR"));
    std::cout << (colour ? colorize_report(text) : text);
}

}  // namespace

int diagnose_command(const std::vector<std::string>& args) {
    DiagnoseCliOptions o;
    if (auto error = parse_diagnose_options(args, o)) return usage_error(*error);
    const SplitPaths paths = split_partial_paths(o.paths);
    ExpandedInputs inputs = expand_inputs(paths.logs);
    if (!inputs.errors.empty()) return usage_error(inputs.errors.front());
    if (inputs.files.empty() && paths.partials.empty())
        return usage_error(inputs.skipped.empty() ? "no log files found in " + o.paths.front()
                                                  : "nothing to read: " + inputs.skipped.front());
    KnowledgeBase kb;
    if (!load_knowledge(o.knowledge_dirs, kb, false, std::cerr)) return code(ExitStatus::usage);
    const Engine engine(std::move(kb));
    DiagnoseInput input;
    input.files = inputs.files;
    input.not_read = inputs.skipped;
    // Other machines' logs, read there (denpex scan --partial): refused whole, never merged in part.
    LoadedPartials partials = load_partials(paths.partials, PartialCodec(engine.knowledge()));
    if (partials.error) return usage_error(*partials.error);
    input.partials = std::move(partials.timelines);
    const Report report = run_engine(engine, input, o);
    const HistoryView history = consult_history(report, {history_dir_from_env(), o.save, o.save_raw, current_dir()});
    // Evidence is cut on character boundaries, but a log line is the user's bytes: never abort on them.
    print_report(report, history, o);
    std::cout.flush();
    // What was not read is said on stderr, found or not: "nothing found" in inputs that were never read is no
    // answer. (--json carries them in "warnings" too.)
    for (const auto& w : report.warnings) std::cerr << "denpex: warning: " << w << "\n";
    for (const auto& w : history.warnings) std::cerr << "denpex: warning: " << w << "\n";
    if (!history.saved_id.empty()) std::cerr << "denpex: saved as incident " << history.saved_id << " in " << *history.dir << "\n";
    return code(exit_status_for(report));
}

}  // namespace denpex::cli
