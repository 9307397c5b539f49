// A terminal's hard wrapping of a watchdog message at 70 columns, three times with a short line after each: the
// shape engine/hard_wrap.hpp joins back (rows of one width, breaking mid-word). For the tests that need such text.
#pragma once

#include <string>

inline const std::string kWrappedMessage =
    "[E ProcessGroupNCCL.cpp:915] [Rank 1] NCCL watchdog thread terminated with exception: [Rank 1] Watchdog "
    "caught collective operation timeout: WorkNCCL(SeqNum=641203, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, "
    "Timeout(ms)=1800000) ran for 1800527 milliseconds before timing out.";

inline std::string wrapped_terminal_text() {
    std::string wrapped;
    for (int copy = 0; copy < 3; ++copy) {
        for (std::size_t i = 0; i < kWrappedMessage.size(); i += 70) wrapped += kWrappedMessage.substr(i, 70) + "\n";
        wrapped += "short line\n";
    }
    return wrapped;
}
