#include "engine/engine.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <mutex>
#include <optional>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>

#include "engine/collector.hpp"
#include "engine/path_hints.hpp"
#include "engine/reasoner.hpp"
#include "engine/timeline_conclude.hpp"
#include "engine/timeline_merge.hpp"

namespace denpex {
namespace {

constexpr unsigned kMaxThreads = 8;

std::uint64_t file_size(const std::string& path) {
    struct stat st {};
    return path != "-" && ::stat(path.c_str(), &st) == 0 ? static_cast<std::uint64_t>(st.st_size) : 0;
}

// Splits the files into at most `parts` contiguous runs of about equal size, never separating files of one
// node (a torchrun --log_dir tree), whose local ranks must be resolved together.
std::vector<std::pair<std::size_t, std::size_t>> split_inputs(const std::vector<InputFile>& files, unsigned parts,
                                                              const std::vector<std::uint64_t>& sizes) {
    std::vector<std::pair<std::size_t, std::size_t>> runs;
    std::uint64_t total = 0;
    for (auto s : sizes) total += s;
    const std::uint64_t per_part = total / std::max(1u, parts) + 1;
    std::size_t start = 0;
    std::uint64_t acc = 0;
    std::string previous_node;
    for (std::size_t i = 0; i < files.size(); ++i) {
        std::string node = files[i].path == "-" ? std::string() : path_hints(files[i].path).node_key;
        bool same_node = !node.empty() && node == previous_node;
        if (i > start && !same_node && acc >= per_part && runs.size() + 1 < parts) {
            runs.emplace_back(start, i);
            start = i;
            acc = 0;
        }
        acc += sizes[i];
        previous_node = node;
    }
    runs.emplace_back(start, files.size());
    return runs;
}

// The gate of engine.hpp: events of an input with no line shaped like a job's output are not evidence. Returns
// the warnings that say which inputs were set aside.
// When at least half of the inputs are a job's output, the others are the tools' output beside them (nvidia-smi,
// a shell transcript) and count too; a directory of documentation with a stray timestamp does not.
std::vector<std::string> drop_non_job_inputs(Timeline& t) {
    std::vector<std::uint64_t> dropped(t.sources.size(), 0);
    const auto job_sources = static_cast<std::size_t>(
        std::count_if(t.job_output_lines.begin(), t.job_output_lines.end(), [](std::uint64_t n) { return n > 0; }));
    const bool mostly_job = job_sources > 0 && 2 * job_sources >= t.sources.size();
    auto is_job = [&](std::uint32_t source) {
        return mostly_job || source >= t.job_output_lines.size() || t.job_output_lines[source] > 0;
    };
    std::erase_if(t.events, [&](const Event& e) {
        if (is_job(e.source)) return false;
        if (e.role != Role::context && e.source < dropped.size()) ++dropped[e.source];
        return true;
    });
    std::vector<std::string> out;
    std::size_t inputs = 0;
    constexpr std::size_t kListed = 5;
    for (std::size_t i = 0; i < dropped.size(); ++i) {
        if (!dropped[i]) continue;
        ++inputs;
        if (inputs <= kListed)
            out.push_back(t.sources[i] + ": does not look like a training job's output (no rank or time prefix, "
                          "launcher or NCCL line, or traceback); " + std::to_string(dropped[i]) + " line" +
                          (dropped[i] == 1 ? " that reads" : "s that read") + " like an error not taken as evidence");
    }
    if (inputs > kListed)
        out.push_back(std::to_string(inputs - kListed) + " more input" + (inputs - kListed == 1 ? "" : "s") +
                      " that do not look like a training job's output set aside");
    return out;
}

// What was not read is part of what the verdict rests on: a binary named by hand, a gzip of an old run.
void note_not_read(Timeline& t, const std::vector<std::string>& not_read) {
    constexpr std::size_t kListed = 5;
    for (std::size_t i = 0; i < not_read.size() && i < kListed; ++i) t.warnings.push_back("not read: " + not_read[i]);
    if (not_read.size() > kListed)
        t.warnings.push_back("not read: " + std::to_string(not_read.size() - kListed) + " more file" +
                             (not_read.size() - kListed == 1 ? "" : "s"));
}

}  // namespace

Engine::Engine(KnowledgeBase kb) : kb_(std::move(kb)), matcher_(std::make_unique<Matcher>(kb_)) {
    for (const auto& w : kb_.warnings()) knowledge_warnings_.push_back("knowledge: " + w);
    for (const auto& w : matcher_->warnings()) knowledge_warnings_.push_back("knowledge: " + w);
}

Report Engine::diagnose(const DiagnoseInput& input, const DiagnoseOptions& options, bool* cancelled) const {
    Timeline t = collect(input, options, cancelled);
    conclude_timeline(t);
    t.warnings.insert(t.warnings.begin(), knowledge_warnings_.begin(), knowledge_warnings_.end());
    return reason_over(std::move(t), options.mask);
}

Timeline Engine::collect(const DiagnoseInput& input, const DiagnoseOptions& options, bool* cancelled) const {
    std::vector<std::uint64_t> sizes;
    std::uint64_t total = 0;
    for (const InputFile& f : input.files) total += sizes.emplace_back(file_size(f.path));
    const unsigned wanted = options.max_threads ? options.max_threads : std::max(1u, std::thread::hardware_concurrency());
    unsigned threads = std::min({wanted, kMaxThreads,
                                 static_cast<unsigned>(std::max<std::size_t>(1, input.files.size()))});
    if (total < options.parallel_min_bytes) threads = 1;
    const auto runs = split_inputs(input.files, threads, sizes);

    // Progress is summed over the readers and reported from one at a time.
    std::mutex progress_mutex;
    std::vector<std::uint64_t> progress_of(runs.size(), 0);
    auto report_progress = [&](std::size_t run, std::uint64_t bytes) {
        std::lock_guard lock(progress_mutex);
        progress_of[run] = bytes;
        std::uint64_t sum = 0;
        for (auto b : progress_of) sum += b;
        options.progress(sum);
    };

    std::vector<Timeline> timelines(runs.size());
    std::vector<std::vector<std::string>> warnings(runs.size());
    std::vector<char> stopped(runs.size(), 0);
    // The boundary of a reader (a thread of its own past parallel_min_bytes, the caller's below it): nothing
    // thrown while reading one input leaves it. The input's failure becomes a warning on that input, what was
    // read of it stays, and the other inputs are still read.
    auto guarded = [&](std::size_t r, const std::string& name, auto&& step) {
        try {
            step();
        } catch (const std::exception& e) {
            warnings[r].push_back(name + ": not read to the end: " + e.what());
        } catch (...) {
            warnings[r].push_back(name + ": not read to the end: unknown error");
        }
    };
    auto read_run = [&](std::size_t r) {
        std::optional<Collector> collector;
        guarded(r, "reader", [&] {
            collector.emplace(*matcher_);
            collector->set_cancel_flag(options.cancel);
            if (options.progress) collector->set_progress([&, r](std::uint64_t b) { report_progress(r, b); });
        });
        if (!collector) return;
        for (std::size_t i = runs[r].first; i < runs[r].second; ++i) {
            const InputFile& f = input.files[i];
            if (collector->cancelled()) break;
            if (f.path == "-") {
                guarded(r, f.display, [&] { collector->add_fd(STDIN_FILENO, f.display, ""); });
                continue;
            }
            int fd = ::open(f.path.c_str(), O_RDONLY | O_CLOEXEC);
            if (fd < 0) {
                warnings[r].push_back(f.display + ": " + std::strerror(errno));
                continue;
            }
#ifdef POSIX_FADV_SEQUENTIAL
            ::posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
#endif
            guarded(r, f.display, [&] { collector->add_fd(fd, f.display, f.path); });
            ::close(fd);
        }
        // In-memory texts (selections, open documents) follow the files, in the last run.
        if (r + 1 == runs.size())
            for (const auto& named_text : input.texts) {   // (no structured binding: clang 14 cannot capture one)
                if (collector->cancelled()) break;
                guarded(r, named_text.first, [&] { collector->add_text(named_text.second, named_text.first); });
            }
        if (r + 1 == runs.size())
            for (const BorrowedText& b : input.borrowed_texts) {
                if (collector->cancelled()) break;
                guarded(r, b.name, [&] { collector->add_text(b.text, b.name, b.path); });
            }
        stopped[r] = collector->cancelled();
        guarded(r, "reader", [&] { timelines[r] = collector->finish_read(); });
    };

    if (runs.size() == 1) {
        read_run(0);
    } else {
        std::vector<std::thread> pool;
        for (std::size_t r = 0; r < runs.size(); ++r) pool.emplace_back(read_run, r);
        for (auto& th : pool) th.join();
    }

    Timeline t = std::move(timelines.front());
    for (std::size_t r = 1; r < timelines.size(); ++r) merge_timeline(t, std::move(timelines[r]));
    for (auto& ws : warnings)
        for (auto& w : ws) t.warnings.push_back(std::move(w));
    note_not_read(t, input.not_read);
    if (cancelled) *cancelled = std::any_of(stopped.begin(), stopped.end(), [](char c) { return c != 0; });
    for (const Timeline& partial : input.partials) merge_timeline(t, Timeline(partial));
    return t;
}

Timeline Engine::read(const std::vector<BorrowedText>& texts, const DiagnoseOptions& options, bool* cancelled) const {
    Collector collector(*matcher_);
    collector.set_cancel_flag(options.cancel);
    if (options.progress) collector.set_progress(options.progress);
    std::vector<std::string> warnings;
    for (const BorrowedText& b : texts) {
        if (collector.cancelled()) break;
        try {   // the reader's boundary, as in diagnose()
            collector.add_text(b.text, b.name, b.path);
        } catch (const std::exception& e) {
            warnings.push_back(b.name + ": not read to the end: " + e.what());
        } catch (...) {
            warnings.push_back(b.name + ": not read to the end: unknown error");
        }
    }
    if (cancelled) *cancelled = collector.cancelled();
    Timeline t;
    try {
        t = collector.finish();
    } catch (const std::exception& e) {
        warnings.push_back(std::string("reader: not read to the end: ") + e.what());
    }
    for (auto& w : warnings) t.warnings.push_back(std::move(w));
    return t;
}

Report Engine::reason_over_parts(std::vector<Timeline> parts, const MaskOptions& mask) const {
    Timeline t;
    if (!parts.empty()) {
        t = std::move(parts.front());
        for (std::size_t i = 1; i < parts.size(); ++i) merge_timeline(t, std::move(parts[i]));
    }
    t.warnings.insert(t.warnings.begin(), knowledge_warnings_.begin(), knowledge_warnings_.end());
    return reason_over(std::move(t), mask);
}

Report Engine::reason_over(Timeline t, const MaskOptions& mask) const {
    try {
        for (auto& w : drop_non_job_inputs(t)) t.warnings.push_back(std::move(w));
        Report report = reason(t, kb_);
        mask_report(report, mask);
        return report;
    } catch (const std::exception& e) {
        // No verdict rather than no process: the inputs and warnings still say what was read.
        Report report;
        report.inputs = t.sources;
        report.bytes = t.bytes;
        report.lines = t.lines;
        report.warnings = t.warnings;
        report.warnings.push_back(std::string("no diagnosis: the reasoning failed: ") + e.what());
        mask_report(report, mask);
        return report;
    }
}

}  // namespace denpex
