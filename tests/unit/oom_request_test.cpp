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
    const OomRequest newer = read_oom_request(
        "[rank1]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 7812.50 GiB. GPU 1 has a total capacity "
        "of 79.10 GiB of which 61.22 GiB is free.");
    CHECK(newer.requested == doctest::Approx(7812.5 * kGiB));
    CHECK(newer.capacity == doctest::Approx(79.10 * kGiB));
    CHECK(newer.exceeds_device());
    const OomRequest typo = read_oom_request(
        "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacty of "
        "39.39 GiB of which 1.02 GiB is free.");
    CHECK(typo.capacity == doctest::Approx(39.39 * kGiB));
    CHECK_FALSE(typo.exceeds_device());
    const OomRequest older = read_oom_request(
        "RuntimeError: CUDA out of memory. Tried to allocate 1.56 GiB (GPU 3; 39.59 GiB total capacity; 35.02 GiB "
        "already allocated; 1.21 GiB free; 36.88 GiB reserved in total by PyTorch)");
    CHECK(older.requested == doctest::Approx(1.56 * kGiB));
    CHECK(older.capacity == doctest::Approx(39.59 * kGiB));
    CHECK_FALSE(older.exceeds_device());
    // No capacity stated: nothing exceeds what is not known.
    CHECK_FALSE(read_oom_request("RuntimeError: CUDA out of memory. Tried to allocate 9000.00 GiB").exceeds_device());
}
