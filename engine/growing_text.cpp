#include "engine/growing_text.hpp"

#include "engine/collector.hpp"
#include "engine/hard_wrap.hpp"
#include "engine/line_reader.hpp"

namespace denpex {
namespace {

constexpr std::uint64_t kPollEvery = 0x1000;          // lines between two looks at the cancel flag
constexpr std::uint64_t kProgressEvery = 4u << 20;    // bytes between two progress reports

bool hard_wrapped(std::string_view text) {
    LineReader reader(text);
    HardWrapJoiner joiner(reader);
    std::string_view line;
    bool truncated = false;
    std::uint64_t first = 0;
    joiner.next(line, truncated, first);   // the first line decides: the probe runs before it
    return joiner.width().has_value();
}

}  // namespace

GrowingText::GrowingText(const Matcher& matcher, const std::string& name, const std::string& path)
    : collector_(std::make_unique<Collector>(matcher)) {
    input_ = collector_->open_live(name, path);
}

GrowingText::~GrowingText() = default;

std::unique_ptr<GrowingText> GrowingText::open(const Matcher& matcher, const std::string& name,
                                               const std::string& path, std::string_view text) {
    if (text.empty() || text.back() != '\n' || hard_wrapped(text)) return nullptr;
    return std::unique_ptr<GrowingText>(new GrowingText(matcher, name, path));
}

bool GrowingText::extends_what_was_read(std::string_view text) const {
    if (text.size() < read_) return false;
    if (read_ == 0) return true;
    // The probe window not yet behind us: lines added inside it could turn the probe's decision.
    if (lines_ < HardWrapJoiner::kProbeLines && read_ < HardWrapJoiner::kProbeBytes) return false;
    return std::hash<std::string_view>{}(text.substr(0, read_)) == prefix_hash_;
}

GrowingText::Outcome GrowingText::read_to(std::string_view text, const std::atomic<bool>* cancel,
                                          const std::function<void(std::uint64_t)>& progress) {
    if (unusable_ || text.empty() || text.back() != '\n' || !extends_what_was_read(text)) return Outcome::declined;
    LineReader reader(text.substr(read_));
    std::string_view line;
    bool truncated = false;
    std::uint64_t next_progress = kProgressEvery;
    while (reader.next(line, truncated)) {
        if ((++lines_ % kPollEvery) == 0 && cancel && cancel->load(std::memory_order_relaxed)) {
            unusable_ = true;
            return Outcome::cancelled;
        }
        if (progress && reader.bytes_read() >= next_progress) {
            progress(reader.bytes_read());
            next_progress += kProgressEvery;
        }
        collector_->add_line(input_, line, truncated);
    }
    read_ = text.size();
    prefix_hash_ = std::hash<std::string_view>{}(text);
    return Outcome::read;
}

Timeline GrowingText::snapshot() const { return collector_->snapshot(); }

}  // namespace denpex
