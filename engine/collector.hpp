// Collector: reads inputs line by line and builds the Timeline.
//
// Contract. Each input (a file descriptor or in-memory text) is streamed once: every line is normalised,
// attributed, matched against the knowledge signatures in one RE2::Set pass, and folded into per-process
// summaries and a bounded list of events (the first few and the latest of each signature per process), so
// memory does not grow with input size. Not thread-safe: one Collector per diagnosis (or per reader thread).
// `finish()` completes the Timeline (engine/timeline_conclude.hpp) and hands it over; `finish_read()` hands it
// over as read, for merging with other readers' Timelines before it is concluded. Cancellation is polled between lines.
//
// Live inputs (denpex watch, through engine/live_diagnosis.hpp). `open_live` starts an input whose lines arrive
// over time; `add_line` reads its next complete line (no terminator) exactly as a file's line is read, except
// that terminal hard-wrap joining (which must see an input's first 400 lines first) is not applied; `close_live`
// ends it as the end of a file would. `snapshot()` returns the Timeline finish() would return now, open live
// inputs read as if they ended here, and leaves the state as it is for more lines. Memory stays bounded as for a
// file: nothing of a line is kept but the events and summaries it yields.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
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
    void add_text(std::string_view text, const std::string& name, const std::string& path = "");

    void set_cancel_flag(const std::atomic<bool>* cancel) { cancel_ = cancel; }
    // Called every few MB with the bytes read so far.
    void set_progress(std::function<void(std::uint64_t)> progress) { progress_ = std::move(progress); }
    bool cancelled() const { return cancel_ && cancel_->load(std::memory_order_relaxed); }

    std::size_t open_live(const std::string& name, const std::string& path);
    void add_line(std::size_t live, std::string_view line, bool truncated = false);
    void close_live(std::size_t live);
    // Events recorded so far (kept or replaced): it changes only when a line matched a signature.
    std::uint64_t events_seen() const { return order_; }

    Timeline finish();
    Timeline finish_read();
    Timeline snapshot() const;

    ~Collector();

private:
    struct Source;
    struct Line;
    using SurvivedReports = std::map<RawKey, int>;
    Source open_source(const std::string& name, const std::string& path);
    void close_source(const Source& s, Timeline& t) const;
    void read(class LineReader& reader, const std::string& name, const std::string& path);

    // The per-line loop, as stages in the order each needs the one before (ripgrep's searcher and sink): feed()
    // drives them over one line of one input.
    void feed(Source& s, std::string_view raw, bool truncated, std::uint64_t line_no);
    // Attribution: prefixes, the agent's and srun's statements, versions and stacks stated, the job's shape.
    Line attribute_line(Source& s, std::string_view text, std::uint64_t line_no);
    // Writer: the line's group and process (the writer, or the worker whose report the writer relays).
    void place_writer(Source& s, Line& l);
    // File clock: the file's and each writer's latest stamp; bounds events that carried an earlier one.
    void note_clock(Source& s, const Line& l);
    // Identity: hosts, pids, ranks, local ranks and GPUs the line ties together; the job size it states.
    void note_identity(const Line& l);
    // Launcher: torchrun's agent lines and summary records (workers' exits).
    void note_launcher_record(Source& s, const Line& l);
    // Process summary: line counts, last own line, latest time, host and GPU of the line's process.
    void note_process_summary(const Source& s, const Line& l);
    // Events: signature hits, read inside survived and relayed reports, into the bounded event store.
    void record_events(Source& s, const Line& l);
    bool enters_survived_report(const Signature& sig, const Line& l, SurvivedReports::iterator& survived);
    void open_forwarded_report(const Line& l, const Hit& hit);
    Event make_event(const Source& s, const Line& l, const Signature& sig, std::map<std::string, std::string> captures);
    void store_event(Source& s, const Line& l, Event ev);

    const Matcher& matcher_;
    Timeline t_;
    // (writer, signature, subject pid) -> (events seen, slot of the latest kept)
    std::map<std::tuple<RawKey, const Signature*, std::string>, std::pair<std::size_t, std::size_t>> kept_;
    // Writers inside a report of an error they survived, with the lines the report may still run for.
    SurvivedReports survived_open_;
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
    std::map<std::size_t, std::unique_ptr<Source>> live_;
    std::size_t next_live_ = 0;
    const std::atomic<bool>* cancel_ = nullptr;
    std::function<void(std::uint64_t)> progress_;
};

}  // namespace denpex
