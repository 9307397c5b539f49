// normalized(): a plain ASCII line is its own text (no copy), every other line is what normalize() writes.
#include <doctest/doctest.h>

#include <string>

#include "engine/normalize.hpp"

using denpex::normalize;
using denpex::normalized;

TEST_CASE("normalized: a plain ASCII line is returned as it is, without a copy") {
    std::string scratch;
    const std::string raw = "[rank3]:\tRuntimeError: CUDA error: an illegal memory access";
    const std::string_view v = normalized(raw, scratch);
    CHECK(v.data() == raw.data());
    CHECK(v == raw);
    CHECK(scratch.empty());
}

TEST_CASE("normalized: Ray's note is cut on the fast path too") {
    std::string scratch;
    const std::string raw = "(RayTrainWorker pid=9812, ip=10.0.5.11) Exception in thread Thread-2: [repeated 3x across cluster]";
    CHECK(normalized(raw, scratch) == "(RayTrainWorker pid=9812, ip=10.0.5.11) Exception in thread Thread-2:");
}

TEST_CASE("normalized: any other line gives exactly what normalize writes") {
    for (const std::string& raw : {std::string("\x1b[31m[rank3]: RuntimeError\x1b[0m: boom\r"), std::string("a\rb\r"),
                                  std::string("caf\xc3\xa9 \xff ok"), std::string("x\0y", 3), std::string("bell\x07"),
                                  std::string("del\x7f"), std::string("")}) {
        std::string scratch, want;
        normalize(raw, want);
        CHECK(std::string(normalized(raw, scratch)) == want);
    }
}
