// GpuTableReader (engine/gpu_table.hpp) reads nvidia-smi's device table in the formats of old and new drivers, one
// snapshot after another; and a hung single-node job whose snapshot shows one idle GPU among busy ones names that
// GPU's rank, at low confidence, and never outweighs an error of a rank's own.
#include <doctest/doctest.h>

#include <string>

#include "engine/gpu_table.hpp"
#include "engine/report.hpp"
#include "embedded_engine.hpp"

using namespace denpex;

namespace {

// nvidia-smi's table as driver 460 prints it, one GPU per pair of rows.
std::string table_460(const std::vector<int>& utilization) {
    std::string s = "+-----------------------------------------------------------------------------+\n"
                    "| NVIDIA-SMI 460.73.01    Driver Version: 460.73.01    CUDA Version: 11.2     |\n"
                    "|===============================+======================+======================|\n";
    for (std::size_t i = 0; i < utilization.size(); ++i) {
        const std::string u = std::to_string(utilization[i]) + "%";
        s += "|   " + std::to_string(i) + "  Tesla V100-SXM2...  On   | 00000000:" + std::to_string(10 + i) +
             ":00.0 Off |                    0 |\n";
        s += "| N/A   47C    P0    66W / 300W |  16220MiB / 32510MiB | " + std::string(6 - u.size(), ' ') + u +
             "      Default |\n";
        s += "+-------------------------------+----------------------+----------------------+\n";
    }
    return s;
}

Report diagnose(const std::string& log, const std::string& smi) {
    DiagnoseInput in;
    in.texts = {{"train.log", log}, {"nvidia-smi.txt", smi}};
    return engine().diagnose(in);
}

}  // namespace

TEST_CASE("gpu table: device and utilisation rows of old and new drivers, snapshot after snapshot") {
    GpuTableReader r;
    std::uint64_t n = 0;
    auto feed = [&](const std::string& text) {
        std::size_t start = 0;
        while (start < text.size()) {
            const std::size_t end = text.find('\n', start);
            r.feed(std::string_view(text).substr(start, end - start), 0, ++n);
            start = end + 1;
        }
    };
    feed(table_460({100, 0, 100}));
    REQUIRE(r.latest());
    REQUIRE(r.latest()->gpus.size() == 3);
    CHECK(r.latest()->gpus[1].utilization == 0);
    CHECK(r.latest()->gpus[1].bus == "00000000:11:00.0");
    // Driver 535's wider columns; a second snapshot replaces the first.
    feed("| NVIDIA-SMI 535.104.05             Driver Version: 535.104.05   CUDA Version: 12.2     |\n"
         "|   0  NVIDIA H100 80GB HBM3          On  | 00000000:18:00.0 Off |                    0 |\n"
         "| N/A   33C    P0             69W /  700W |   70211MiB /  81559MiB |     97%      Default |\n"
         "|   1  NVIDIA H100 80GB HBM3          On  | 00000000:2A:00.0 Off |                    0 |\n"
         "| N/A   31C    P0             70W /  700W |   70211MiB /  81559MiB |    100%      Default |\n");
    REQUIRE(r.latest()->gpus.size() == 2);
    CHECK(r.latest()->gpus[0].utilization == 97);
    // DeiT's "| distributed init (rank 3): env://" and the processes table are no device rows.
    feed("| distributed init (rank 3): env://\n|    5   N/A  N/A     28416      C   /opt/conda/bin/python           16195MiB |\n");
    CHECK(r.latest()->gpus.size() == 2);
}

TEST_CASE("gpu table: one idle GPU among busy ones in a hung single-node job names its rank, at low confidence") {
    const std::string log = "$ torchrun --nproc_per_node=4 train.py\n"
                            "[rank0]: epoch 3 step 810 loss 5.20\n"
                            "[rank0]: epoch 3 step 820 loss 5.19\n";
    const Report r = diagnose(log, table_460({100, 100, 0, 99}));
    REQUIRE(r.diagnoses.size() == 1);
    const Diagnosis& d = r.diagnoses.front();
    REQUIRE(d.initiating_rank);
    CHECK(*d.initiating_rank == 2);
    CHECK(d.confidence == "low");
    REQUIRE(d.failure);
    CHECK(d.failure->id == "rank-hang-straggler");
    // Two idle GPUs, or one GPU short of the world: no one is named.
    CHECK(diagnose(log, table_460({100, 0, 0, 99})).diagnoses.empty());
    CHECK(diagnose(log, table_460({100, 100, 0})).diagnoses.empty());
    // A rank with an error of its own outweighs the snapshot.
    const Report oom = diagnose(log + "[rank1]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB\n",
                                table_460({100, 100, 0, 100}));   // GPU 2 idle, rank 1 failed
    REQUIRE(oom.diagnoses.size() == 1);
    REQUIRE(oom.diagnoses.front().initiating_rank);
    CHECK(*oom.diagnoses.front().initiating_rank == 1);
}
