// What a CUDA out-of-memory report says it asked for, and how much memory the device has.
//
// Contract. `read_oom_request` reads one OOM line as PyTorch's caching allocator prints it: the request ("Tried to
// allocate 7812.50 GiB") and, where the line states it, the device's total capacity ("GPU 1 has a total capacity of
// 79.10 GiB" from 2.0, "(GPU 0; 39.59 GiB total capacity; ..." before). Sizes are bytes as doubles, each a decimal
// number of at most 12 digits before and 6 after the point with a unit of bytes, KiB ... PiB; anything else is not
// read. Never throws.
//
// A request larger than the whole device is no memory pressure: the size itself is wrong. Inside a collective that
// allocates a buffer of the size its peers sent (broadcast_object_list and the other object collectives), a wrong
// size is what a broken collective leaves behind (job_model.cpp: fallout), not a failure of the rank's own.
#pragma once

#include <optional>
#include <string_view>

namespace denpex {

struct OomRequest {
    std::optional<double> requested;   // bytes
    std::optional<double> capacity;    // bytes
    bool exceeds_device() const { return requested && capacity && *requested > *capacity; }
};

OomRequest read_oom_request(std::string_view line);

// "7812.50 GiB", "512 bytes" → bytes; nullopt for anything else.
std::optional<double> parse_memory_size(std::string_view text);

}  // namespace denpex
