// A program with one deliberate defect per mode, built only in a DENPEX_SANITIZE build: the sanitizer_canary test
// (run_canary.cmake) checks that each kind of report ends the process and lands in the report directory, so a
// misconfigured runtime (a log_path ignored, a report that does not abort) cannot make the sanitized suite pass
// silently.
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>

int* volatile leaked;

int main(int argc, char** argv) {
    if (argc != 2) return 2;
    const int n = std::atoi("1") + argc;   // values the compiler cannot fold
    if (std::strcmp(argv[1], "ubsan") == 0) {
        volatile int big = INT_MAX;
        std::printf("%d\n", big + n);   // signed overflow
        return 0;
    }
    if (std::strcmp(argv[1], "asan") == 0) {
        int* volatile p = new int[n];
        delete[] p;
        return p[1];   // heap-use-after-free
    }
    if (std::strcmp(argv[1], "leak") == 0) {
        leaked = new int[n];
        leaked = nullptr;
        return 0;
    }
    return 2;
}
