// Fuzz target: the LSP frame parser (server/transport/frame_parser). Besides "no crash, no sanitizer report", it
// checks the parser's contract that the frames found do not depend on how the input is split into reads: the
// bytes fed whole, fed in two reads at a split point the input chooses, and fed in small reads give the same
// events.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "server/transport/frame_parser.hpp"

using denpex::server::FrameEvent;
using denpex::server::FrameLimits;
using denpex::server::FrameParser;

namespace {

std::vector<std::string> events(std::string_view bytes, const std::vector<std::size_t>& cuts) {
    FrameLimits limits;
    limits.max_body = 4096;        // small limits reach the error paths with small inputs
    limits.max_header_line = 64;
    FrameParser p(limits);
    std::size_t at = 0;
    for (std::size_t cut : cuts) {
        if (cut < at || cut > bytes.size()) continue;
        p.feed(bytes.substr(at, cut - at));
        at = cut;
    }
    p.feed(bytes.substr(at));
    p.finish();
    std::vector<std::string> out;
    FrameEvent e;
    while (p.next(e))
        out.push_back(e.kind == FrameEvent::Kind::message ? "M" + e.body : "E" + std::string(to_string(e.error)));
    return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size < 1) return 0;
    const std::size_t split = size > 1 ? data[0] % size : 0;
    const std::string_view bytes(reinterpret_cast<const char*>(data) + 1, size - 1);
    const auto whole = events(bytes, {});
    const auto two = events(bytes, {split});
    std::vector<std::size_t> small;
    for (std::size_t i = 1 + data[0] % 7; i < bytes.size(); i += 1 + data[0] % 7) small.push_back(i);
    const auto many = events(bytes, small);
    if (whole != two || whole != many) __builtin_trap();   // split dependence: a parser bug
    return 0;
}
