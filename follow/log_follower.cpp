#include "follow/log_follower.hpp"

namespace denpex {

LogFollower::LogFollower(const Engine& engine, MaskOptions mask) : live_(engine, mask) {}

std::optional<std::string> LogFollower::add(const std::string& path, bool from_end) { return set_.add(path, from_end); }

std::vector<std::string> LogFollower::notified() {
    if (set_.drain()) set_.discover();
    return set_.take_skipped();
}

void LogFollower::read_files() {
    for (const auto& tail : set_.tails()) {
        auto [it, fresh] = inputs_.try_emplace(tail.get(), 0);
        if (fresh) {
            it->second = live_.open_input(tail->display(), tail->path());
            inputs_changed_ = true;
        }
        auto line = [&](std::string_view text, bool truncated) { live_.add_line(it->second, text, truncated); };
        auto restart = [&](Restart) {
            live_.close_input(it->second);
            it->second = live_.open_input(tail->display(), tail->path());
            inputs_changed_ = true;
        };
        if (auto error = tail->poll(line, restart)) live_.add_warning(*error);
    }
}

std::optional<Report> LogFollower::changed_report() {
    if (!inputs_changed_ && live_.events_seen() == reported_events_) return std::nullopt;
    inputs_changed_ = false;
    reported_events_ = live_.events_seen();
    return live_.report();
}

std::string LogFollower::path_of(const std::string& display) const {
    for (const auto& tail : set_.tails())
        if (tail->display() == display) return tail->path();
    return {};
}

}  // namespace denpex
