// Reports of small in-memory logs for the CLI's unit tests, made by the engine with the built-in knowledge.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "engine/engine.hpp"
#include "tests/unit/embedded_engine.hpp"

// The bundled example's shape in two files: rank 1 runs out of memory, rank 0 times out in the watchdog.
inline std::vector<std::pair<std::string, std::string>> oom_job(const std::string& secret = "") {
    return {
        {"logs/node0.log",
         "[rank0]:[E1023 14:32:03.123456789 ProcessGroupNCCL.cpp:629] [Rank 0] Watchdog caught collective operation "
         "timeout: WorkNCCL(SeqNum=9, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600081 "
         "milliseconds before timing out.\n"},
        {"logs/node1.log",
         "[rank1]: step 7 loss 2.0\n[rank1]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. "
         "GPU 1 has a total capacity of 79.11 GiB of which 1.02 GiB is free." + secret + "\n"},
    };
}

inline denpex::Report diagnose_texts(const std::vector<std::pair<std::string, std::string>>& texts,
                                     denpex::DiagnoseOptions options = {}) {
    denpex::DiagnoseInput in;
    in.texts = texts;
    return engine().diagnose(in, options);
}
