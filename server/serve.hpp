// `denpex serve`: the language server's entry point, called by the CLI with the arguments after "serve".
//
// Contract. Parses the options (see options.hpp; usage errors: one line on stderr, exit 2), loads the knowledge
// base (built-in entries plus --knowledge directories; a broken entry is fatal, exit 2), then speaks LSP on
// stdin/stdout until `exit`, the end of input, or the death of the client process. Returns the exit code:
// 0 after `shutdown` + `exit`, 1 otherwise. Nothing but framed messages is ever written to stdout: the real
// stdout is kept for the transport and fd 1 is pointed at stderr, so a stray print cannot corrupt the stream.
#pragma once

#include <string>
#include <vector>

namespace denpex::server {

int run_serve(const std::vector<std::string>& args);

}  // namespace denpex::server
