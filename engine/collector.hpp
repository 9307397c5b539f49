// Collector: reads inputs line by line and builds the Timeline.
//
// Contract. Each input (a file descriptor or in-memory text) is streamed once: every line is normalised,
// attributed, matched against the knowledge signatures in one RE2::Set pass, and folded into per-process
// summaries and a bounded list of events (the first few and the latest of each signature per process), so
// memory does not grow with input size. Not thread-safe: one Collector per diagnosis.
// its own Collector. `finish()` resolves raw keys into processes and returns the
// Timeline. Cancellation is polled between lines.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <tuple>

#include "engine/matcher.hpp"
#include "engine/timeline.hpp"

namespace denpex {

class Collector {
public:
    explicit Collector(const Matcher& matcher);

    // `name` is shown in evidence; `path` (may be empty) supplies path hints (rank_3.log, attempt_0/3/...).
    void add_fd(int fd, const std::string& name, const std::string& path);
    void add_text(std::string_view text, const std::string& name);

    void set_cancel_flag(const std::atomic<bool>* cancel) { cancel_ = cancel; }
    // Called every few MB with the bytes read so far.
    void set_progress(std::function<void(std::uint64_t)> progress) { progress_ = std::move(progress); }
    bool cancelled() const { return cancel_ && cancel_->load(std::memory_order_relaxed); }

    Timeline finish();

private:
    void read(class LineReader& reader, const std::string& name, const std::string& path);

    const Matcher& matcher_;
    Timeline t_;
    // (writer, signature, subject pid) -> (events seen, slot of the latest kept)
    std::map<std::tuple<RawKey, const Signature*, std::string>, std::pair<std::size_t, std::size_t>> kept_;
    // Writers inside a report of an error they survived, with the lines the report may still run for.
    std::map<RawKey, int> survived_open_;
    // Writers printing another worker's report (mp.spawn's parent re-raising a child's traceback): whose, and
    // the lines it may still run for.
    struct ForwardedReport {
        RawKey subject;
        int lines_left = 0;
    };
    std::map<RawKey, ForwardedReport> forwarded_open_;
    // Writers whose latest handled-record line (a WARNING that may carry a traceback) is at this line number.
    std::map<RawKey, std::uint64_t> handled_record_at_;
    // Writers whose survived report ended at this line number (a chained traceback may continue it).
    std::map<RawKey, std::uint64_t> survived_closed_at_;
    std::map<std::string, std::uint32_t> group_index_;
    std::uint64_t order_ = 0;
    const std::atomic<bool>* cancel_ = nullptr;
    std::function<void(std::uint64_t)> progress_;
};

}  // namespace denpex
