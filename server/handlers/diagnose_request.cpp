// `denpex/diagnose` and workspace/executeCommand: run the engine on texts, open documents and files on disk
// (editors never hand over files above 50 MB, so paths are read by the server itself), off the I/O thread,
// cancellable, with work-done progress; answer the engine's JSON contract plus LSP locations for the evidence.
#include <cstdint>
#include <filesystem>
#include <sys/stat.h>

#include <nlohmann/json.hpp>

#include "engine/inputs.hpp"
#include "engine/report.hpp"
#include "history/history_store.hpp"
#include "history/incident_history.hpp"
#include "server/dispatch/rpc_error.hpp"
#include "server/handlers/evidence_locations.hpp"
#include "server/handlers/progress.hpp"
#include "server/handlers/server_state.hpp"
#include "server/log.hpp"
#include "server/protocol/json_params.hpp"
#include "server/protocol/uri.hpp"

namespace denpex::server {

using nlohmann::json;

namespace {

struct DiagnoseJob {
    DiagnoseInput input;
    std::uint64_t total_bytes = 0;
    std::map<std::string, std::shared_ptr<const Document>> documents;   // evidence file (= URI) -> snapshot
    std::map<std::string, std::string> file_uris;                       // evidence file (display) -> file:// URI
    std::string text_name;                                              // the name the text was diagnosed under
    std::optional<LineIndex> text_lines;                                // over input.texts' text entry
};

std::shared_ptr<DiagnoseJob> build_job(ServerState& s, const json& p, const std::string& path) {
    require_object(p, path);
    auto job = std::make_shared<DiagnoseJob>();
    const std::optional<std::string> text = get_optional_string(p, "text", path);
    const std::vector<std::string> uris = get_optional_string_array(p, "uris", path);
    const std::vector<std::string> paths = get_optional_string_array(p, "paths", path);
    if (!text && uris.empty() && paths.empty())
        throw RpcError(error_code::invalid_params, path + " needs at least one of \"text\", \"uris\" or \"paths\"");

    for (std::size_t i = 0; i < uris.size(); ++i) {
        const std::string& uri = uris[i];
        if (auto doc = s.docs.get(uri)) {
            // Read in place: the job keeps the snapshot alive until the diagnosis ends.
            job->input.borrowed_texts.push_back({uri, uri_to_path(uri).value_or(""), doc->text});
            job->documents[uri] = doc;
            job->total_bytes += doc->text.size();
            continue;
        }
        auto file = uri_to_path(uri);
        if (!file)
            throw RpcError(error_code::invalid_params,
                           path + ".uris[" + std::to_string(i) + "]: " + uri + " is neither open nor a file: URI");
        struct stat st {};
        if (::stat(file->c_str(), &st) != 0 || !S_ISREG(st.st_mode))
            throw RpcError(error_code::invalid_params,
                           path + ".uris[" + std::to_string(i) + "]: " + *file + " is not a readable file");
        job->input.files.push_back({*file, uri});
        job->file_uris[uri] = uri;
        job->total_bytes += static_cast<std::uint64_t>(st.st_size);
    }
    if (!paths.empty()) {
        ExpandedInputs expanded = expand_inputs(paths);
        if (!expanded.errors.empty()) throw RpcError(error_code::invalid_params, path + ".paths: " + expanded.errors.front());
        if (expanded.files.empty())
            throw RpcError(error_code::invalid_params, path + ".paths: no log files found in " + paths.front());
        job->input.not_read.insert(job->input.not_read.end(), expanded.skipped.begin(), expanded.skipped.end());
        for (const InputFile& f : expanded.files) {
            struct stat st {};
            if (::stat(f.path.c_str(), &st) == 0) job->total_bytes += static_cast<std::uint64_t>(st.st_size);
            job->file_uris[f.display] = path_to_uri(f.path);
            job->input.files.push_back(f);
        }
    }
    if (text) {
        job->text_name = get_optional_string(p, "name", path).value_or("<text>");
        job->total_bytes += text->size();
        job->input.texts.emplace_back(job->text_name, *text);
    }
    // Index the text where it now lives (the vector no longer changes).
    for (const auto& [name, t] : job->input.texts)
        if (text && name == job->text_name && !job->documents.count(name)) job->text_lines.emplace(t);
    return job;
}

// The editor's history default (denpex.saveHistory -> --save-history): each explicit diagnosis is saved, and the
// answer says whether it was seen before, as `denpex diagnose --save --json` does. Document diagnostics are not
// saved: they run at every pause in typing.
void add_history(const ServerState& s, const Report& report, json& result) {
    if (!s.opts.save_history) return;
    HistoryRequest request;
    request.dir = s.opts.history_dir ? s.opts.history_dir : history_dir_from_env();
    request.save = true;
    std::error_code ec;
    const auto cwd = std::filesystem::current_path(ec);
    if (!ec) request.cwd = cwd.string();
    const HistoryView h = consult_history(report, request);
    for (const std::string& w : h.warnings) log_warning(w);
    if (wants_history_field(h)) result["history"] = history_json(h);
}

void run_job(ServerState& s, std::shared_ptr<DiagnoseJob> job, const json* work_done_token, Reply reply) {
    auto cancel = reply.cancel_token();
    auto progress = s.start_progress(work_done_token, job->total_bytes, "denpex: diagnosing", cancel);
    const PositionEncoding enc = s.encoding;
    s.exec.post_work([&s, job, progress, reply, cancel, enc] {
        auto finish_progress = [&](const char* how) {
            progress->end(how);
            s.forget_progress(progress->token());
        };
        try {
            if (cancel->load()) {
                finish_progress("cancelled");
                reply.error(error_code::request_cancelled, reply.method() + " was cancelled");
                return;
            }
            DiagnoseOptions options;
            options.cancel = cancel.get();
            options.mask = s.opts.mask;
            const std::uint64_t total = std::max<std::uint64_t>(1, job->total_bytes);
            options.progress = [progress, total](std::uint64_t bytes) {
                const unsigned pct = static_cast<unsigned>(std::min<std::uint64_t>(100, bytes * 100 / total));
                progress->report(pct, std::to_string(bytes >> 20) + " of " + std::to_string(total >> 20) + " MiB");
            };
            bool cancelled = false;
            Report report = s.engine.diagnose(job->input, options, &cancelled);
            if (cancelled || cancel->load()) {
                finish_progress("cancelled");
                reply.error(error_code::request_cancelled, reply.method() + " was cancelled");
                return;
            }
            json result = to_json(report);
            add_history(s, report, result);
            add_evidence_locations(result, [&](const std::string& file, std::uint64_t line) -> std::optional<Location> {
                if (auto d = job->documents.find(file); d != job->documents.end()) {
                    if (auto r = d->second->lines.engine_line_range(line, enc)) return Location{file, *r};
                    return std::nullopt;
                }
                if (auto f = job->file_uris.find(file); f != job->file_uris.end() && line > 0) {
                    const auto l = static_cast<std::uint32_t>(std::min<std::uint64_t>(line - 1, UINT32_MAX - 1));
                    return Location{f->second, Range{{l, 0}, {l + 1, 0}}};
                }
                if (job->text_lines && file == job->text_name) {
                    if (auto r = job->text_lines->engine_line_range(line, enc)) {
                        // A URI-like name (the client said where the text came from) keeps its location.
                        const bool uri_like = file.find("://") != std::string::npos || file.rfind("untitled:", 0) == 0;
                        return Location{uri_like ? file : std::string(), *r};
                    }
                }
                return std::nullopt;
            });
            finish_progress("done");
            reply.result(result);
        } catch (const std::exception& e) {
            finish_progress("failed");
            log_error(reply.method() + " failed: " + e.what());
            reply.error(error_code::request_failed, reply.method() + " failed: " + e.what());
        }
    });
}

}  // namespace

void register_diagnose(ServerState& s) {
    s.dispatcher.on_request("denpex/diagnose", [&s](const json& params, Reply reply) {
        auto job = build_job(s, params, "params");
        run_job(s, std::move(job), find_member(params, "workDoneToken"), std::move(reply));
    });

    s.dispatcher.on_request("workspace/executeCommand", [&s](const json& params, Reply reply) {
        require_object(params, "params");
        const std::string command = get_string(params, "command", "params");
        static const json kNoArguments = json::array();
        const json* args = find_member(params, "arguments");
        if (args && !args->is_array())
            throw RpcError(error_code::invalid_params, "params.arguments must be an array, " + describe(*args));
        const json& arguments = args ? *args : kNoArguments;
        if (command == kInsertAsyncErrorHandlingCommand) {
            execute_insert_command(s, arguments, std::move(reply));
        } else if (command == kMarkJobCommand) {
            execute_mark_job(s, arguments, std::move(reply));
        } else if (command == kDiagnoseCommand) {
            if (arguments.empty())
                throw RpcError(error_code::invalid_params,
                               std::string(kDiagnoseCommand) + " needs arguments: [{\"text\"?, \"uris\"?, \"paths\"?}]");
            auto job = build_job(s, arguments[0], "params.arguments[0]");
            run_job(s, std::move(job), find_member(params, "workDoneToken"), std::move(reply));
        } else {
            throw RpcError(error_code::invalid_params, "unknown command '" + command + "'");
        }
    });
}

}  // namespace denpex::server
