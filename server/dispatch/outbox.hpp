// Outbox: where serialised JSON-RPC messages go. The stdio transport frames and writes them; tests collect them.
//
// Contract. `send()` is called from any thread; each body is sent whole (never interleaved with another) and
// the bodies one thread sends leave in the order it sent them. Sending after the transport closed drops the
// body silently.
#pragma once

#include <string>

namespace denpex::server {

class Outbox {
public:
    virtual ~Outbox() = default;
    virtual void send(std::string body) = 0;
};

}  // namespace denpex::server
