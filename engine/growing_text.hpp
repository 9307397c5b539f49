// GrowingText: one in-memory text (an editor's open log document) read once, then, as lines are appended to it,
// only the lines appended.
//
// Contract. `open` takes a text that can be read this way and declines (nullptr) one that cannot: a text whose last
// line is unfinished (no "\n": it may still grow, and Engine::read would read it as a line), or a hard-wrapped text
// (engine/hard_wrap.hpp joins its rows, which needs the whole input first). `read_to` then reads the complete lines a
// text adds to what was read before, into one Collector kept open (engine/collector.hpp's live input), provided the
// text begins with every byte read so far (a hash of that prefix decides) and ends with a complete line; otherwise it
// declines and nothing changes. `snapshot` is then the Timeline Engine::read would return for the text read so far,
// read alone. While fewer lines than the hard-wrap probe's window have been read, a later text could decide the
// probe differently: `read_to` declines it, and the caller reads the text anew (a short text is cheap to read).
// Cancellation is polled between lines; a cancelled read leaves the object unusable (discard it). Memory is the
// Collector's (bounded), never the text's. Not thread-safe: one owner at a time.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "engine/matcher.hpp"
#include "engine/timeline.hpp"

namespace denpex {

class Collector;

class GrowingText {
public:
    enum class Outcome { read, declined, cancelled };

    // `matcher` must outlive this object. `name` is shown in evidence; `path` (may be empty) supplies path hints.
    static std::unique_ptr<GrowingText> open(const Matcher& matcher, const std::string& name, const std::string& path,
                                             std::string_view text);
    ~GrowingText();
    GrowingText(const GrowingText&) = delete;
    GrowingText& operator=(const GrowingText&) = delete;

    Outcome read_to(std::string_view text, const std::atomic<bool>* cancel,
                    const std::function<void(std::uint64_t bytes)>& progress);
    Timeline snapshot() const;
    std::uint64_t bytes_read() const { return read_; }

private:
    GrowingText(const Matcher& matcher, const std::string& name, const std::string& path);
    bool extends_what_was_read(std::string_view text) const;

    std::unique_ptr<Collector> collector_;
    std::size_t input_ = 0;
    std::uint64_t read_ = 0;          // bytes read: whole lines, "\n" included
    std::uint64_t lines_ = 0;
    std::size_t prefix_hash_ = 0;     // of the bytes read
    bool unusable_ = false;
};

}  // namespace denpex
