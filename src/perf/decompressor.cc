#include "perf/decompressor.h"

#include <zstd.h>

#include "absl/strings/str_cat.h"

namespace perftk::perf {

Decompressor::Decompressor() : stream_(ZSTD_createDStream()) {
  ZSTD_initDStream(static_cast<ZSTD_DStream*>(stream_));
}

Decompressor::~Decompressor() { ZSTD_freeDStream(static_cast<ZSTD_DStream*>(stream_)); }

absl::Status Decompressor::Decompress(base::Bytes compressed, std::vector<std::byte>& out,
                                      size_t limit) {
  auto* stream = static_cast<ZSTD_DStream*>(stream_);
  ZSTD_inBuffer in{compressed.data(), compressed.size(), 0};
  while (in.pos < in.size) {
    size_t at = out.size();
    size_t room = std::max<size_t>(ZSTD_DStreamOutSize(), compressed.size() * 4);
    if (at + room > limit) room = limit > at ? limit - at : 0;
    if (room == 0) {
      return absl::DataLossError(absl::StrCat("compressed record expands past ", limit, " bytes"));
    }
    out.resize(at + room);
    ZSTD_outBuffer dst{out.data() + at, room, 0};
    size_t consumed_before = in.pos;
    size_t ret = ZSTD_decompressStream(stream, &dst, &in);
    out.resize(at + dst.pos);
    if (ZSTD_isError(ret)) {
      return absl::DataLossError(absl::StrCat("zstd: ", ZSTD_getErrorName(ret)));
    }
    if (dst.pos == 0 && in.pos == consumed_before) {
      return absl::DataLossError("zstd: no progress on compressed record");
    }
  }
  return absl::OkStatus();
}

}  // namespace perftk::perf
