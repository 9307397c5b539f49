// Reading an out-of-memory report's request and the device's capacity (engine/oom_request.hpp).
#include <doctest/doctest.h>

#include "engine/oom_request.hpp"

using namespace denpex;

namespace {
constexpr double kGiB = 1024.0 * 1024 * 1024;
}

TEST_CASE("oom request: sizes in PyTorch's units, and nothing else") {
    CHECK(parse_memory_size("7812.50 GiB") == doctest::Approx(7812.5 * kGiB));
    CHECK(parse_memory_size("512 bytes") == doctest::Approx(512.0));
    CHECK(parse_memory_size("20.00 MiB") == doctest::Approx(20.0 * 1024 * 1024));
    CHECK(parse_memory_size("1.5 TiB") == doctest::Approx(1.5 * 1024 * kGiB));
    for (const char* bad : {"", "GiB", "7812.50GiB", "7812. GiB", ".5 GiB", "-1 GiB", "1 GB", "1 gib", "1e9 bytes",
                            "9999999999999 GiB", "1.1234567 GiB", "1,5 GiB"})
        CHECK_MESSAGE(!parse_memory_size(bad), bad);
}

TEST_CASE("oom request: the request and the capacity, in the formats of 2.0+, 2.1's typo and before 2.0") {
    struct Case {
        const char* line;
        double requested_gib, capacity_gib;
        bool exceeds;
    };
    const Case cases[] = {
        {"[rank1]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 7812.50 GiB. GPU 1 has a total capacity "
         "of 79.10 GiB of which 61.22 GiB is free.", 7812.5, 79.10, true},
        {"torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacty of "
         "39.39 GiB of which 1.02 GiB is free.", 2.0, 39.39, false},
        {"RuntimeError: CUDA out of memory. Tried to allocate 1.56 GiB (GPU 3; 39.59 GiB total capacity; 35.02 GiB "
         "already allocated; 1.21 GiB free; 36.88 GiB reserved in total by PyTorch)", 1.56, 39.59, false}};
    for (const Case& c : cases) {
        const OomRequest read = read_oom_request(c.line);
        CHECK_MESSAGE(read.requested == doctest::Approx(c.requested_gib * kGiB), c.line);
        CHECK_MESSAGE(read.capacity == doctest::Approx(c.capacity_gib * kGiB), c.line);
        CHECK_MESSAGE(read.exceeds_device() == c.exceeds, c.line);
    }
    // No capacity stated: nothing exceeds what is not known.
    CHECK_FALSE(read_oom_request("RuntimeError: CUDA out of memory. Tried to allocate 9000.00 GiB").exceeds_device());
}
