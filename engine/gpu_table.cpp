#include "engine/gpu_table.hpp"

#include <re2/re2.h>

#include "engine/bounded_number.hpp"

namespace denpex {
namespace {

// `|   5  Tesla V100-SXM2...  On   | 00000000:89:00.0 Off |                    0 |` (and the wider columns of newer
// releases): the index, then the PCI bus id in the second cell.
const RE2& device_row() {
    static const RE2 re(R"(^\|\s+([0-9]{1,3})\s+\S.*\|\s*([0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.[0-9A-Fa-f])\s+\S+\s*\|)");
    return re;
}

// `| N/A   41C    P0    55W / 300W |  16198MiB / 32510MiB |      0%      Default |`: the third cell's percentage.
const RE2& utilization_row() {
    static const RE2 re(R"(^\|\s+\S+\s+[0-9]+C\s.*\|\s*[0-9]+MiB\s*/\s*[0-9]+MiB\s*\|\s*([0-9]{1,3})%)");
    return re;
}

}  // namespace

void GpuTableReader::finish_snapshot() {
    if (!current_.gpus.empty()) last_ = std::move(current_);
    current_ = GpuSnapshot{};
}

void GpuTableReader::feed(std::string_view line, std::uint32_t source, std::uint64_t line_no) {
    const std::size_t start = line.find_first_not_of(' ');
    if (start == std::string_view::npos) return;
    line.remove_prefix(start);
    if (line.front() != '|') {   // the hot path: every other line of a log ends here
        pending_.reset();
        return;
    }
    if (line.size() < 40) return;
    if (line.starts_with("| NVIDIA-SMI ")) {   // the header row ("A header line" in gpu_table.hpp): a new snapshot
        pending_.reset();
        finish_snapshot();
        return;
    }
    const re2::StringPiece text(line.data(), line.size());
    if (pending_) {
        std::string percent;
        if (RE2::PartialMatch(text, utilization_row(), &percent))
            if (auto u = parse_bounded<int>(percent, 0, 100)) {
                pending_->utilization = *u;
                if (current_.gpus.size() < kMaxGpus) current_.gpus.push_back(std::move(*pending_));
            }
        pending_.reset();
        return;
    }
    std::string index, bus;
    if (!RE2::PartialMatch(text, device_row(), &index, &bus)) return;
    const auto n = parse_bounded<int>(index, 0, 999);
    if (!n) return;
    // A device index that does not grow is the next table (a second snapshot pasted below the first).
    if (!current_.gpus.empty() && *n <= current_.gpus.back().index) finish_snapshot();
    if (current_.gpus.empty()) {
        current_.source = source;
        current_.line = line_no;
    }
    pending_ = GpuReading{*n, std::move(bus), 0};
}

}  // namespace denpex
