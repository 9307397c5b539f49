// Log documents are diagnosed job by job (server/handlers/log_jobs.hpp): all open documents of the job in one
// Report, published for each of them, so a collateral line links to the initiating line in another document and
// a document alone says what is missing rather than guessing. Runs on a worker, debounced while the client keeps
// changing documents; the parts of the job that did not change are not read again (ReadPart).
#include <algorithm>
#include <functional>

#include <nlohmann/json.hpp>

#include "engine/path_hints.hpp"
#include "server/dispatch/rpc_error.hpp"
#include "server/handlers/log_diagnostics.hpp"
#include "server/handlers/progress.hpp"
#include "server/handlers/server_state.hpp"
#include "server/log.hpp"
#include "server/protocol/json_params.hpp"
#include "server/protocol/uri.hpp"

namespace denpex::server {

using nlohmann::json;

namespace {

using DocPtr = std::shared_ptr<const Document>;

// A part of a job read by one Collector: the documents of one node (path_hints' node_key: an attempt_N tree),
// else one document. `cached` is its last read when its documents have not changed since; `growing` is the open
// reader of a one-document part, taken out of the cache for this run (engine/growing_text.hpp).
struct PartPlan {
    std::string key;
    std::vector<DocPtr> docs;
    std::shared_ptr<const Timeline> cached;
    std::shared_ptr<GrowingText> growing;
};

std::string document_path(const Document& doc) { return uri_to_path(doc.uri).value_or(""); }

std::string part_key(const Document& doc) {
    const std::string path = document_path(doc);
    const std::string node = path.empty() ? std::string() : path_hints(path).node_key;
    return node.empty() ? "doc:" + doc.uri : "node:" + node;
}

bool same_snapshots(const std::vector<std::weak_ptr<const Document>>& read, const std::vector<DocPtr>& now) {
    if (read.size() != now.size()) return false;
    for (std::size_t i = 0; i < read.size(); ++i)
        if (read[i].lock() != now[i]) return false;
    return true;
}

std::vector<PartPlan> plan_parts(ServerState& s, const std::vector<std::string>& members, LogJobRun& run) {
    std::vector<PartPlan> plans;
    for (const std::string& uri : members) {
        DocPtr doc = s.docs.get(uri);
        if (!doc) continue;
        const std::string key = part_key(*doc);
        auto it = std::find_if(plans.begin(), plans.end(), [&](const PartPlan& p) { return p.key == key; });
        if (it == plans.end()) it = plans.insert(plans.end(), PartPlan{key, {}, nullptr, nullptr});
        it->docs.push_back(std::move(doc));
    }
    for (PartPlan& p : plans) {
        auto c = run.parts.find(p.key);
        if (c == run.parts.end()) continue;
        if (same_snapshots(c->second.docs, p.docs)) p.cached = c->second.timeline;
        if (p.docs.size() == 1) p.growing = std::move(c->second.growing);   // this run owns it now
    }
    return plans;
}

// What a worker hands back to the I/O thread.
struct JobResult {
    std::vector<std::pair<std::string, ReadPart>> parts;          // every part of the run, read or reused
    std::vector<std::pair<DocPtr, LogFindings>> findings;          // per document
};

std::string job_title(const std::vector<PartPlan>& plans) {
    std::size_t docs = 0;
    std::string one;
    for (const PartPlan& p : plans)
        for (const DocPtr& d : p.docs) {
            ++docs;
            one = uri_basename(d->uri);
        }
    return docs == 1 ? "denpex: diagnosing " + one : "denpex: diagnosing " + std::to_string(docs) + " logs of one job";
}

void publish_results(ServerState& s, const std::string& job, const std::shared_ptr<std::atomic<bool>>& cancel,
                     JobResult& result) {
    if (cancel->load() || s.dispatcher.phase() != Dispatcher::Phase::running) return;
    auto run_it = s.job_runs.find(job);
    if (run_it == s.job_runs.end() || run_it->second.running != cancel) return;
    LogJobRun& run = run_it->second;
    run.running.reset();
    run.parts.clear();
    for (auto& [key, part] : result.parts) run.parts.emplace(key, std::move(part));
    for (auto& [doc, findings] : result.findings) {
        // A document changed or closed meanwhile: a newer run of its job is already scheduled.
        if (s.docs.get(doc->uri) != doc) continue;
        auto log = s.logs.find(doc->uri);
        if (log == s.logs.end()) continue;
        log->second.notes = std::move(findings.notes);
        log->second.notes_version = doc->version;
        log_debug("publishing " + std::to_string(findings.diagnostics.size()) + " diagnostics for " + doc->uri);
        s.dispatcher.notify("textDocument/publishDiagnostics", {{"uri", doc->uri},
                                                                {"version", doc->version},
                                                                {"diagnostics", std::move(findings.diagnostics)}});
    }
}

// A one-document part read through its GrowingText: the lines appended since the last read when the document only
// grew, else the whole text through a new one. Null when the text cannot be read that way (engine.read reads it).
std::shared_ptr<const Timeline> read_growing(const ServerState& s, const PartPlan& p, std::shared_ptr<GrowingText>& growing,
                                             const std::atomic<bool>* cancel,
                                             const std::function<void(std::uint64_t)>& progress, bool& cancelled) {
    if (p.docs.size() != 1) return nullptr;
    const Document& doc = *p.docs.front();
    try {
        if (growing) {
            const std::uint64_t before = growing->bytes_read();
            const auto outcome = growing->read_to(doc.text, cancel, [&](std::uint64_t b) { progress(before + b); });
            if (outcome == GrowingText::Outcome::read) return std::make_shared<const Timeline>(growing->snapshot());
            if (outcome == GrowingText::Outcome::cancelled) cancelled = true;
        }
        growing.reset();
        if (cancelled) return nullptr;
        auto fresh = GrowingText::open(s.engine.matcher(), doc.uri, document_path(doc), doc.text);
        if (!fresh) return nullptr;
        const auto outcome = fresh->read_to(doc.text, cancel, progress);
        if (outcome == GrowingText::Outcome::cancelled) cancelled = true;
        if (outcome != GrowingText::Outcome::read) return nullptr;
        growing = std::move(fresh);
        return std::make_shared<const Timeline>(growing->snapshot());
    } catch (const std::exception& e) {   // the reader's boundary, as Engine::read's: read it whole instead
        log_error("reading " + doc.uri + " as it grew failed: " + e.what());
        growing.reset();
        return nullptr;
    }
}

// On a worker: reads the parts that changed, reasons over the whole job, and turns the Report into each
// document's diagnostics. Returns nullopt when cancelled.
std::optional<JobResult> run_job(const ServerState& s, const std::vector<PartPlan>& plans,
                                 const std::shared_ptr<std::atomic<bool>>& cancel,
                                 const std::shared_ptr<WorkDoneProgress>& progress, std::uint64_t total,
                                 PositionEncoding enc) {
    JobResult out;
    std::vector<Timeline> timelines;
    std::uint64_t done = 0;
    for (const PartPlan& p : plans) {
        std::shared_ptr<const Timeline> t = p.cached;
        std::shared_ptr<GrowingText> growing = p.growing;
        if (!t) {
            bool cancelled = false;
            std::uint64_t bytes = 0;
            for (const DocPtr& d : p.docs) bytes += d->text.size();
            const auto report_progress = [&progress, done, total](std::uint64_t b) {
                progress->report(static_cast<unsigned>(std::min<std::uint64_t>(100, (done + b) * 100 / total)), "");
            };
            t = read_growing(s, p, growing, cancel.get(), report_progress, cancelled);
            if (cancelled || cancel->load()) return std::nullopt;
            if (t) done += bytes;
        }
        if (!t) {
            std::vector<BorrowedText> texts;
            std::uint64_t bytes = 0;
            for (const DocPtr& d : p.docs) {
                texts.push_back({d->uri, document_path(*d), d->text});
                bytes += d->text.size();
            }
            DiagnoseOptions options;
            options.cancel = cancel.get();
            options.progress = [&progress, done, total](std::uint64_t b) {
                progress->report(static_cast<unsigned>(std::min<std::uint64_t>(100, (done + b) * 100 / total)), "");
            };
            bool cancelled = false;
            t = std::make_shared<const Timeline>(s.engine.read(texts, options, &cancelled));
            done += bytes;
            if (cancelled || cancel->load()) return std::nullopt;
        }
        timelines.push_back(*t);
        out.parts.emplace_back(p.key, ReadPart{{p.docs.begin(), p.docs.end()}, std::move(t), std::move(growing)});
    }
    const Report report = s.engine.reason_over_parts(std::move(timelines), s.opts.mask);

    std::map<std::string, const Document*> by_uri;
    for (const PartPlan& p : plans)
        for (const DocPtr& d : p.docs) by_uri[d->uri] = d.get();
    const LineLocator locate = [&](const std::string& file, std::uint64_t line) -> std::optional<Location> {
        auto it = by_uri.find(file);
        if (it == by_uri.end()) return std::nullopt;
        if (auto r = it->second->lines.engine_line_range(line, enc)) return Location{file, *r};
        return std::nullopt;
    };
    for (const PartPlan& p : plans)
        for (const DocPtr& d : p.docs)
            out.findings.emplace_back(d, log_findings(report, d->uri, d->lines, enc, 1000, locate));
    return out;
}

void diagnose_job(ServerState& s, const std::string& job) {
    if (s.dispatcher.phase() != Dispatcher::Phase::running) return;
    std::vector<std::string> open_logs;
    for (const auto& [uri, st] : s.logs) open_logs.push_back(uri);
    const std::vector<std::string> members = s.jobs.members(job, open_logs);
    LogJobRun& run = s.job_runs[job];
    if (run.running) run.running->store(true);
    run.running.reset();
    if (members.empty()) {
        if (run.debounce) run.debounce->cancel();
        s.job_runs.erase(job);
        return;
    }
    std::vector<PartPlan> plans = plan_parts(s, members, run);
    std::uint64_t to_read = 0;
    for (const PartPlan& p : plans)
        if (!p.cached)
            for (const DocPtr& d : p.docs) to_read += d->text.size();
    auto cancel = std::make_shared<std::atomic<bool>>(false);
    run.running = cancel;
    auto progress = s.start_progress(nullptr, to_read, job_title(plans), cancel);
    const PositionEncoding enc = s.encoding;
    const std::uint64_t total = std::max<std::uint64_t>(1, to_read);
    s.exec.post_work([&s, job, plans = std::move(plans), cancel, progress, enc, total] {
        if (cancel->load()) return;
        std::optional<JobResult> result;
        try {
            result = run_job(s, plans, cancel, progress, total, enc);
        } catch (const std::exception& e) {
            log_error("diagnosing the job " + job + " failed: " + e.what());
        }
        progress->end(result ? "done" : "cancelled");
        s.forget_progress(progress->token());
        if (!result) return;
        auto shared = std::make_shared<JobResult>(std::move(*result));
        s.exec.post_io([&s, job, cancel, shared] { publish_results(s, job, cancel, *shared); });
    });
}

}  // namespace

void schedule_job(ServerState& s, const std::string& job, unsigned delay_ms) {
    LogJobRun& run = s.job_runs[job];
    if (run.debounce) run.debounce->cancel();
    run.debounce = s.exec.after(std::chrono::milliseconds(delay_ms), [&s, job] { diagnose_job(s, job); });
}

void cancel_log_work(ServerState& s) {
    for (auto& [job, run] : s.job_runs) {
        if (run.debounce) run.debounce->cancel();
        if (run.running) run.running->store(true);
    }
}

void execute_mark_job(ServerState& s, const json& arguments, Reply reply) {
    if (arguments.empty())
        throw RpcError(error_code::invalid_params, std::string(kMarkJobCommand) + " needs arguments: [{\"uris\": [...]}]");
    const json& arg = require_object(arguments[0], "params.arguments[0]");
    const std::vector<std::string> uris = get_optional_string_array(arg, "uris", "params.arguments[0]");
    const std::vector<std::string> left = s.jobs.mark(uris);
    for (const std::string& job : left) schedule_job(s, job, 0);
    std::string job;
    std::size_t open = 0;
    if (!uris.empty()) {
        job = s.jobs.job_of(uris.front());
        schedule_job(s, job, 0);
        for (const std::string& uri : uris) open += s.logs.count(uri);
    }
    log_info("marked " + std::to_string(uris.size()) + " documents as one job (" + std::to_string(open) + " open)");
    reply.result({{"job", job}, {"documents", uris.size()}, {"open", open}});
}

}  // namespace denpex::server
