// LiveDiagnosis: one diagnosis kept open while its inputs grow (what `denpex watch` builds on).
//
// Contract. Lines are appended to one Collector's state (engine/collector.hpp) as they are written, input by
// input, and a Report can be derived from the state as it stands, as often as wanted: the same Report
// Engine::diagnose would give for the lines read so far (hard-wrap joining aside, see collector.hpp), masked as
// `mask` says. Nothing here knows about files, directories, terminals or clocks: the caller reads the bytes,
// cuts complete lines and decides when to ask for a Report. Memory is bounded as diagnose's is: no line is kept,
// only the events and per-process summaries it yields (bounded per process and signature).
//
// No-throw contract, as Engine::diagnose's: no member throws. Should reading a line fail (a bug, memory), the
// failure becomes a warning in every later Report (the first few such warnings are kept, then counted) and the
// state stays usable; should the reasoning fail, the Report has no diagnosis and says so. Not thread-safe.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "engine/diagnosis.hpp"
#include "engine/engine.hpp"

namespace denpex {

class Collector;

class LiveDiagnosis {
public:
    using InputId = std::size_t;

    // `engine` must outlive this object.
    LiveDiagnosis(const Engine& engine, MaskOptions mask);
    ~LiveDiagnosis();
    LiveDiagnosis(const LiveDiagnosis&) = delete;
    LiveDiagnosis& operator=(const LiveDiagnosis&) = delete;

    // A new input: `name` is shown in evidence, `path` (may be empty) supplies path hints (rank_3.log,
    // attempt_1/0/stderr.log). A file rotated or truncated is best opened again as a new input.
    InputId open_input(const std::string& name, const std::string& path) noexcept;
    // One complete line of that input, without its terminator; `truncated` when the caller cut it.
    void add_line(InputId input, std::string_view line, bool truncated = false) noexcept;
    // The input ended (EOF, rotated away): what depends on the end of an input is settled.
    void close_input(InputId input) noexcept;
    // A warning every later Report carries (an input that could not be read, say).
    void add_warning(std::string warning) noexcept;

    // Changes whenever a line matched a failure signature: a Report can only differ after it changed (or after
    // an input opened or closed).
    std::uint64_t events_seen() const noexcept;
    std::uint64_t lines_read() const noexcept { return lines_; }
    // The diagnosis of everything read so far; the state stays open for more lines.
    Report report() const noexcept;

private:
    void fail(const std::string& what, const char* why) noexcept;

    const Engine& engine_;
    MaskOptions mask_;
    std::unique_ptr<Collector> collector_;
    std::vector<std::string> warnings_;
    std::uint64_t failures_ = 0, lines_ = 0;
};

}  // namespace denpex
