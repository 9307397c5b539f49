// denpex_serve_dev: `denpex serve` as its own binary, for the protocol tests to fall back on while the CLI does not
// dispatch `serve` yet. The tests prefer `denpex serve` whenever `denpex serve --help` works.
#include <string>
#include <vector>

#include "server/serve.hpp"

int main(int argc, char** argv) {
    std::vector<std::string> args(argv + 1, argv + argc);
    if (!args.empty() && args.front() == "serve") args.erase(args.begin());
    return denpex::server::run_serve(args);
}
