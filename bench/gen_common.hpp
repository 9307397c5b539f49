// Shared by the benchmark's log generators (gen_logs, gen_interleaved): a deterministic PRNG and a fast
// appending writer. Standard library only; the output depends only on the seed and what is written.
#pragma once

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <utility>

namespace bench {

// ---- deterministic PRNG (splitmix64) -----------------------------------------------------------------------
struct Rng {
  std::uint64_t s;
  explicit Rng(std::uint64_t seed) : s(seed) {}
  std::uint64_t next() {
    std::uint64_t z = (s += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
  }
  // Uniform in [0, n) (n > 0); the tiny modulo bias is irrelevant here.
  std::uint32_t below(std::uint32_t n) { return static_cast<std::uint32_t>(next() % n); }
};

// ---- fast appending writer ---------------------------------------------------------------------------------
class Out {
 public:
  explicit Out(std::FILE* f) : f_(f) { buf_.reserve(kFlush + 256 * 1024); }
  Out(const Out&) = delete;
  Out& operator=(const Out&) = delete;
  ~Out() { flush(); }

  Out& s(std::string_view v) {
    buf_.append(v);
    return *this;
  }
  Out& c(char ch) {
    buf_.push_back(ch);
    return *this;
  }
  // Unsigned integer, left-padded with zeros to `width` digits.
  Out& u(std::uint64_t v, int width = 0) {
    char tmp[24];
    int n = 0;
    do {
      tmp[n++] = static_cast<char>('0' + v % 10);
      v /= 10;
    } while (v != 0);
    for (int i = n; i < width; ++i) buf_.push_back('0');
    while (n > 0) buf_.push_back(tmp[--n]);
    return *this;
  }
  Out& i(std::int64_t v) {
    if (v < 0) {
      buf_.push_back('-');
      return u(static_cast<std::uint64_t>(-v));
    }
    return u(static_cast<std::uint64_t>(v));
  }
  // Fixed-point: `scaled` / 10^decimals, e.g. fx(23456, 4) -> "2.3456".
  Out& fx(std::int64_t scaled, int decimals) {
    if (scaled < 0) {
      buf_.push_back('-');
      scaled = -scaled;
    }
    std::uint64_t p = 1;
    for (int k = 0; k < decimals; ++k) p *= 10;
    u(static_cast<std::uint64_t>(scaled) / p);
    if (decimals > 0) {
      buf_.push_back('.');
      u(static_cast<std::uint64_t>(scaled) % p, decimals);
    }
    return *this;
  }
  Out& hex(std::uint64_t v) {
    static constexpr char kDigits[] = "0123456789abcdef";
    char tmp[16];
    int n = 0;
    do {
      tmp[n++] = kDigits[v & 15];
      v >>= 4;
    } while (v != 0);
    while (n > 0) buf_.push_back(tmp[--n]);
    return *this;
  }
  Out& nl() {
    buf_.push_back('\n');
    if (buf_.size() >= kFlush) flush();
    return *this;
  }
  std::size_t pending() const { return buf_.size(); }
  std::uint64_t written() const { return flushed_ + buf_.size(); }
  // Takes what was written so far (in-memory use: construct with a null FILE*).
  std::string take() { return std::exchange(buf_, std::string()); }
  void flush() {
    if (buf_.empty() || f_ == nullptr) return;
    if (std::fwrite(buf_.data(), 1, buf_.size(), f_) != buf_.size()) {
      std::fprintf(stderr, "gen_logs: write failed: %s\n", std::strerror(errno));
      std::exit(1);
    }
    flushed_ += buf_.size();
    buf_.clear();
  }

 private:
  static constexpr std::size_t kFlush = 4u << 20;
  std::FILE* f_;
  std::string buf_;
  std::uint64_t flushed_ = 0;
};

}  // namespace bench
