// GpuTableReader: nvidia-smi's device table read as it streams past, one reader per input.
//
// Contract. `feed` takes each line of an input in order (as normalised: engine/normalize.hpp) and recognises the
// table nvidia-smi prints: a device row (`|   5  Tesla V100-SXM2...  On | 00000000:89:00.0 Off | ... |`) and the
// row under it (`| N/A 41C P0 55W / 300W | 16198MiB / 32510MiB |      0%      Default |`), which gives that GPU's
// utilisation at the moment of the snapshot. A header line ("NVIDIA-SMI ...") or a device index that does not grow
// starts a new snapshot. Only lines that begin with '|' are looked at, so the cost on other lines is one byte
// compare. `latest()` is the most recent snapshot with at least one GPU; at most kMaxGpus devices are kept per
// snapshot and one snapshot (the latest) per input, so memory is bounded whatever the input holds.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace denpex {

struct GpuReading {
    int index = 0;              // nvidia-smi's GPU index on its host
    std::string bus;            // "00000000:89:00.0"
    int utilization = 0;        // percent, 0-100
};

struct GpuSnapshot {
    std::uint32_t source = 0;   // the input it was read from
    std::uint64_t line = 0;     // the line of its first device row
    std::vector<GpuReading> gpus;
};

class GpuTableReader {
public:
    static constexpr std::size_t kMaxGpus = 64;

    void feed(std::string_view line, std::uint32_t source, std::uint64_t line_no);
    // The snapshot being read when it has a GPU, else the last one finished.
    std::optional<GpuSnapshot> latest() const { return current_.gpus.empty() ? last_ : std::optional(current_); }

private:
    void finish_snapshot();

    GpuSnapshot current_;
    std::optional<GpuSnapshot> last_;
    std::optional<GpuReading> pending_;   // a device row whose utilisation row comes next
};

}  // namespace denpex
