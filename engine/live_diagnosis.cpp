#include "engine/live_diagnosis.hpp"

#include <exception>

#include "engine/collector.hpp"

namespace denpex {
namespace {

constexpr std::size_t kWarningsKept = 20;

}  // namespace

LiveDiagnosis::LiveDiagnosis(const Engine& engine, MaskOptions mask) : engine_(engine), mask_(mask) {
    try {
        collector_ = std::make_unique<Collector>(engine.matcher());
    } catch (const std::exception& e) {
        fail("live diagnosis", e.what());
    }
}

LiveDiagnosis::~LiveDiagnosis() = default;

void LiveDiagnosis::fail(const std::string& what, const char* why) noexcept {
    try {
        if (++failures_ <= kWarningsKept) warnings_.push_back(what + ": not read to the end: " + why);
    } catch (...) {
        // Memory for a warning is gone too: the count in report() still says something failed.
    }
}

LiveDiagnosis::InputId LiveDiagnosis::open_input(const std::string& name, const std::string& path) noexcept {
    try {
        if (collector_) return collector_->open_live(name, path);
    } catch (const std::exception& e) {
        fail(name, e.what());
    } catch (...) {
        fail(name, "unknown error");
    }
    return static_cast<InputId>(-1);   // add_line ignores an input the collector does not know
}

void LiveDiagnosis::add_line(InputId input, std::string_view line, bool truncated) noexcept {
    ++lines_;
    try {
        if (collector_) collector_->add_line(input, line, truncated);
    } catch (const std::exception& e) {
        fail("a live input's line", e.what());
    } catch (...) {
        fail("a live input's line", "unknown error");
    }
}

void LiveDiagnosis::close_input(InputId input) noexcept {
    try {
        if (collector_) collector_->close_live(input);
    } catch (const std::exception& e) {
        fail("closing a live input", e.what());
    } catch (...) {
        fail("closing a live input", "unknown error");
    }
}

void LiveDiagnosis::add_warning(std::string warning) noexcept {
    try {
        if (warnings_.size() < 4 * kWarningsKept) warnings_.push_back(std::move(warning));
    } catch (...) {
    }
}

std::uint64_t LiveDiagnosis::events_seen() const noexcept { return collector_ ? collector_->events_seen() : 0; }

Report LiveDiagnosis::report() const noexcept {
    try {
        Timeline t = collector_ ? collector_->snapshot() : Timeline{};
        const auto& kw = engine_.knowledge_warnings();
        t.warnings.insert(t.warnings.begin(), kw.begin(), kw.end());
        t.warnings.insert(t.warnings.end(), warnings_.begin(), warnings_.end());
        if (failures_ > kWarningsKept)
            t.warnings.push_back(std::to_string(failures_ - kWarningsKept) + " more lines not read");
        return engine_.reason_over(std::move(t), mask_);
    } catch (const std::exception& e) {
        Report r;
        try {
            r.warnings.push_back(std::string("no diagnosis: the live state could not be read: ") + e.what());
        } catch (...) {
        }
        return r;
    } catch (...) {
        return Report{};
    }
}

}  // namespace denpex
