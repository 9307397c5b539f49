// Linked into every executable of a DENPEX_SANITIZE build made by gcc. gcc links UBSan as its own runtime
// (libubsan.so.1) beside ASan's, and that runtime ignores UBSAN_OPTIONS=log_path when ASan is there too: its
// reports go to stderr only, where a test that captures or discards a child's stderr would hide them. This sets
// libubsan's own report path from UBSAN_OPTIONS's log_path before main, so UBSan's reports land next to ASan's
// (tests/CMakeLists.txt: sanitizer-reports/, checked by the sanitizer_reports test). Nothing here runs in a
// normal build; with clang (one combined runtime, which honours log_path) libubsan is not loaded and this does
// nothing.
#include <dlfcn.h>

#include <cstdlib>
#include <string>

namespace {

std::string log_path_option(const char* options) {
    if (options == nullptr) return {};
    const std::string s = options;
    std::string path;
    for (std::size_t at = 0; at <= s.size();) {   // options are separated by ':' (or spaces, commas)
        std::size_t end = s.find_first_of(": ,", at);
        if (end == std::string::npos) end = s.size();
        const std::string option = s.substr(at, end - at);
        if (option.rfind("log_path=", 0) == 0) path = option.substr(9);
        at = end + 1;
    }
    return path;
}

struct UbsanLogPath {
    UbsanLogPath() {
        static const std::string path = log_path_option(std::getenv("UBSAN_OPTIONS"));
        if (path.empty()) return;
        void* ubsan = dlopen("libubsan.so.1", RTLD_NOW | RTLD_NOLOAD);
        if (ubsan == nullptr) return;
        using SetReportPath = void (*)(const char*);
        if (auto set = reinterpret_cast<SetReportPath>(dlsym(ubsan, "__sanitizer_set_report_path"))) set(path.c_str());
    }
};
const UbsanLogPath ubsan_log_path;

}  // namespace
