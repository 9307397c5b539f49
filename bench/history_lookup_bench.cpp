// The history lookup alone, in process: `scan_fingerprint` + `seen_before` over a history directory, as
// `denpex diagnose` does once per diagnosis. Usage: history_lookup_bench DIR FINGERPRINT [REPEAT]
// Prints the median and the fastest time in milliseconds. Driven by bench/history_bench.py; not a test.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "history/history_store.hpp"
#include "history/seen_before.hpp"
#include "engine/bounded_number.hpp"

int main(int argc, char** argv) {
    if (argc < 3) {
        std::fprintf(stderr, "usage: history_lookup_bench DIR FINGERPRINT [REPEAT]\n");
        return 2;
    }
    const auto repeat = argc > 3 ? denpex::parse_bounded<int>(argv[3], 1, 10000) : 20;
    if (!repeat) return 2;
    std::vector<double> ms;
    std::size_t count = 0;
    for (int i = 0; i < *repeat; ++i) {
        const auto t0 = std::chrono::steady_clock::now();
        std::vector<std::string> warnings;
        const auto scan = denpex::scan_fingerprint(argv[1], argv[2]);
        count = denpex::seen_before(argv[1], scan, argv[2], warnings).count;
        ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    }
    std::sort(ms.begin(), ms.end());
    std::printf("lookup (in process): median %.2f ms, min %.2f ms, seen before %zu times\n", ms[ms.size() / 2], ms.front(), count);
    return 0;
}
